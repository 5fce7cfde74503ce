// Hermes's checks on request bodies, as pure functions over decoded JSON (spec runs-api §5.3, §5.4, §9, §10).
import { pyLen, pyStrip, type PyDict, type PyValue, isDict, PyFloat, pyStr, pyTruthy, sqliteBindable } from '../../shared/python/index.js';
import { hermesErrors, UnhandledHermesException, type HermesError } from './hermes-errors.js';

export interface RunRequest {
  /** The user turn: a string, or the last input element's content. */
  userMessage: PyValue;
  /** Prior turns as role/content pairs (explicit history, else earlier input elements). */
  history: Array<{ role: string; content: string }>;
  sessionId: PyValue | undefined;
  /** The body's `model` when the key is present (any JSON value), else undefined. */
  model: { value: PyValue } | undefined;
  /** The body's `instructions` (any JSON value; scenarios match on it), else undefined. */
  instructions: PyValue | undefined;
}

function flattenContent(content: PyValue): string {
  if (!Array.isArray(content)) return pyStr(content);
  const texts: string[] = [];
  for (const part of content) {
    if (isDict(part) && part.get('type') === 'text') texts.push(pyStr(part.get('text') ?? ''));
  }
  return texts.join(' ');
}

/**
 * Hermes's `_coerce_request_bool`: a bool as itself; a string stripped (Python's whitespace) and lower-cased, then
 * `1|true|yes|on` or `0|false|no|off`; a number by its truth; anything else (and null) the default. Read for the
 * approval's `all`/`resolve_all` (spec runs-api §9) and a session request's model lock.
 */
export function coerceRequestBool(v: PyValue | undefined, fallback = false): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const s = pyStrip(v).toLowerCase();
    if (s === '1' || s === 'true' || s === 'yes' || s === 'on') return true;
    if (s === '0' || s === 'false' || s === 'no' || s === 'off') return false;
    return fallback;
  }
  if (typeof v === 'number' || typeof v === 'bigint' || v instanceof PyFloat) return pyTruthy(v);
  return fallback;
}

/** Steps 8–9 of §5.1. Throws UnhandledHermesException where Python would raise (non-object root, odd last input). */
export function validateRunBody(body: PyValue): RunRequest | HermesError {
  if (!isDict(body)) throw new UnhandledHermesException('request body is not a JSON object');
  const input = body.get('input');
  let userMessage: PyValue;
  if (!pyTruthy(input)) return hermesErrors.missingInput();
  if (typeof input === 'string') userMessage = input;
  else if (Array.isArray(input)) {
    const last = input[input.length - 1]!;
    if (!isDict(last)) throw new UnhandledHermesException("'input' last element is not an object");
    const content = last.get('content');
    if (!pyTruthy(content)) return hermesErrors.noUserMessage();
    userMessage = content!;
  } else return hermesErrors.noUserMessage();

  const rawHistory = body.get('conversation_history');
  let history: RunRequest['history'] = [];
  if (pyTruthy(rawHistory)) {
    if (!Array.isArray(rawHistory)) return hermesErrors.historyNotArray();
    for (let i = 0; i < rawHistory.length; i++) {
      const item = rawHistory[i]!;
      if (!isDict(item) || !item.has('role') || !item.has('content')) return hermesErrors.historyItem(i);
      history.push({ role: pyStr(item.get('role')!), content: pyStr(item.get('content')!) });
    }
  }
  // Without explicit history Hermes looks a truthy previous_response_id up in its SQLite response store; an unknown one
  // is ignored, but a value sqlite3 cannot bind raises out of the handler (decision 0113).
  const previous = body.get('previous_response_id');
  if (history.length === 0 && pyTruthy(previous) && !sqliteBindable(previous!)) {
    throw new UnhandledHermesException('previous_response_id: sqlite3 cannot bind this value');
  }
  if (history.length === 0 && Array.isArray(input) && input.length > 1) {
    history = input
      .slice(0, -1)
      .filter((m): m is PyDict => isDict(m) && pyTruthy(m.get('role')) && pyTruthy(m.get('content')))
      .map((m) => ({ role: pyStr(m.get('role')!), content: flattenContent(m.get('content')!) }));
  }
  const sessionId = body.get('session_id');
  return {
    userMessage,
    history,
    sessionId: pyTruthy(sessionId) ? sessionId : undefined,
    model: body.has('model') ? { value: body.get('model')! } : undefined,
    instructions: body.get('instructions'),
  };
}

/** Whether an Idempotency-Key (already stripped) is 1–255 visible ASCII characters (§12.1). */
export function validIdempotencyKey(key: string): boolean {
  return key.length >= 1 && key.length <= 255 && /^[\x21-\x7e]+$/.test(key);
}

/** Validates X-Hermes-Session-Key (§4): '' when absent or blank, the stripped key, or the two-key 400's message. */
export function parseSessionKey(raw: string | undefined): { key: string } | { invalid: string } {
  const key = raw === undefined ? '' : pyStrip(raw);
  if (key === '') return { key: '' };
  if (/[\r\n\0]/.test(key)) return { invalid: 'Invalid session key' };
  if (pyLen(key) > 256) return { invalid: 'Session key too long' };
  return { key };
}
