// GET /__admin/openapi.json: the OpenAPI 3.1 document of every route, generated from the two route tables and the
// AdminRoutes contract by `npm run docs:openapi` (scripts/openapi/); test/docs/openapi.test.ts keeps it in step.
import type { AdminOpenApiDocument } from './client.js';
import { OPENAPI_DOCUMENT } from './openapi.generated.js';

export const openApiHandler = (): AdminOpenApiDocument => OPENAPI_DOCUMENT;
