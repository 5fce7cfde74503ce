// P2–P4: `NAME=value` assignments (env-style, lowercase env-style, config-file keys).

import { maskToken } from './mask.js';
import { CI_I, CI_I_EXTRA, PY_LINE_START, PY_NOT_S, PY_S, PY_S_BODY } from './python-re.js';
import { hasSecretKeyword, isEnvLookup } from './secret-keyword.js';

/** `ws = ws`, optional quote, a non-ws value, the same quote (P2/P3 tail; backtracking included). */
const ENV_TAIL = `${PY_S}*=${PY_S}*(['"]?)(${PY_NOT_S}+)\\2`;

/** P2 (spec redaction §1.3): uppercase names, case-sensitive, keyword anywhere in up to 50+50 chars. */
const UPPER_ENV = new RegExp(
  '([A-Z0-9_]{0,50}(?:API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PW|CREDENTIAL|AUTH)[A-Z0-9_]{0,50})' +
    ENV_TAIL,
  'gu',
);

/** Identifier characters of P3 under IGNORECASE (Python also folds İ/ı onto i). */
const LOWER_ID = `a-z0-9_${CI_I_EXTRA}`;

/**
 * P3: case-insensitive; the name starts an identifier run and ends in `_` + keyword. Hermes writes
 * `(?:_|^)` before the keyword, but `^` can never follow the mandatory run, so it is just `_`.
 */
const LOWER_ENV = new RegExp(
  `(?<![${LOWER_ID}])([${LOWER_ID}]+_(?:key|pass|pw|token|secret|password|passwd|credent${CI_I}al|auth)` +
    `(?=[^${LOWER_ID}]|$))${ENV_TAIL}`,
  'giu',
);

/** Keywords a config-file key must contain (P4), also the P4 gate. */
const CFG_NAMES = `(?:ap${CI_I}[ _.\\-]?key|token|secret|passwd|password|credent${CI_I}al|auth)`;
const CFG_GATE = new RegExp(CFG_NAMES, 'iu');
/** P4 value after the key (group 1): optional quote, shortest non-ws non-`&` run, same quote, then ws, `&` or end. */
const CFG_VALUE = `=(['"]?)([^${PY_S_BODY}&]+?)\\2(?=[${PY_S_BODY}&]|$)`;
const KEY_CHARS = `A-Za-z0-9_.\\-${CI_I_EXTRA}`;
const KEY_CHARS_NO_DOT = `A-Za-z0-9_\\-${CI_I_EXTRA}`;

/**
 * P4a: a dotted key (`spring.datasource.password`) not preceded by a key character. Hermes's
 * possessive quantifiers border characters outside their class, so plain greedy ones match alike.
 */
const CFG_DOTTED = new RegExp(
  `(?<![${KEY_CHARS}])(` +
    `[${KEY_CHARS_NO_DOT}]+\\.[${KEY_CHARS}]*${CFG_NAMES}[${KEY_CHARS}]*` +
    `|[${KEY_CHARS}]*${CFG_NAMES}[${KEY_CHARS}]*\\.[${KEY_CHARS}]+` +
    `)${CFG_VALUE}`,
  'giu',
);

/** P4b: at a line start, optional indent and `export `, then a key holding a keyword. */
const CFG_ANCHORED = new RegExp(
  `(${PY_LINE_START}[ \\t]*(?:export[ \\t]+)?[${KEY_CHARS_NO_DOT}]*${CFG_NAMES}[${KEY_CHARS_NO_DOT}]*)` +
    CFG_VALUE,
  'giu',
);

/** Keep the match if the value is an env lookup or the name fails rule K; else `name=q M(v) q`. */
function maskAssignment(match: string, name: string, quote: string, value: string): string {
  if (isEnvLookup(value) || !hasSecretKeyword(name)) return match;
  return `${name}=${quote}${maskToken(value)}${quote}`;
}

/** P2: uppercase env assignments (gate `=` checked by the caller). */
export function maskUpperEnvAssignments(text: string): string {
  return text.replace(UPPER_ENV, maskAssignment);
}

/** P3: lowercase env assignments; the caller checks `=` and the absence of `://`. */
export function maskLowerEnvAssignments(text: string): string {
  return text.replace(LOWER_ENV, maskAssignment);
}

/** P4 gate beyond `=`/`://`: some config keyword occurs anywhere (case-insensitive). */
export function hasConfigKeyword(text: string): boolean {
  return CFG_GATE.test(text);
}

/** P4a then P4b: config-file keys (`spring.datasource.password=x`, line-start `password=x`). */
export function maskConfigAssignments(text: string): string {
  return text.replace(CFG_DOTTED, maskAssignment).replace(CFG_ANCHORED, maskAssignment);
}
