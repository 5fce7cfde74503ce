// The plain run table against the run-table contract (test/support/run-table-conformance.ts).
import { runTableConformance } from '../../../test/support/run-table-conformance.js';
import { PlainRunTable } from './plain-run-table.js';

runTableConformance('plain run table', (db, lock) => new PlainRunTable(db, lock));
