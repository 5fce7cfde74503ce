// A URL as Hermetic prints it (sinks, sources, --from, errors): its password replaced by `***`, in the user info
// (scheme://user:***@host) and in a `password=` parameter; everything else kept as written (no normalisation, so
// the URL a person typed is the one they read back). `hideSecrets` adds Hermes's redactor, for free text.
import { redactSensitiveText } from './redact/index.js';

/**
 * The URL with its password shown as `***`. The user info ends at the last `@` before the path, so a password
 * holding an unencoded `@` is hidden whole.
 * @example hidePassword('postgres://me:s3cret@db/fleet?sslmode=require') // 'postgres://me:***@db/fleet?sslmode=require'
 */
export function hidePassword(url: string): string {
  const out = url.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i, (whole, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(':');
    return colon < 0 ? whole : `${scheme}${userinfo.slice(0, colon)}:***@`;
  });
  // Written without a scheme (`user:password@host/db`, a common slip): the same user info, at the start.
  const bare = /^[a-z][a-z0-9+.-]*:\/\//i.test(out) ? out : out.replace(/^([^\s/?#:@]+):[^\s/?#]*@/, '$1:***@');
  return bare.replace(/([?&]password=)[^&#\s]*/gi, '$1***');
}

/**
 * Text that may hold URLs (a URL, or a server's error message about one) with every password hidden: Hermes's
 * redactor (its DSN rule masks `scheme://user:password@` wherever it appears), then `hidePassword` for what that rule
 * leaves (a password with `@` or spaces in it, a `password=` parameter).
 * @example hideSecrets('connect to postgres://me:pw@db/x failed') // 'connect to postgres://me:***@db/x failed'
 */
export function hideSecrets(text: string): string {
  return hidePassword(redactSensitiveText(text) ?? '');
}
