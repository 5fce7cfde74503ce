// Idempotency fingerprint of a /v1/runs submission (spec §12.2): sha256 of Python's canonical json.dumps.
import { createHash } from 'node:crypto';
import { canonicalDumps, hasLoneSurrogate, type PyValue } from '../wire/python-json.js';

/** The canonical text contains a lone surrogate, so Python's `.encode("utf-8")` raises (→ HTTP 500). */
export class FingerprintError extends Error {
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
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
