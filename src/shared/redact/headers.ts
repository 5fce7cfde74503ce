// P8–P9: credentials carried by HTTP header lines (Authorization and API-key headers).

import { maskToken } from './mask.js';
import { CI_I, PY_CASELESS_LETTER, PY_NOT_S, PY_S, PY_S_BODY, pyCaseless, pyWordChar } from './python-re.js';

/** P8 gate: case-sensitive on purpose, exactly as Hermes checks it. */
export function hasAuthorizationHeader(text: string): boolean {
  return text.includes('uthorization') || text.includes('UTHORIZATION');
}

/**
 * P8 (spec redaction §1.3): header name (no left boundary), optional whitespace that may cross
 * lines, an optional scheme word followed by whitespace, then the credential up to ws or a quote.
 * Case-insensitive by spelling rather than the `i` flag, which would fold the scheme's `\w` class.
 */
const AUTH_HEADER = new RegExp(
  `((?:${pyCaseless('Proxy-')})?${pyCaseless('Authorization:')}${PY_S}*)` +
    `(${PY_CASELESS_LETTER}${pyWordChar('.+\\-')}*${PY_S}+)?([^${PY_S_BODY}"']+)`,
  'gu',
);

/** P8: header and scheme kept, credential → M; the scheme slot is filled whenever it can be. */
export function maskAuthorizationHeaders(text: string): string {
  return text.replace(AUTH_HEADER, (_m, head: string, scheme: string | undefined, credential: string) =>
    `${head}${scheme ?? ''}${maskToken(credential)}`,
  );
}

/** P9: API-key header names, case-insensitive, no left boundary; the value keeps any quotes. */
const API_KEY_HEADER = new RegExp(
  `((?:x-ap${CI_I}-key|x-goog-ap${CI_I}-key|ap${CI_I}-key|ap${CI_I}key|x-ap${CI_I}-token|x-auth-token|x-access-token)` +
    `${PY_S}*:${PY_S}*)(${PY_NOT_S}+)`,
  'giu',
);

/** P9: `name: M(value)` (gate `:` checked by the caller). */
export function maskApiKeyHeaders(text: string): string {
  return text.replace(API_KEY_HEADER, (_m, head: string, value: string) => `${head}${maskToken(value)}`);
}
