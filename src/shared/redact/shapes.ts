// P10, P11, P13, P15: secrets recognisable by their own shape (bot tokens, key blocks, JWTs, phones).

import { maskToken } from './mask.js';
import { PY_D } from './python-re.js';

/** P10 (spec redaction §1.3): optional `bot`, 8+ digits, `:`, 30+ token chars, no boundaries. */
const TELEGRAM = new RegExp(`(bot)?(${PY_D}{8,}):[-A-Za-z0-9_]{30,}`, 'gu');

/** P10: `[bot]digits:***` (gate `:` checked by the caller). */
export function maskTelegramTokens(text: string): string {
  return text.replace(TELEGRAM, (_m, bot: string | undefined, digits: string) => `${bot ?? ''}${digits}:***`);
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
