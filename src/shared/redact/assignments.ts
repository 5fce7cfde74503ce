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
/**
 * P4 value after the key: optional quote, shortest non-ws non-`&` run, the same quote (the group numbered `quote`), then
 * ws, `&` or end.
 */
const cfgValue = (quote: number) => `=(['"]?)([^${PY_S_BODY}&]+?)\\${quote}(?=[${PY_S_BODY}&]|$)`;
const CFG_VALUE = cfgValue(2);
const KEY_CHARS = `A-Za-z0-9_.\\-${CI_I_EXTRA}`;
const KEY_CHARS_NO_DOT = `A-Za-z0-9_\\-${CI_I_EXTRA}`;

/**
 * P4a: a dotted key (`spring.datasource.password`) not preceded by a key character. Hermes's
 * possessive quantifiers border characters outside their class, so plain greedy ones match alike.
 * The pattern as Hermes writes it; `maskDottedAssignments` finds what it finds without its backtracking.
 */
export const CFG_DOTTED = new RegExp(
  `(?<![${KEY_CHARS}])(` +
    `[${KEY_CHARS_NO_DOT}]+\\.[${KEY_CHARS}]*${CFG_NAMES}[${KEY_CHARS}]*` +
    `|[${KEY_CHARS}]*${CFG_NAMES}[${KEY_CHARS}]*\\.[${KEY_CHARS}]+` +
    `)${CFG_VALUE}`,
  'giu',
);

/**
 * Maximal runs of key characters, under CFG_DOTTED's flags (so the same characters fold into the class), with the one
 * white space a key may hold: the one inside a keyword written `api key`.
 */
const KEY_RUN = new RegExp(`(?:[${KEY_CHARS}]|(?<=ap${CI_I}) (?=key))+`, 'giu');
/** The keyword `api key` with its space at a given place (sticky). */
const API_SPACE = new RegExp(`ap${CI_I} key`, 'iuy');
/** CFG_VALUE on its own, at a key's end (sticky). */
const VALUE_AT = new RegExp(cfgValue(1), 'iuy');

/** Whether `key` has `api key` with its space at `at` starting at or after `from` and ending at or before `to`. */
function apiSpaceWithin(key: string, at: number, from: number, to: number): boolean {
  API_SPACE.lastIndex = at - 3;
  return at - 3 >= from && at + 4 <= to && API_SPACE.test(key);
}

/**
 * Whether `key` (key characters up to an `=`) is a P4a key. Its one keyword may hold its one space (`api key`): then
 * that is the keyword. The first alternative: the part before the first dot is not empty and has no space, and a
 * keyword follows that dot. The second: a keyword lies wholly before a dot that is not the key's last character.
 */
function isDottedKey(key: string): boolean {
  const space = key.indexOf(' ');
  if (space >= 0 && key.indexOf(' ', space + 1) >= 0) return false;
  const first = key.indexOf('.');
  if (first > 0 && (space < 0 || space > first)) {
    if (space < 0 ? CFG_GATE.test(key.slice(first + 1)) : apiSpaceWithin(key, space, first + 1, key.length)) return true;
  }
  const last = key.lastIndexOf('.', key.length - 2);
  if (last <= 0) return false;
  return space < 0 ? CFG_GATE.test(key.slice(0, last)) : apiSpaceWithin(key, space, 0, last);
}

/**
 * P4a, matching exactly what `text.replace(CFG_DOTTED, maskAssignment)` matches, in linear time. The key cannot start
 * after a key character and is followed by `=`, which is not one: so it ends a run of key characters (with the spaces
 * of `api key`), and only runs followed by `=` are tried, from their start or after one of their spaces. The pattern
 * itself backtracks over every split of a long run with a keyword and no `=` after it: cubic in the run's length (2 s
 * for 10 KB of `password.`; Hermes's Python is slower still), where a forwarder redacts whole tool outputs. `assignments.test.ts` holds the two equal (`replace`: what a
 * match becomes, the mask by default).
 */
export function maskDottedAssignments(text: string, replace: (match: string, name: string, quote: string, value: string) => string = maskAssignment): string {
  let out = '';
  let copied = 0;
  KEY_RUN.lastIndex = 0;
  for (let run = KEY_RUN.exec(text); run !== null; run = KEY_RUN.exec(text)) {
    const end = run.index + run[0].length;
    if (text.charCodeAt(end) !== 61 /* = */) continue;
    VALUE_AT.lastIndex = end;
    const value = VALUE_AT.exec(text);
    if (value === null) continue;
    // A key starts the run, or follows one of its spaces (the pattern's look-behind passes there too); the leftmost wins.
    let at = 0;
    while (at >= 0 && !isDottedKey(run[0].slice(at))) at = run[0].indexOf(' ', at) + 1 || -1;
    if (at < 0) continue;
    const start = run.index + at;
    out += text.slice(copied, start) + replace(text.slice(start, VALUE_AT.lastIndex), text.slice(start, end), value[1]!, value[2]!);
    // The search goes on after the match, as a global replace does (a value is followed by white space, `&` or the end).
    copied = KEY_RUN.lastIndex = VALUE_AT.lastIndex;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

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
  return maskDottedAssignments(text).replace(CFG_ANCHORED, maskAssignment);
}
