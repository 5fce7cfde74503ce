// Option validation at the front door: unknown keys are rejected with a suggestion, values are checked once,
// and the result is frozen. The CLI and environment build the same input object and pass through here too.
// The schema is also the source of the public TypeScript type (OptionsInput), so the two cannot drift.
import { HermeticError } from './errors.js';

declare const INPUT: unique symbol;

/**
 * Validates one option value (from JavaScript, so typed unknown) and returns it as stored. `I` is what a TypeScript
 * caller may pass, when that differs from what is stored (a partial nested object, say); it exists only in types.
 */
export type Check<T, I = T> = ((value: unknown, name: string) => T) & { readonly [INPUT]?: I };

/** What a caller may pass for one check: its declared input, else what it returns. */
export type InputOf<C> = C extends { readonly [INPUT]?: infer I } ? (unknown extends I ? ReturnOf<C> : I) : ReturnOf<C>;
type ReturnOf<C> = C extends (...args: never[]) => infer T ? T : never;

/** The public input type of a schema: every key optional, typed as its check accepts (keeps each key's JSDoc). */
export type OptionsInput<S> = { -readonly [K in keyof S]?: InputOf<S[K]> };

/** The stored (validated) form of a schema. */
export type OptionsOutput<S> = { readonly [K in keyof S]: ReturnOf<S[K]> };

/** Declares a check; give `I` when callers pass something other than what is stored. */
export function check<T, I = T>(fn: (value: unknown, name: string) => T): Check<T, I> {
  return fn;
}

function fail(name: string, expected: string, value: unknown): never {
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${name}" must be ${expected}; got ${shown}.`);
}

export const is = {
  string: check((value, name): string => (typeof value === 'string' ? value : fail(name, 'a string', value))),
  boolean: check((value, name): boolean => (typeof value === 'boolean' ? value : fail(name, 'true or false', value))),
  number: check((value, name): number =>
    typeof value === 'number' && Number.isFinite(value) ? value : fail(name, 'a finite number', value)),
  integer: check((value, name): number =>
    typeof value === 'number' && Number.isInteger(value) ? value : fail(name, 'an integer', value)),
  port: check((value, name): number =>
    typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 65535
      ? value
      : fail(name, 'a port number from 0 to 65535', value)),
  nullable<T, I>(inner: Check<T, I>): Check<T | null, I | null> {
    return (value, name) => (value === null ? null : inner(value, name));
  },
  stringArray: check((value, name): string[] =>
    Array.isArray(value) && value.every((v) => typeof v === 'string') ? [...value] : fail(name, 'an array of strings', value)),
  any: check((value): unknown => value),
};

/** Where in the input each option error was thrown: the key path, outermost first (see optionPath). */
const PATHS = new WeakMap<object, readonly string[]>();

/**
 * The key path of an error thrown while validating options (`['agent', 'startDelay']`), for readers that must say where
 * in a file the value was; empty for anything else. parseOptions records it without changing the error's message.
 */
export function optionPath(error: unknown): readonly string[] {
  return (typeof error === 'object' && error !== null && PATHS.get(error)) || [];
}

/**
 * Runs `fn` (a nested check) with `key` prepended to the path of any error it throws.
 * @example within(profileName, () => parseOptions(`profile "${profileName}"`, settings, PROFILE, defaults))
 */
export function within<T>(key: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (typeof e === 'object' && e !== null) PATHS.set(e, [key, ...optionPath(e)]);
    throw e;
  }
}

/**
 * Edit distance, for "did you mean" suggestions; with `swaps`, two neighbouring letters swapped count as one edit
 * (`modle` is one from `model`), as people mistype.
 */
function distance(a: string, b: string, swaps = false): number {
  let before = Array.from({ length: b.length + 1 }, () => 0);
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (swaps && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, before[j - 2]! + 1);
    }
    [before, prev] = [prev, row];
  }
  return prev[b.length]!;
}

/**
 * The name in `known` closest to `name` (case aside), if within `most` edits (default: two, or a third of its letters);
 * `swaps` counts two letters swapped as one edit. Names whose lengths differ by more than `most` are not measured.
 * @example suggest('prot', ['port', 'host']) // 'port'
 */
export function suggest(name: string, known: readonly string[], how: { most?: number; swaps?: boolean } = {}): string | undefined {
  const most = how.most ?? Math.max(2, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of known) {
    if (Math.abs(k.length - name.length) > most) continue;
    const d = distance(name.toLowerCase(), k.toLowerCase(), how.swaps);
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return bestDistance <= most ? best : undefined;
}

/**
 * Validates `input` against `schema` (one check per key; absent keys take `defaults`), rejecting unknown keys.
 * @example parseOptions('emulator', { port: 1 }, { port: is.port }, { port: 8642 })
 */
export function parseOptions<S extends Record<string, Check<unknown, any>>>(
  what: string,
  input: unknown,
  schema: S,
  defaults: { [K in keyof S]: ReturnOf<S[K]> },
): OptionsOutput<S> {
  if (input !== undefined && (typeof input !== 'object' || input === null || Array.isArray(input))) {
    throw new HermeticError('HERMETIC_OPTIONS_INVALID', `${what} options must be an object.`);
  }
  const source = (input ?? {}) as Record<string, unknown>;
  const known = Object.keys(schema);
  for (const key of Object.keys(source)) {
    if (!Object.hasOwn(schema, key)) {
      const hint = suggest(key, known);
      const error = new HermeticError(
        'HERMETIC_OPTIONS_UNKNOWN',
        `Unknown ${what} option "${key}".${hint ? ` Did you mean "${hint}"?` : ` Known options: ${known.join(', ')}.`}`,
      );
      PATHS.set(error, [key]);
      throw error;
    }
  }
  const out: Record<string, unknown> = {};
  for (const key of known) {
    const value = source[key];
    out[key] = value === undefined ? defaults[key as keyof S] : within(key, () => schema[key]!(value, key));
  }
  return Object.freeze(out) as OptionsOutput<S>;
}
