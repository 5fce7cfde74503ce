// The forwarder's commands, dispatched from the `hermetic` bin.
export { backfillCommand } from './backfill.js';
export { forwardCommand } from './forward.js';
export { statusCommand } from './status.js';
export { queryCommand } from './query.js';
export { reportCommand } from './report.js';
export { policyCommand } from './policy.js';
export { FORWARDER_HELP, REPORT_HELP } from './help.js';
