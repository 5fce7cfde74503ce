// Request-body readers with Hermes's failure semantics: aiohttp's request.json() (any failure → the caller's 400)
// and the steer endpoint's strict object reader. A body with a Content-Encoding is decoded first, as aiohttp's
// parser does (content-encoding.ts, decision 0046).
import type { HttpRequest } from '../http.js';
import { decodeAndParse, type PyValue } from '../../shared/python/index.js';
import { ParserRefusal, parserRefusalPage } from '../wire/responses.js';
import { codingOf, decodeBody } from './content-encoding.js';

/** aiohttp's client_max_size, equal to Hermes's MAX_REQUEST_BYTES (spec §2.3); it bounds the decoded body too. */
export const MAX_REQUEST_BYTES = 10_000_000;

function charsetOf(req: HttpRequest): string | undefined {
  const type = req.header('content-type');
  const match = type ? /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(type) : null;
  return match ? match[1] : undefined;
}

/** The Content-Encoding aiohttp's C parser decodes by: the last one sent. */
export function contentEncoding(req: HttpRequest): string | undefined {
  const all = req.headerValues?.('content-encoding');
  return all && all.length > 0 ? all[all.length - 1] : req.header('content-encoding');
}

/**
 * request.json(): the decoded value, or undefined when reading, decompressing, decoding or parsing failed in any way
 * (Hermes catches every exception there). A `deflate` body cut short throws ParserRefusal: aiohttp's C parser
 * answers its own 400 page for it when the message completes.
 */
export async function readJson(req: HttpRequest): Promise<{ value: PyValue } | undefined> {
  let bytes: Uint8Array | 'too-large';
  try {
    bytes = await req.readBody(MAX_REQUEST_BYTES);
  } catch {
    // The body could not be read (the client's stream failed mid-way): aiohttp's read() raises, which Hermes's
    // catch-all answers as any other bad body (decision 0070).
    return undefined;
  }
  if (bytes === 'too-large') return undefined;
  const coding = codingOf(contentEncoding(req));
  // zstd never gets here: the front door refuses it as aiohttp's parser does when the headers complete.
  if (coding !== null && coding !== 'zstd') {
    const decoded = await decodeBody(bytes, coding, MAX_REQUEST_BYTES);
    if (decoded === 'unfinished-deflate') throw new ParserRefusal(parserRefusalPage('deflate'));
    if (typeof decoded === 'string') return undefined;
    bytes = decoded;
  }
  try {
    return { value: decodeAndParse(bytes, charsetOf(req)) };
  } catch {
    return undefined;
  }
}
