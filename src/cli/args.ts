// Command-line flags for every `hermetic` command: one small parser whose refusals are plain sentences with
// HERMETIC_CLI_USAGE (node:util's parseArgs words its errors differently across Node versions and refuses
// "--port -1" as ambiguous instead of letting the range check speak).
import { HermeticError } from '../shared/errors.js';
import { suggest } from '../shared/options.js';

export interface FlagSpec {
  type: 'string' | 'boolean';
  short?: string;
  /** A string flag may be given as "" (default: refused, "--out must not be empty."). */
  empty?: boolean;
  /** A string flag that may be repeated; its value is then the list of every value given. */
  multiple?: boolean;
  /** Whether a stray word was most likely meant as this flag's value: the refusal of that word then names the flag. */
  lone?: (word: string) => boolean;
}

/** A word that names a file or folder (a path with a slash, a store's file name, `.`): what --state-db or --out take. */
export const looksLikePath = (word: string): boolean => word.includes('/') || word.includes('\\') || /\.(db|sqlite3?)$/i.test(word) || word === '.' || word === '..';

/** A word that gives a time the way --since and --until do: a span back from now (`7d`, `12h`) or an ISO date. */
export const looksLikeWhen = (word: string): boolean => /^\d+[a-z]+$/i.test(word) || /^\d{4}-\d\d/.test(word);

/** A word that gives a TCP port (`9000`): what --port takes. */
export const looksLikePort = (word: string): boolean => /^\d{1,5}$/.test(word);

/** A word that names a host to listen on: `localhost`, an IPv4 address (`0.0.0.0`) or an IPv6 one (`::1`). */
export const looksLikeHost = (word: string): boolean =>
  word === 'localhost' || /^\d{1,3}(\.\d{1,3}){3}$/.test(word) || (/^[\da-f:.]+$/i.test(word) && word.split(':').length > 2);

/** Each flag's value: a string, `true` for a boolean flag, undefined when not given. */
export type FlagValues<S extends Record<string, FlagSpec>> = {
  [K in keyof S]?: S[K]['type'] extends 'boolean' ? true : S[K]['multiple'] extends true ? string[] : string;
};

export interface ParsedFlags<S extends Record<string, FlagSpec>> {
  values: FlagValues<S>;
  positionals: string[];
}

export function usageError(message: string): never {
  throw new HermeticError('HERMETIC_CLI_USAGE', message);
}

const quote = (s: string) => JSON.stringify(s);

/**
 * Parses `--name value`, `--name=value`, boolean `--name` and the declared short flags; `--` ends the flags, and a
 * word whose name part holds white space is no flag (`-- a comment` opening SQL). A
 * string flag takes the next word as its value even when it starts with one dash ("--port -1", "--out -"), but not
 * when it is another flag ("--out --force" is a missing value). Each flag may be given once, unless it is declared `multiple`.
 * @example parseFlags(['--port', '-1'], { port: { type: 'string' } }) // { values: { port: '-1' }, positionals: [] }
 */
export function parseFlags<S extends Record<string, FlagSpec>>(argv: readonly string[], spec: S, maxPositionals = 0): ParsedFlags<S> {
  const values: Record<string, string | true | string[]> = {};
  const positionals: string[] = [];
  const names = Object.keys(spec);
  const byShort = new Map(names.filter((n) => spec[n]!.short).map((n) => [`-${spec[n]!.short}`, n]));
  const isFlag = (word: string) => word.startsWith('--') || byShort.has(word);
  const set = (name: string, value: string | true) => {
    const multiple = spec[name]!.multiple === true;
    if (values[name] !== undefined && !multiple) usageError(`--${name} is given more than once.`);
    if (value === '' && !spec[name]!.empty) usageError(`--${name} must not be empty.`);
    values[name] = multiple ? [...((values[name] as string[] | undefined) ?? []), value as string] : value;
  };
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    // No flag's name holds a space or a line break: such a word is an argument (SQL that starts with a `--` comment).
    if (word.startsWith('-') && /\s/.test(word.split('=', 1)[0]!)) {
      positionals.push(word);
    } else if (word.startsWith('--')) {
      const eq = word.indexOf('=');
      const name = word.slice(2, eq < 0 ? undefined : eq);
      const flag = spec[name];
      if (!flag) {
        const hint = suggest(name, names);
        usageError(`Unknown option ${quote(`--${name}`)}${hint ? `; did you mean "--${hint}"?` : '.'}`);
      }
      if (flag.type === 'boolean') {
        if (eq >= 0) usageError(`--${name} takes no value.`);
        set(name, true);
      } else if (eq >= 0) {
        set(name, word.slice(eq + 1));
      } else {
        const next = argv[i + 1];
        if (next === undefined || isFlag(next)) usageError(`--${name} needs a value.`);
        set(name, next);
        i++;
      }
    } else if (word.startsWith('-') && word !== '-') {
      const name = byShort.get(word);
      if (!name) usageError(`Unknown option ${quote(word)}.`);
      set(name, true);
    } else {
      positionals.push(word);
    }
  }
  if (positionals.length > maxPositionals) {
    // `backfill ~/.hermes/state.db`, `report 7d`: the flag the word was likely meant for is named.
    const word = positionals[maxPositionals]!;
    const meant = names.find((n) => spec[n]!.lone?.(word) && (spec[n]!.multiple || values[n] === undefined));
    usageError(`Unexpected argument ${quote(word)}${meant ? `; did you mean ${quote(`--${meant} ${word}`)}?` : '.'}`);
  }
  return { values: values as FlagValues<S>, positionals };
}

/**
 * A whole number in [min, max] from a flag or an environment variable (`source` names it in the message).
 * @example wholeNumber('--port', '8642', 0, 65535) // 8642
 */
export function wholeNumber(source: string, raw: string, min: number, max: number): number {
  if (!/^\s*-?\d+\s*$/.test(raw)) usageError(`${source} must be a whole number; got ${quote(raw)}.`);
  const n = Number(raw);
  if (n < min || n > max) usageError(`${source} must be between ${min} and ${max}; got ${raw.trim()}.`);
  return n;
}
