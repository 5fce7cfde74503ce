// Idempotency fingerprint of a /v1/runs submission (spec §12.2): sha256 of Python's canonical json.dumps.
import * as crypto from 'node:crypto';
import { canonicalDumps, hasLoneSurrogate, type PyValue } from '../../shared/python/index.js';
import { UnhandledHermesException } from './hermes-errors.js';

/** The canonical text contains a lone surrogate, so Python's `.encode("utf-8")` raises (→ HTTP 500). */
/** Python's UnicodeEncodeError inside the handler: aiohttp's 500 page (spec §12.2). */
export class FingerprintError extends UnhandledHermesException {
  override name = 'FingerprintError';
}

/** json.dumps({"body": body, "gateway_session_key": key}, sort_keys=True, separators=(",", ":"), ensure_ascii=False). */
export function canonicalFingerprintText(body: PyValue, gatewaySessionKey: string): string {
  return canonicalDumps(
    new Map<string, PyValue>([
      ['body', body],
      ['gateway_session_key', gatewaySessionKey],
    ]),
  );
}

/** Lowercase hex SHA-256 of UTF-8(canonical text). */
export function fingerprint(body: PyValue, gatewaySessionKey: string): string {
  const text = canonicalFingerprintText(body, gatewaySessionKey);
  // Node would silently encode a lone surrogate as U+FFFD; Python raises UnicodeEncodeError instead.
  if (hasLoneSurrogate(text)) {
    throw new FingerprintError("'utf-8' codec can't encode character: surrogates not allowed");
  }
  return sha256Hex(text);
}

/** crypto.hash (Node >= 20.12) skips the Hash object createHash builds; older Node 20 releases fall back to it. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;
const sha256Hex: (text: string) => string = oneShot
  ? (text) => oneShot('sha256', text, 'hex')
  : (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');
