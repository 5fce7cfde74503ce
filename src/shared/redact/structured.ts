// P5–P7: secrets in structured text (JSON fields, Python mapping reprs, YAML/colon config lines).

import { maskToken } from './mask.js';
import { CI_I, CI_I_EXTRA, PY_LINE_START, PY_S, PY_S_BODY } from './python-re.js';
import { hasSecretKeyword, isEnvLookup } from './secret-keyword.js';

/** P5 (spec redaction §1.3): exact JSON key names, case-insensitive, value without escapes. */
const JSON_FIELD = new RegExp(
  `("(?:ap${CI_I}_?key|token|secret|password|access_token|refresh_token|auth_token|bearer|secret_value` +
    `|raw_secret|secret_${CI_I}nput|key_mater${CI_I}al)")${PY_S}*:${PY_S}*"([^"]+)"`,
  'giu',
);

/** P5: `"key": "M(value)"`; the separator is normalised to `: `, env lookups stay. */
export function maskJsonFields(text: string): string {
  return text.replace(JSON_FIELD, (match, key: string, value: string) =>
    isEnvLookup(value) ? match : `${key}: "${maskToken(value)}"`,
  );
}

/** P7 key keywords: bare `auth` is excluded so `Authorization:` and `author:` are left to P8. */
const YAML_NAMES = `(?:ap${CI_I}[ _.\\-]?key|token|secret|passwd|password|credent${CI_I}al)`;
const YAML_KEY_CHARS = `A-Za-z0-9_.\\-${CI_I_EXTRA}`;

/**
 * P7: at a line start, a key holding a keyword, `:` plus spaces/tabs, then an unquoted value
 * (quoted values belong to P5). Hermes's possessive quantifiers border disjoint characters
 * here, so greedy ones match the same.
 */
const YAML_ASSIGN = new RegExp(
  `(${PY_LINE_START}[ \\t]*[${YAML_KEY_CHARS}]*${YAML_NAMES}[${YAML_KEY_CHARS}]*)(:[ \\t]*)(?!['"])([^${PY_S_BODY}&]+)`,
  'giu',
);

/** P7: `key: M(value)` with the separator kept verbatim; rule K and env lookups apply. */
export function maskYamlValues(text: string): string {
  return text.replace(YAML_ASSIGN, (match, key: string, sep: string, value: string) =>
    isEnvLookup(value) || !hasSecretKeyword(key) ? match : `${key}${sep}${maskToken(value)}`,
  );
}

// ---------------------------------------------------------------------------------------------
// P6, the Python-repr pass, is NOT applied at the pin: PR #92586 landed in mid-September 2026
// (docs/decisions/0012-secret-redactor.md). It is kept here, unused by redactSensitiveText, so a
// later-build profile can switch it on in one line.

const REPR_SECRET_KEYS = new Set([
  'access_token', 'refresh_token', 'id_token', 'auth_token', 'token', 'api_key', 'apikey',
  'client_secret', 'secret', 'password', 'passwd', 'private_key', 'credential', 'credentials',
  'authorization', 'bearer', 'secret_value', 'raw_secret', 'secret_input', 'key_material',
]);
const REPR_UPPER_SUFFIXES = ['_API_KEY', '_TOKEN', '_SECRET', '_PASSWORD', '_PASSWD', '_CREDENTIAL', '_CREDENTIALS'];
const REPR_FOLDED_SUFFIXES = ['apikey', 'api_key', 'token', 'secret', 'password', 'passwd', 'credential', 'credentials'];

/** The repr key policy: exact names, all-uppercase env-style suffixes, or a credential suffix. */
function isReprSecretKey(key: string): boolean {
  const folded = key.toLowerCase(); // keys are ASCII identifiers, so lower() is casefold()
  if (REPR_SECRET_KEYS.has(folded)) return true;
  const isUpperKey = /[A-Z]/u.test(key) && !/[a-z]/u.test(key);
  if (isUpperKey && REPR_UPPER_SUFFIXES.some((s) => key.endsWith(s))) return true;
  return REPR_FOLDED_SUFFIXES.some((s) => folded.endsWith(s));
}

/** `'key': [b]'value'` or `"value"`, backslash escapes allowed; Python's `.` excludes only LF. */
const REPR_FIELD = new RegExp(
  `'([A-Za-z_][A-Za-z0-9_]*)'(${PY_S}*:${PY_S}*)` +
    `(?:([bB]?)'((?:\\\\[^\\n]|[^'\\\\])+)'|([bB]?)"((?:\\\\[^\\n]|[^"\\\\])+)")`,
  'gu',
);

/** P6 (post-pin): a secret repr field's value becomes a full `***`, quotes and `b` prefix kept. */
export function maskPythonReprFields(text: string): string {
  return text.replace(
    REPR_FIELD,
    (match, key: string, sep: string, sp?: string, sv?: string, dp?: string, dv?: string) => {
      if (!isReprSecretKey(key)) return match;
      const single = sv !== undefined;
      const value = single ? sv : dv!;
      if (isEnvLookup(value) || value.includes('***') || value.startsWith('«redacted:')) return match;
      const quote = single ? "'" : '"';
      return `'${key}'${sep}${single ? sp : dp}${quote}***${quote}`;
    },
  );
}
