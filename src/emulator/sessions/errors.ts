// Hermes's error answers on the session routes as domain data (spec sessions-api §7); wire/ writes the bytes.
import type { HermesError } from '../runs/hermes-errors.js';

const std = (status: number, message: string, code: string | null = null): HermesError => ({
  status,
  message,
  type: 'invalid_request_error',
  code,
});

export const sessionErrors = {
  invalidJson: () => std(400, 'Invalid JSON in request body'),
  notObject: () => std(400, 'Request body must be a JSON object'),
  unavailable: () => std(503, 'Session database unavailable', 'session_db_unavailable'),
  sessionId: (message: 'Invalid session ID' | 'Session ID too long') => std(400, message, 'invalid_session_id'),
  systemPrompt: () => std(400, 'system_prompt must be a string', 'invalid_system_prompt'),
  titleTaken: (holder: string) => std(400, `Title already in use by session ${holder}`, 'invalid_title'),
  /** set_session_title's ValueError text (PATCH). */
  title: (message: string) => std(400, message, 'invalid_title'),
  exists: (id: string) => std(409, `Session already exists: ${id}`, 'session_exists'),
  notFound: (id: string) => std(404, `Session not found: ${id}`, 'session_not_found'),
  unsupportedFields: (names: readonly string[]) => std(400, `Unsupported session fields: ${names.join(', ')}`, 'unsupported_session_field'),
  notBoolean: (flag: string) => std(400, `'${flag}' must be a boolean`, 'invalid_session_field'),
  order: () => std(400, 'order must be one of: oldest, latest', 'invalid_pagination'),
  page: () => std(400, 'limit and offset must be non-negative integers', 'invalid_pagination'),
  missingMessage: () => std(400, "Missing 'message' field", 'missing_message'),
  /** _multimodal_validation_error: the code and text of the content check, `param` naming the field. */
  content: (code: string, message: string): HermesError => ({ ...std(400, message, code), param: 'message' }),
  systemMessage: () => std(400, 'system_message must be a string', 'invalid_system_message'),
  missingModel: () => std(400, 'require_model_lock was set but no model/provider was provided', 'missing_model'),
  lockUnroutable: () => std(409, 'Requested Browser model lock cannot be routed; refusing silent global fallback', 'model_lock_unavailable'),
  /** _persist_session_runtime_lock returned False (the lock's write failed): the chat's and the model route's 500. */
  lockNotPersisted: () => std(500, 'Could not persist the requested session model lock', 'model_lock_persistence_failed'),
} as const;
