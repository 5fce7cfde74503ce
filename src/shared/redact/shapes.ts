// P10, P11, P13, P15: secrets recognisable by their own shape (bot tokens, key blocks, JWTs, phones).

import { maskToken } from './mask.js';
import { PY_D } from './python-re.js';

/**
 * P10 (spec redaction §1.3): optional `bot`, 8+ digits, `:`, 30+ token chars, no boundaries. Hermes's pattern, kept as
 * the reference maskTelegramTokens is tested against: scanned by a backtracking engine it is quadratic in a run of
 * digits (100 KB of them took 8.9 s).
 */
export const TELEGRAM = new RegExp(`(bot)?(${PY_D}{8,}):[-A-Za-z0-9_]{30,}`, 'gu');

/** A run of Python digits, whole (each run is looked at once). */
const DIGIT_RUN = new RegExp(`${PY_D}+`, 'gu');
/** The token after the `:`, greedy as the pattern's. */
const TOKEN_TAIL = /[-A-Za-z0-9_]{30,}/y;

/**
 * P10: `[bot]digits:***` (gate `:` checked by the caller), in one pass. Where the pattern matches, it starts at the
 * start of a run of digits (or at a `bot` right before it): a later start in the run has fewer digits and the same
 * `:` and token after them. So each run is tried once, from where the scan stands: 8+ digits, then `:` and 30+ token
 * characters. Found exactly where TELEGRAM is (shapes.test.ts).
 */
export function maskTelegramTokens(text: string): string {
  let out = '';
  let cursor = 0;
  DIGIT_RUN.lastIndex = 0;
  for (let run = DIGIT_RUN.exec(text); run !== null; run = DIGIT_RUN.exec(text)) {
    const digits = run[0];
    const end = run.index + digits.length;
    if (text.charCodeAt(end) !== 58 /* : */ || codePoints(digits) < 8) continue;
    TOKEN_TAIL.lastIndex = end + 1;
    const tail = TOKEN_TAIL.exec(text);
    if (tail === null) continue;
    const bot = run.index - 3 >= cursor && text.startsWith('bot', run.index - 3);
    out += `${text.slice(cursor, bot ? run.index - 3 : run.index)}${bot ? 'bot' : ''}${digits}:***`;
    cursor = TOKEN_TAIL.lastIndex;
    DIGIT_RUN.lastIndex = cursor;
  }
  return cursor === 0 ? text : out + text.slice(cursor);
}

/** How many code points `s` holds (Python counts the digits of a run so; astral digits are two UTF-16 units). */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) if ((s.charCodeAt(i) & 0xfc00) === 0xdc00) n--;
  return n;
}

/** P11: BEGIN … PRIVATE KEY through the nearest END … PRIVATE KEY; unterminated blocks stay. */
const PRIVATE_KEY_BLOCK = /-----BEGIN[A-Z ]*PRIVATE KEY-----[\s\S]*?-----END[A-Z ]*PRIVATE KEY-----/gu;

/** P11 gate: `BEGIN` and `-----`. */
export function mayHavePrivateKey(text: string): boolean {
  return text.includes('BEGIN') && text.includes('-----');
}

/** P11: the whole block becomes `[REDACTED PRIVATE KEY]`. */
export function maskPrivateKeyBlocks(text: string): string {
  return text.replace(PRIVATE_KEY_BLOCK, '[REDACTED PRIVATE KEY]');
}

/** P13: `eyJ` + 10+ base64url chars + up to two `.segment`s of 4+; no boundaries. */
const JWT = /eyJ[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_=-]{4,}){0,2}/gu;

/** P13: M(whole JWT) (gate `eyJ` checked by the caller). */
export function maskJwts(text: string): string {
  return text.replace(JWT, (token) => maskToken(token));
}

/** P15: `+`, a digit 1–9, 6–14 more (Unicode) digits, not followed by an ASCII letter or digit. */
const PHONE = new RegExp(`\\+[1-9]${PY_D}{6,14}(?![A-Za-z0-9])`, 'gu');

/** P15: 8 code points → first 2 + `****` + last 2; longer → first 4 + `****` + last 4. */
export function maskPhoneNumbers(text: string): string {
  return text.replace(PHONE, (phone) => {
    const points = Array.from(phone);
    const keep = points.length <= 8 ? 2 : 4;
    return `${points.slice(0, keep).join('')}****${points.slice(-keep).join('')}`;
  });
}
