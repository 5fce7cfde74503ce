// The normalizer's face: pure decoding of Hermes's row forms (no I/O, no clock).
export * from './types.js';
export { decodeContent, JSON_SENTINEL } from './content.js';
export { decodeToolCalls } from './tool-calls.js';
export { reasoningOf, replyTextOf } from './reasoning.js';
export { validEpoch, validDay, EPOCH_MIN, EPOCH_MAX } from './time.js';
export { normalizeMessages, startCarry, kindOf, isLive, identityKey, wholeSessionOf, type NormalizedSession, type RowsCarry, type WholeSession } from './rows.js';
export { textColumns, anyReplacement, blobText, isBlob, DELEGATION_TEXT_COLUMNS, MESSAGE_TEXT_COLUMNS, SESSION_TEXT_COLUMNS, INVALID_UTF8, type TextProblem } from './text.js';
export { EDITED_COLUMNS, messageAttributes, SESSION_EXTRA_COLUMNS, SESSION_IDENTITY_COLUMNS } from './extras.js';
export { CALLS_MARK, usageMark, usageMarkOf, usageMarkSql } from './usage-mark.js';
export { str, num, count, numOrNull, parsed, inSessionTotals, SESSION_TOTAL_TASKS } from './values.js';
