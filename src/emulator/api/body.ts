// Request-body readers with Hermes's failure semantics: aiohttp's request.json() (any failure → the caller's 400)
// and the steer endpoint's strict object reader.
import type { HttpRequest } from '../http.js';
import { decodeAndParse, type PyValue } from '../../shared/python/index.js';

/** aiohttp's client_max_size, equal to Hermes's MAX_REQUEST_BYTES (spec §2.3). */
export const MAX_REQUEST_BYTES = 10_000_000;

function charsetOf(req: HttpRequest): string | undefined {
  const type = req.header('content-type');
  const match = type ? /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(type) : null;
  return match ? match[1] : undefined;
}

/** request.json(): the decoded value, or undefined when reading, decoding or parsing failed in any way. */
export async function readJson(req: HttpRequest): Promise<{ value: PyValue } | undefined> {
  const bytes = await req.readBody(MAX_REQUEST_BYTES);
  if (bytes === 'too-large') return undefined;
  try {
    return { value: decodeAndParse(bytes, charsetOf(req)) };
  } catch {
    return undefined;
  }
}
