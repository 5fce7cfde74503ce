// Preloaded into every test process by scripts/run-tests.mjs (--import): from the first test on, every admin client
// holds the answers it receives to the OpenAPI document (test/support/contract.ts; HERMETIC_CONTRACT_CHECK=0 turns it off).
import { CONTRACT_CHECK_PRELOADED, installContractCheck } from './contract.js';

installContractCheck();
(globalThis as Record<symbol, unknown>)[CONTRACT_CHECK_PRELOADED] = true;
