// Writes src/emulator/admin/openapi.generated.ts, the OpenAPI document served at GET /__admin/openapi.json, from the
// route tables and the control plane's contract (npm run docs:openapi; test/docs/openapi.test.ts keeps it in step).
import { writeFileSync } from 'node:fs';
import { openApiModule, OPENAPI_MODULE } from './openapi/document.js';

writeFileSync(OPENAPI_MODULE, openApiModule());
console.log(`wrote ${OPENAPI_MODULE}`);
