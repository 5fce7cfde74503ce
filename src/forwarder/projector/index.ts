// The projector's face: pure functions from normalized Hermes rows to dataset records.
export { projectSession, projectAppended, modelUsageRecord, type ProjectInput, type Projection } from './session.js';
export { firstDifference, probesOf, TAIL_VERSION, type Tail } from './tail.js';
export { normalizeProvider, hostOf } from './provider.js';
export { scopesOf, ownScope, INTERACTIVE, AUTOMATION } from './scope.js';
export { lineageKind, type LineageKind } from './lineage.js';
export { partsOf, textOf } from './parts.js';
export { usageEvent, LEDGER_FIELDS, type Ledger } from './usage.js';
