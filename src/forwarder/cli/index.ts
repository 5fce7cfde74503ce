// The forwarder's commands, dispatched from the `hermetic` bin.
export { backfillCommand } from './backfill.js';
export { forwardCommand } from './forward.js';
export { statusCommand } from './status.js';
export { queryCommand } from './query.js';
export { policyCommand } from './policy.js';
export { forgetCommand } from './forget.js';
export { FORWARDER_HELP } from './help.js';
