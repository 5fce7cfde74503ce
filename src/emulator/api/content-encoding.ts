// Request bodies with a Content-Encoding, decoded as aiohttp 3.14.3's parser does before request.json() sees them
// (auto_decompress; http_parser.py DeflateBuffer, compression_utils.py ZLibDecompressor; decision 0046). Streamed
// through node:zlib and stopped as soon as the output passes the limit, so a decompression bomb never allocates more;
// the output is charged to the server's body budget as it comes out, the decoder paused while there is no room
// (decision 0135).
import { constants, createBrotliDecompress, createGunzip, createInflate, createInflateRaw, type Gunzip } from 'node:zlib';
import type { BodyCharge } from '../http.js';

/**
 * What a body's decoding came to: the decoded bytes; 'too-large' past the limit (aiohttp's client_max_size, raised
 * inside request.read()); 'invalid' for data the decoder refuses (RequestPayloadError, also inside request.read());
 * 'unfinished-deflate' for a `deflate` stream that ends before its end marker, which aiohttp's C parser refuses with
 * its own 400 page when the message completes (`ContentEncodingError("deflate")`).
 */
export type Decoded = Uint8Array | 'too-large' | 'invalid' | 'unfinished-deflate';

/**
 * How aiohttp decodes a body with this Content-Encoding: the value, ASCII, lower-cased, must be one of gzip, deflate,
 * br, zstd; else the body is passed on as sent. Which decompressor runs then depends on the value as sent: exactly
 * `gzip` is gzip, exactly `br` is Brotli, exactly `zstd` is zstd (refused at the parser, zstdRefusal), anything else
 * that matched (`GZIP`, `Deflate`, `BR`, …) is zlib's deflate, which exactly `deflate` switches to raw deflate when the
 * first byte is not a zlib header.
 */
export type Coding = 'gzip' | 'zlib' | 'deflate' | 'br' | 'zstd';

export function codingOf(value: string | undefined): Coding | null {
  if (value === undefined || !/^[\x00-\x7f]*$/.test(value)) return null;
  const lower = value.toLowerCase();
  if (lower !== 'gzip' && lower !== 'deflate' && lower !== 'br' && lower !== 'zstd') return null;
  if (value === 'gzip' || value === 'deflate' || value === 'br' || value === 'zstd') return value;
  return 'zlib';
}

/** aiohttp's 400 page text for a zstd body on Python 3.11 without backports.zstd (raised as the headers complete). */
export const ZSTD_REFUSAL = 'Can not decode content-encoding: zstandard (zstd). Please install `backports.zstd`';

type Engine = Gunzip; // every node:zlib stream has the same surface: write/end, data/error/end, bytesWritten

function engineFor(coding: Exclude<Coding, 'zstd'>, raw: boolean): Engine {
  // A stream cut short is not an error for aiohttp (it decompresses what came); a sync flush at the end keeps node
  // from calling it one. `deflate` keeps the default, so an unfinished stream is told apart (aiohttp checks eof).
  const tolerant = { finishFlush: constants.Z_SYNC_FLUSH };
  switch (coding) {
    case 'gzip':
      return createGunzip(tolerant);
    case 'br':
      return createBrotliDecompress({ finishFlush: constants.BROTLI_OPERATION_FLUSH }) as unknown as Engine;
    case 'zlib':
      return createInflate(tolerant);
    case 'deflate':
      return raw ? createInflateRaw() : createInflate();
  }
}

/**
 * One member (gzip) or stream (zlib, deflate, Brotli) from `input`: its output, and how many input bytes it used. Each
 * chunk of output is charged as it comes; the caller gives back what a failure leaves.
 */
function member(
  coding: Exclude<Coding, 'zstd'>,
  raw: boolean,
  input: Uint8Array,
  budget: number,
  charge: Charged,
): Promise<{ output: Buffer[]; size: number; used: number } | 'too-large' | 'invalid' | 'unfinished-deflate'> {
  return new Promise((resolve) => {
    const engine = engineFor(coding, raw);
    const output: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (value: Awaited<ReturnType<typeof member>>) => {
      if (settled) return;
      settled = true;
      resolve(value);
    };
    engine.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > budget) {
        output.length = 0;
        engine.destroy();
        settle('too-large');
        return;
      }
      output.push(chunk);
      charge.take(chunk.length);
      const room = charge.room();
      if (room) {
        engine.pause();
        void room.then(() => engine.resume());
      }
    });
    engine.on('error', (e: NodeJS.ErrnoException) => {
      // "unexpected end of file": a deflate stream without its end marker (only `deflate` runs without the sync flush).
      settle(coding === 'deflate' && e.code === 'Z_BUF_ERROR' ? 'unfinished-deflate' : 'invalid');
    });
    engine.on('end', () => settle({ output, size, used: engine.bytesWritten }));
    engine.end(input);
  });
}

/** A body charge that remembers what it took, so a failure gives it all back. */
class Charged {
  taken = 0;
  constructor(readonly charge: BodyCharge | undefined) {}
  take(bytes: number): void {
    this.taken += bytes;
    this.charge?.take(bytes);
  }
  room(): Promise<void> | null {
    return this.charge?.room() ?? null;
  }
  giveBack(): void {
    this.charge?.give(this.taken);
    this.taken = 0;
  }
}

/**
 * The body as aiohttp hands it to request.read(), at most `limit` bytes of output. Concatenated members and streams
 * are decoded one after another (ZLibDecompressor.decompress_sync starts a fresh decompressor on what follows the end
 * of one), so bytes after the end that are not another stream are refused. The output is held in `charge` (the
 * decoded bytes; nothing when decoding fails); the input is the caller's to give back.
 */
export async function decodeBody(body: Uint8Array, coding: Exclude<Coding, 'zstd'>, limit: number, charge?: BodyCharge): Promise<Decoded> {
  if (body.length === 0) return body;
  const charged = new Charged(charge);
  const decoded = await decodeMembers(body, coding, limit, charged);
  if (typeof decoded === 'string') charged.giveBack();
  return decoded;
}

async function decodeMembers(body: Uint8Array, coding: Exclude<Coding, 'zstd'>, limit: number, charged: Charged): Promise<Decoded> {
  // RFC 1950's CM nibble: for `deflate`, a first byte whose low nibble is not 8 means raw deflate, for every stream
  // that follows too (http_parser.py DeflateBuffer.feed_data looks once).
  const raw = coding === 'deflate' && (body[0]! & 0x0f) !== 8;
  const parts: Buffer[] = [];
  let total = 0;
  let rest = body;
  while (rest.length > 0) {
    const one = await member(coding, raw, rest, limit - total, charged);
    if (typeof one === 'string') return one;
    parts.push(...one.output);
    total += one.size;
    // Brotli has no multi-stream form: bytes after its end are refused by the decoder.
    if (one.used >= rest.length) break;
    if (coding === 'br' || one.used === 0) return 'invalid';
    rest = rest.subarray(one.used);
  }
  if (parts.length <= 1) return parts[0] ?? Buffer.alloc(0);
  // The copy is held before it is made; the parts it replaces are let go with it.
  const room = charged.charge?.want(total);
  if (room) await room;
  const whole = Buffer.concat(parts, total);
  charged.charge?.give(total);
  return whole;
}
