// Hermes's own error answers as domain data (status, message, type, code); only wire/ turns them into bytes.
// Texts are exact (spec runs-api §§2–13). Also Hermes's `_redact_api_error_text`, which its error paths share.
import { pyStr, type PyValue } from '../../shared/python/index.js';
import { redactSensitiveText } from '../../shared/redact/index.js';

/**
 * Hermes's `_redact_api_error_text`: str(value), force-redacted once (redaction.md §2).
 * @example redactApiErrorText('key sk-proj-abcdefghijklmnop1234') // 'key sk-pro...1234'
 */
export function redactApiErrorText(value: PyValue): string {
  return redactSensitiveText(pyStr(value), { force: true })!;
}

export interface HermesError {
  status: number;
  message: string;
  type: string;
  code: string | null;
  /** Adds `Retry-After: 1` (429 capacity, 503 draining). */
  retryAfter?: boolean;
  /** The envelope's `param` (null unless set: the session chat's content errors name `message`). */
  param?: string;
}

const std = (status: number, message: string, code: string | null = null, type = 'invalid_request_error'): HermesError => ({
  status,
  message,
  type,
  code,
});

export const hermesErrors = {
  invalidJson: () => std(400, 'Invalid JSON'),
  missingInput: () => std(400, "Missing 'input' field"),
  noUserMessage: () => std(400, 'No user message found in input'),
  historyNotArray: () => std(400, "'conversation_history' must be an array of message objects"),
  historyItem: (i: number) => std(400, `conversation_history[${i}] must have 'role' and 'content' fields`),
  invalidIdempotencyKey: () =>
    std(400, 'Idempotency-Key must be 1-255 visible ASCII characters', 'invalid_idempotency_key'),
  idempotencyConflict: () =>
    std(409, 'Idempotency-Key was already used with a different request payload', 'idempotency_key_conflict'),
  sessionKeyNeedsAuth: () =>
    std(403, 'X-Hermes-Session-Key requires API key authentication. Configure API_SERVER_KEY to enable this feature.'),
  draining: (): HermesError => ({
    ...std(503, 'Gateway is draining existing work; retry shortly.', 'gateway_draining'),
    retryAfter: true,
  }),
  capacity: (max: number): HermesError => ({
    ...std(429, `Too many concurrent runs (max ${max})`, 'rate_limit_exceeded', 'rate_limit_error'),
    retryAfter: true,
  }),
  bodyTooLarge: () => std(413, 'Request body too large.', 'body_too_large'),
  invalidContentLength: () => std(400, 'Invalid Content-Length header.', 'invalid_content_length'),
  runNotFound: (id: string) => std(404, `Run not found: ${id}`, 'run_not_found'),
  runNotActive: (id: string) => std(409, `Run is not active in this gateway process: ${id}`, 'run_not_active'),
  approvalRequestInvalid: () => std(400, 'Approval request_id is invalid.', 'invalid_approval_request'),
  approvalChoiceInvalid: () =>
    std(400, 'Invalid approval choice; expected one of: always, deny, once, session', 'invalid_approval_choice'),
  approvalNotActive: (id: string) => std(409, `Run has no active approval session: ${id}`, 'approval_not_active'),
  approvalNotPending: (id: string) => std(409, `Run has no pending approval: ${id}`, 'approval_not_pending'),
  steerNotAccepting: (id: string) =>
    std(409, `Run is not currently accepting steer input: ${id}`, 'run_not_accepting_steer'),
  steerInvalidJson: () => std(400, 'Invalid JSON in request body'),
  steerNotObject: () => std(400, 'Request body must be a JSON object'),
  steerMissingText: () =>
    std(400, "Missing non-empty steer text; expected 'input', 'message', or 'text'.", 'invalid_steer_input'),
  steerNotAccepted: (id: string) => std(409, `Run did not accept steer text: ${id}`, 'steer_not_accepted'),
  /** agent.steer() raised: the exception text is redacted here, and again by the envelope (redaction.md §2). */
  steerFailed: (exceptionText: string) => std(500, redactApiErrorText(exceptionText), 'steer_failed'),
} as const;

/** A Python exception escaping a handler: aiohttp answers with its plain-text 500 page (spec §2.5). */
export class UnhandledHermesException extends Error {}

export type Result<T> = { ok: true; value: T } | { ok: false; error: HermesError };
export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T = never>(error: HermesError): Result<T> => ({ ok: false, error });
