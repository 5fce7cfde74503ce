// The refusals of aiohttp 3.14.3's C HTTP parser (_http_parser.pyx) that node's own parser lets through: the request
// target or a header field past 8190 bytes, more than 128 headers, a second copy of a single-value header, and an
// HTTP/1.1 request without Host. Checked in the order aiohttp meets them while parsing; the text is the message of
// its exception, which aiohttp answers as a 400 page (decision 0046).

/** HttpRequestParser's defaults, which aiohttp's web server keeps (max_line_size, max_field_size, max_headers). */
export const MAX_LINE_SIZE = 8190;
export const MAX_FIELD_SIZE = 8190;
export const MAX_HEADERS = 128;

/** SINGLETON_HEADERS, by lower-case name, spelled as aiohttp's header constants (find_header) print them. */
const SINGLETONS = new Map(
  ['Content-Length', 'Content-Location', 'Content-Range', 'Content-Type', 'ETag', 'Host', 'Max-Forwards', 'Server', 'Transfer-Encoding', 'User-Agent'].map(
    (n) => [n.toLowerCase(), n],
  ),
);
const SINGLETON_LENGTHS = new Set([...SINGLETONS.keys()].map((n) => n.length));

/** Python's repr() of a bytes object (`b'…'`, or `b"…"` when it holds a ' and no "). */
export function bytesRepr(bytes: Uint8Array): string {
  const quote = bytes.includes(0x27) && !bytes.includes(0x22) ? '"' : "'";
  let out = `b${quote}`;
  for (const b of bytes) {
    if (b === 0x5c) out += '\\\\';
    else if (b === quote.charCodeAt(0)) out += `\\${quote}`;
    else if (b === 0x09) out += '\\t';
    else if (b === 0x0a) out += '\\n';
    else if (b === 0x0d) out += '\\r';
    else if (b < 0x20 || b >= 0x7f) out += `\\x${b.toString(16).padStart(2, '0')}`;
    else out += String.fromCharCode(b);
  }
  return out + quote;
}

/** LineTooLong's message: the first 100 bytes of what was read, then "...". The request target is a bytearray. */
function lineTooLong(read: Buffer, limit: number, bytearray: boolean): string {
  const shown = bytesRepr(Buffer.concat([read.subarray(0, 100), Buffer.from('...')]));
  return `Got more than ${limit} bytes when reading: ${bytearray ? `bytearray(${shown})` : shown}.`;
}

export interface ParsedHead {
  /** The request target as it arrived (node's latin-1 string). */
  url: string;
  /** '1.0' or '1.1'. */
  httpVersion: string;
  /** Names and values alternating, as they arrived (node's latin-1 strings). */
  rawHeaders: readonly string[];
}

/**
 * The message aiohttp's parser refuses this request head with, or null. The callbacks' bookkeeping is followed as
 * written: a header name is measured together with the name before it (that name is only stored once the new one
 * starts), and the first header's value together with its name (later names' sizes are reset before their values).
 */
export function parserRefusal(head: ParsedHead): string | null {
  // Every request passes here: sizes are read off node's latin-1 strings (one char per byte), and nothing is
  // allocated unless a limit is passed.
  const { url, rawHeaders } = head;
  if (url.length > MAX_LINE_SIZE) return lineTooLong(Buffer.from(url, 'latin1'), MAX_LINE_SIZE, true);
  let seen: string[] | null = null;
  let count = 0;
  let host = false;
  let pending = '';
  for (let i = 0; i <= rawHeaders.length; i += 2) {
    const last = i === rawHeaders.length;
    const name = last ? '' : rawHeaders[i]!;
    const nameSize = pending.length + name.length;
    if (!last && nameSize > MAX_FIELD_SIZE) return lineTooLong(Buffer.from(pending + name, 'latin1'), MAX_FIELD_SIZE, false);
    // _process_header for the header before: duplicate single-value headers, then the count.
    if (pending.length > 0) {
      const canonical = SINGLETON_LENGTHS.has(pending.length) ? SINGLETONS.get(pending.toLowerCase()) : undefined;
      if (canonical !== undefined) {
        if (seen?.includes(canonical)) return `Duplicate '${canonical}' header found.`;
        (seen ??= []).push(canonical);
        if (canonical === 'Host') host = true;
      }
      count += 1;
      if (count > MAX_HEADERS) return 'Too many headers received';
    }
    if (last) break;
    const value = rawHeaders[i + 1] ?? '';
    if ((i === 0 ? nameSize : 0) + value.length > MAX_FIELD_SIZE) return lineTooLong(Buffer.from(value, 'latin1'), MAX_FIELD_SIZE, false);
    pending = name;
  }
  if (head.httpVersion === '1.1' && !host) return "Missing 'Host' header in request.";
  return null;
}
