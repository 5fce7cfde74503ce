// SSE framing exactly as Hermes writes it (spec runs-api §8.2): one `data:` line per event, comments for
// keep-alives and the end of the stream. No id:, event: or retry: lines at the pin.
import { dumps, dumpsUnicode, hasLoneSurrogate, type PyDict } from '../../shared/python/index.js';

export const SSE_HEADERS: ReadonlyArray<[string, string]> = [
  ['Content-Type', 'text/event-stream'],
  ['Cache-Control', 'no-cache'],
  ['X-Accel-Buffering', 'no'],
];

export const dataFrame = (event: PyDict): string => `data: ${dumps(event)}\n\n`;
/**
 * `_sse_frame(payload, event=name, ensure_ascii=False)`: an `event:` line, then the JSON with non-ASCII raw. null when
 * the text holds a lone surrogate: Python's `.encode()` raises there (UnicodeEncodeError), so nothing is written.
 */
export function namedFrame(name: string, payload: PyDict): string | null {
  const frame = `event: ${name}\ndata: ${dumpsUnicode(payload)}\n\n`;
  return hasLoneSurrogate(frame) ? null : frame;
}
export const KEEPALIVE_FRAME = ': keepalive\n\n';
export const CLOSED_FRAME = ': stream closed\n\n';
