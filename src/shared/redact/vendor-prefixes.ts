// P1 and P1a: vendor-prefixed tokens (sk-, ghp_, AKIA, …), including ones split by control characters.

import { maskToken } from './mask.js';
import { PY_D, escapeRegExp } from './python-re.js';

const ALNUM = 'A-Za-z0-9';
const ALNUM_US = 'A-Za-z0-9_';
const ALNUM_US_DASH = 'A-Za-z0-9_-';
const ALNUM_DASH = 'A-Za-z0-9-';

/**
 * The families in the exact order of Hermes's alternation (spec redaction §1.3 P1): a literal,
 * case-sensitive prefix, then a body class with a minimum length (`exact` = that length only).
 * `pattern` overrides the prefix when it is not a plain literal.
 */
interface Family {
  prefix: string;
  body: string;
  min: number;
  exact?: boolean;
  pattern?: string;
}

const FAMILIES: readonly Family[] = [
  { prefix: 'sk-', body: ALNUM_US_DASH, min: 10 }, // no dotted bodies at the pin
  { prefix: 'ghp_', body: ALNUM, min: 10 },
  { prefix: 'github_pat_', body: ALNUM_US, min: 10 },
  { prefix: 'gho_', body: ALNUM, min: 10 },
  { prefix: 'ghu_', body: ALNUM, min: 10 },
  { prefix: 'ghs_', body: ALNUM, min: 10 },
  { prefix: 'ghr_', body: ALNUM, min: 10 },
  { prefix: 'xapp-', pattern: `xapp-${PY_D}+-`, body: ALNUM_DASH, min: 10 },
  { prefix: 'xox', pattern: 'xox[baprs]-', body: ALNUM_DASH, min: 10 },
  { prefix: 'AIza', body: ALNUM_US_DASH, min: 30 },
  { prefix: 'pplx-', body: ALNUM, min: 10 },
  { prefix: 'fal_', body: ALNUM_US_DASH, min: 10 },
  { prefix: 'fc-', body: ALNUM, min: 10 },
  { prefix: 'bb_live_', body: ALNUM_US_DASH, min: 10 },
  { prefix: 'gAAAA', body: 'A-Za-z0-9_=-', min: 20 },
  { prefix: 'AKIA', body: 'A-Z0-9', min: 16, exact: true },
  { prefix: 'sk_live_', body: ALNUM, min: 10 },
  { prefix: 'sk_test_', body: ALNUM, min: 10 },
  { prefix: 'rk_live_', body: ALNUM, min: 10 },
  // Hermes derives its gate from the literal part before the escaped dot, i.e. `SG`.
  { prefix: 'SG', pattern: 'SG\\.', body: ALNUM_US_DASH, min: 10 },
  { prefix: 'hf_', body: ALNUM, min: 10 },
  { prefix: 'r8_', body: ALNUM, min: 10 },
  { prefix: 'npm_', body: ALNUM, min: 10 },
  { prefix: 'pypi-', body: ALNUM_US_DASH, min: 10 },
  { prefix: 'dop_v1_', body: ALNUM, min: 10 },
  { prefix: 'doo_v1_', body: ALNUM, min: 10 },
  { prefix: 'am_', body: ALNUM_US_DASH, min: 10 }, // the old broad AgentMail rule
  { prefix: 'sk_', body: ALNUM_US, min: 10 },
  { prefix: 'tvly-', body: ALNUM, min: 10 },
  { prefix: 'exa_', body: ALNUM, min: 10 },
  { prefix: 'gsk_', body: ALNUM, min: 10 },
  { prefix: 'syt_', body: ALNUM, min: 10 },
  { prefix: 'retaindb_', body: ALNUM, min: 10 },
  { prefix: 'hsk-', body: ALNUM, min: 10 },
  { prefix: 'mem0_', body: ALNUM, min: 10 },
  { prefix: 'brv_', body: ALNUM, min: 10 },
  { prefix: 'xai-', body: ALNUM, min: 30 },
  { prefix: 'ntn_', body: ALNUM, min: 10 },
  { prefix: 'fw-', body: ALNUM, min: 30 },
  { prefix: 'fw_', body: ALNUM, min: 30 },
  { prefix: 'fpk_', body: ALNUM, min: 30 },
  { prefix: 'glpat-', body: ALNUM_US_DASH, min: 10 },
  { prefix: 'gloas-', body: ALNUM_US_DASH, min: 10 },
  { prefix: 'gldt-', body: ALNUM_US_DASH, min: 10 },
  { prefix: 'glrt-', body: 'A-Za-z0-9_.-', min: 10 },
  { prefix: 'glrtr-', body: 'A-Za-z0-9_.-', min: 10 },
  { prefix: 'glcbt-', body: ALNUM_US_DASH, min: 10 },
  { prefix: 'glptt-', body: ALNUM_US_DASH, min: 10 },
  { prefix: 'glft-', body: ALNUM_US_DASH, min: 10 },
  { prefix: 'glimt-', body: ALNUM_US_DASH, min: 10 },
  { prefix: 'glagent-', body: ALNUM_US_DASH, min: 10 },
  { prefix: 'glsoat-', body: ALNUM_US_DASH, min: 10 },
  { prefix: 'glffct-', body: ALNUM_US_DASH, min: 10 },
  { prefix: 'glwt-', body: ALNUM_US_DASH, min: 10 },
  { prefix: 'GR1348941', body: ALNUM_US_DASH, min: 10 },
  { prefix: 'pk-lf-', body: ALNUM_DASH, min: 8 },
];

