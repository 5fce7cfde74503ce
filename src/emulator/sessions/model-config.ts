// A session row's model_config merged as SessionDB merges it (hermes_state_sessions.py `_parse_model_config`,
// `_merge_model_config_json`; decision 0147), pure: the JSON the row holds read tolerantly, a patch applied key by
// key, then json.dumps. The lock routes' store write and the --state-db recording both merge through it, so a row
// keeps its other keys (lineage markers, yolo_mode, a provider) in their order, re-dumped as Hermes re-dumps them.
import { dumps, isDict, parsePyJson, PyJsonDecodeError, pyStrip, type PyDict, type PyValue } from '../../shared/python/index.js';

/** The key a Browser / API-client model lock lives under (update_session_runtime_lock). */
export const BROWSER_MODEL_LOCK = 'browser_model_lock';

/**
 * _parse_model_config: text that strips to something and decodes to a JSON object → that object; NULL, blank text,
 * text that is not JSON (JSONDecodeError), JSON of another shape, or a value that is not text → an empty dict. Past
 * json.loads' limits (deep nesting, an int of over 4300 digits) Python raises instead, and so does this (PyJsonError).
 */
export function parseModelConfig(stored: unknown): PyDict {
  if (typeof stored !== 'string' || !pyStrip(stored)) return new Map();
  let value: PyValue;
  try {
    value = parsePyJson(stored);
  } catch (e) {
    if (e instanceof PyJsonDecodeError) return new Map();
    throw e;
  }
  return isDict(value) ? value : new Map();
}

/**
 * _merge_model_config_json: each patch key set (in place when the row has it, else last), a null one removed, then
 * `json.dumps(config) if config else None` (default separators, ASCII escapes, floats as Python prints them).
 * @example mergeModelConfig('{"_branched_from":"p"}', new Map([['yolo_mode', true]])) // '{"_branched_from": "p", "yolo_mode": true}'
 */
export function mergeModelConfig(stored: unknown, patch: ReadonlyMap<string, PyValue>): string | null {
  const config = parseModelConfig(stored);
  for (const [key, value] of patch) {
    if (value === null) config.delete(key);
    else config.set(key, value);
  }
  return config.size > 0 ? dumps(config) : null;
}
