// Request-body readers with Hermes's failure semantics: aiohttp's request.json() (any failure → the caller's 400)
// and the steer endpoint's strict object reader. A body with a Content-Encoding is decoded first, as aiohttp's
// parser does (content-encoding.ts, decision 0046). Over `hermetic serve` what a body costs is charged to the
// server's body budget as it is read, decoded and parsed (decision 0135).
import { isAscii } from 'node:buffer';
import type { BodyCharge, HttpRequest } from '../http.js';
import { decodeText, parseCost, parsePyJson, type PyValue } from '../../shared/python/index.js';
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

/** A charset whose ASCII text TextDecoder makes into a one-byte string at once (others may build it in pieces). */
const UTF8 = /^\s*utf-?8\s*$/i;

/** What each charge holds for the value its body was parsed into (narrowed by keepOfBody). */
const valueHeld = new WeakMap<BodyCharge, number>();

/**
 * `bytes` decoded with `charset` and parsed as json.loads does (PyJsonError when either fails). Charged: the text is
 * reserved before it is decoded (a byte for each byte of ASCII UTF-8, else two at most), the value before it is
 * parsed (parseCost, from one pass over the text); both are held until the charge ends, `bytes` given back.
 */
export async function parseBody(bytes: Uint8Array, charset: string | undefined, charge: BodyCharge | undefined): Promise<PyValue> {
  if (!charge) return parsePyJson(decodeText(bytes, charset));
  const textRoom = charge.want(isAscii(bytes) && (charset === undefined || UTF8.test(charset)) ? bytes.length : 2 * bytes.length);
  if (textRoom) await textRoom;
  const text = decodeText(bytes, charset);
  const cost = parseCost(text);
  const valueRoom = charge.want(cost);
  if (valueRoom) await valueRoom;
  const value = parsePyJson(text);
  valueHeld.set(charge, cost);
  charge.give(bytes.length);
  return value;
}

/**
 * A handler is done with the value its body was parsed into but for what it keeps (`kept()` bytes, valueCost): the
 * rest is given back to the budget at once rather than when the answer is made. `kept` is asked only when the body is
 * charged (over `hermetic serve`; in process nothing is).
 */
export function keepOfBody(req: HttpRequest, kept: () => number): void {
  const charge = req.bodyCharge;
  const held = charge && valueHeld.get(charge);
  if (!charge || held === undefined) return;
  const keep = kept();
  if (keep >= held) return;
  valueHeld.set(charge, keep);
  charge.give(held - keep);
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
  const charge = req.bodyCharge;
  const coding = codingOf(contentEncoding(req));
  // zstd never gets here: the front door refuses it as aiohttp's parser does when the headers complete.
  if (coding !== null && coding !== 'zstd') {
    const decoded = await decodeBody(bytes, coding, MAX_REQUEST_BYTES, charge);
    // The bytes received are let go once decoded.
    charge?.give(bytes.length);
    if (decoded === 'unfinished-deflate') throw new ParserRefusal(parserRefusalPage('deflate'));
    if (typeof decoded === 'string') return undefined;
    bytes = decoded;
  }
  try {
    return { value: await parseBody(bytes, charsetOf(req), charge) };
  } catch {
    return undefined;
  }
}
