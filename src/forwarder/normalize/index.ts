// The normalizer's face: pure decoding of Hermes's row forms (no I/O, no clock).
export * from './types.js';
export { decodeContent, JSON_SENTINEL } from './content.js';
export { decodeToolCalls } from './tool-calls.js';
export { reasoningOf, replyTextOf } from './reasoning.js';
export { validEpoch, EPOCH_MIN, EPOCH_MAX } from './time.js';
export { normalizeMessages, kindOf, isLive, type NormalizedSession } from './rows.js';
export { usageMark, usageMarkOf } from './usage-mark.js';
export { str, num, numOrNull } from './values.js';
