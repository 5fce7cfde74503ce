// Rule K and the env-lookup exemption: when an assignment's name and value count as a secret.

import { CI_I, isAlpha, isLower, isUpper } from './python-re.js';

/**
 * Keywords in the order Hermes tries them (case-insensitive, non-overlapping, left to right).
 * The compound form comes first so `api_key` is one hit rather than `api` + `key`.
 */
const KEYWORDS = new RegExp(
  `(?:ap${CI_I}|auth|access|refresh|sess${CI_I}on|secret)[ _.\\\\-]?(?:key|token)` +
    `|token|secret|passwd|password|pass|pw|credent${CI_I}al|auth|key`,
  'giu',
);

/** Code points, so the neighbour checks below see astral characters whole. */
function startsWord(s: readonly string[], i: number): boolean {
  if (i === 0) return true;
  const prev = s[i - 1]!;
  const cur = s[i]!;
  if (!isAlpha(prev)) return true;
  if (isUpper(cur) && isLower(prev)) return true; // clientSecret
  // APIToken: an uppercase run ends where an uppercase letter is followed by lowercase.
  return isUpper(cur) && isUpper(prev) && i + 1 < s.length && isLower(s[i + 1]!);
}

function endsWord(s: readonly string[], j: number, allowPlural = true): boolean {
  if (j >= s.length) return true;
  const cur = s[j]!;
  if (!isAlpha(cur)) return true;
  if (isUpper(cur) && isLower(s[j - 1]!)) return true; // secretKey
  // One trailing plain `s`/`S` (not ſ) still ends the word: `secrets`, `MAX_TOKENS`.
  return allowPlural && (cur === 's' || cur === 'S') && endsWord(s, j + 1, false);
}

/**
 * Rule K (spec redaction §1.3 P2): some keyword hit both starts and ends a word in `name`.
 * So `MAX_TOKENS`, `DB_PW`, `clientSecret` pass; `KEYBOARD`, `PWD`, `secretary` fail.
 */
export function hasSecretKeyword(name: string): boolean {
  const points = Array.from(name);
  // Map UTF-16 match offsets to code point offsets (names can hold K/ſ/İ under IGNORECASE).
  const pointAt = new Map<number, number>();
  let unit = 0;
  points.forEach((p, k) => {
    pointAt.set(unit, k);
    unit += p.length;
  });
  pointAt.set(unit, points.length);
  for (const m of name.matchAll(KEYWORDS)) {
    const start = pointAt.get(m.index)!;
    const end = pointAt.get(m.index + m[0].length)!;
    if (startsWord(points, start) && endsWord(points, end)) return true;
  }
  return false;
}

/** Values naming an environment variable rather than holding one are never masked. */
const ENV_LOOKUP = /^(?:os\.(?:getenv|environ)|process\.env|\$ENV\{)/u;

/** True when an assignment value is a programmatic env lookup (`os.getenv('X')`, `process.env.X`). */
export function isEnvLookup(value: string): boolean {
  return ENV_LOOKUP.test(value);
}