function familySource(f: Family): string {
  const head = f.pattern ?? escapeRegExp(f.prefix);
  return `${head}[${f.body}]{${f.min}${f.exact ? '' : ','}}`;
}

/** One ordered alternation; a token may neither follow nor precede `[A-Za-z0-9_-]`. */
const PREFIX_SOURCE = `(?<![A-Za-z0-9_-])(?:${FAMILIES.map(familySource).join('|')})(?![A-Za-z0-9_-])`;
const PREFIX_ALL = new RegExp(PREFIX_SOURCE, 'gu');
const PREFIX_ANY = new RegExp(PREFIX_SOURCE, 'u');

/** Gate: some family's literal prefix occurs (duplicates that contain a shorter literal dropped). */
const GATE_LITERALS = FAMILIES.map((f) => f.prefix).filter(
  (p, _, all) => !all.some((q) => q !== p && p.includes(q)),
);
const PREFIX_GATE = new RegExp(GATE_LITERALS.map(escapeRegExp).join('|'), 'u');

/** True when P1/P1a may run on this text (spec redaction §1.3 P1 gate). */
export function hasVendorPrefix(text: string): boolean {
  return PREFIX_GATE.test(text);
}

/** P1: every vendor token becomes M(token). */
export function maskVendorTokens(text: string): string {
  return text.replace(PREFIX_ALL, (token) => maskToken(token));
}

/** C: controls and zero-width characters that can split a token body (spec redaction §1.3 P1a). */
const SPLITTERS = /[\u0000-\u001f\u007f\u200b-\u200f\u2028-\u202f\u2060\ufeff]/u;
const SPLITTERS_ALL = /[\u0000-\u001f\u007f\u200b-\u200f\u2028-\u202f\u2060\ufeff]/gu;
/** Characters a joined span may hold besides C; `=` is left out so `KEY=` never joins a value. */
const SPAN_CHARS = /^[A-Za-z0-9_.\-\u0000-\u001f\u007f\u200b-\u200f\u2028-\u202f\u2060\ufeff]*$/u;
const LINE_BREAK = /[\r\n]/u;

/**
 * P1a: find P1 tokens in a copy with every C character removed and mask the matching span of
 * the original. A span that crosses CR/LF and already holds a token on its own is skipped (the
 * plain P1 pass handles it); a span holding any other character, or followed by `=`, is kept.
 */
export function maskControlSplitTokens(text: string): string {
  if (!SPLITTERS.test(text)) return text;
  // UTF-16 offsets are safe here: C is all BMP and P1 matches are ASCII.
  const keptAt: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (!SPLITTERS.test(text[i]!)) keptAt.push(i);
  }
  const joined = text.replace(SPLITTERS_ALL, '');
  const edits: Array<[start: number, end: number, replacement: string]> = [];
  for (const m of joined.matchAll(PREFIX_ALL)) {
    const start = keptAt[m.index]!;
    const end = keptAt[m.index + m[0].length - 1]! + 1;
    const span = text.slice(start, end);
    if (LINE_BREAK.test(span) && PREFIX_ANY.test(span)) continue;
    if (SPAN_CHARS.test(span) && text[end] !== '=') edits.push([start, end, maskToken(m[0])]);
  }
  // One pass over the edits (in order, never overlapping): rebuilding the string per edit would be quadratic.
  const pieces: string[] = [];
  let at = 0;
  for (const [start, end, replacement] of edits) {
    pieces.push(text.slice(at, start), replacement);
    at = end;
  }
  pieces.push(text.slice(at));
  return pieces.join('');
}
