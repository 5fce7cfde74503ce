// P12 and P14: credentials inside URLs (DSN passwords, bare-token userinfo) and whole form bodies.

import { maskToken } from './mask.js';
import { pyStrip } from '../python/index.js';
import { CI_I, PY_NOT_S, PY_S_BODY } from './python-re.js';

/** P12a (spec redaction §1.3): database DSN `scheme://user:password@`, case-insensitive scheme. */
const DSN_PASSWORD = new RegExp(
  `((?:postgres(?:ql)?|mysql|mongodb(?:\\+srv)?|red${CI_I}s|amqp)://[^:${PY_S_BODY}]+:)([^@${PY_S_BODY}]+)(@)`,
  'giu',
);

/** P12b: web/transport scheme + `://` + a bare 8+ char token (no `:`, `@`, `/`) + `@host`. */
const BARE_TOKEN_USERINFO = new RegExp(
  `((?:https?|wss?|g${CI_I}t|ssh|ftp|ftps|sftp)://)([^${PY_S_BODY}:@/]{8,})(@${PY_NOT_S}+)`,
  'giu',
);

/**
 * P12: DSN passwords become a full `***`; bare userinfo tokens become M(token). `user:pass@`
 * on web schemes and all query strings pass through. Gate `://` checked by the caller.
 */
export function maskUrlCredentials(text: string): string {
  return text
    .replace(DSN_PASSWORD, (_m, head: string, _password: string, at: string) => `${head}***${at}`)
    .replace(BARE_TOKEN_USERINFO, (_m, scheme: string, token: string, rest: string) =>
      `${scheme}${maskToken(token)}${rest}`,
    );
}

/** Form parameter names whose values P14 masks (compared lower-cased). */
const SENSITIVE_FORM_NAMES = new Set([
  'access_token', 'refresh_token', 'id_token', 'token', 'api_key', 'apikey', 'client_secret',
  'password', 'auth', 'jwt', 'session', 'secret', 'key', 'code', 'signature', 'x-amz-signature',
]);

/** The whole (stripped) text is two or more `name=value` pairs joined by `&`. */
const FORM_BODY = new RegExp(
  `^[A-Za-z_][A-Za-z0-9_.-]*=[^&${PY_S_BODY}]*(?:&[A-Za-z_][A-Za-z0-9_.-]*=[^&${PY_S_BODY}]*)+$`,
  'u',
);

/**
 * P14: only when the text has no LF and is entirely a form body; the result is the STRIPPED
 * text with each sensitive pair rewritten to `name=***`. Gate `&` and `=` checked by the caller.
 */
export function maskFormBody(text: string): string {
  if (text.includes('\n')) return text;
  const body = pyStrip(text);
  if (!FORM_BODY.test(body)) return text;
  return body
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      const name = pair.slice(0, eq);
      return SENSITIVE_FORM_NAMES.has(name.toLowerCase()) ? `${name}=***` : pair;
    })
    .join('&');
}
