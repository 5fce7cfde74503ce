// The `args` Hermes's agent hands its progress callback with `tool.started` (agent/tool_executor.py
// `_begin_tool_execution`): the call's parsed arguments, a dict, as `redact_tool_args_for_display` (agent/display.py)
// shows them: `browser_type`'s `text` force-redacted, every other tool's as they are (decision 0146).
import { isDict, parsePyJson, type PyDict, type PyValue } from '../../shared/python/index.js';
import { redactSensitiveText } from '../../shared/redact/index.js';

/**
 * A control event's `arguments` as the agent would pass them: none given is the empty call `{}`; JSON text of an object
 * is that object. Anything else (text of another value, a list) the agent never starts a tool with; it is shown as given.
 * @example displayArgs('browser_type', new Map([['text', 'sk-proj-abcdefghijklmnop1234']])) // text masked
 */
export function displayArgs(tool: string, args: PyValue | undefined): PyValue {
  const parsed = args === undefined ? new Map() : typeof args === 'string' ? objectText(args) ?? args : args;
  if (tool !== 'browser_type' || !isDict(parsed)) return parsed;
  const text = parsed.get('text');
  if (typeof text !== 'string') return parsed;
  return new Map(parsed).set('text', redactSensitiveText(text, { force: true })!);
}

/** The object JSON `text` holds, or null (not JSON, or another value). */
function objectText(text: string): PyDict | null {
  try {
    const value = parsePyJson(text);
    return isDict(value) ? value : null;
  } catch {
    return null;
  }
}
