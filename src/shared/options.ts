// Option validation at the front door: unknown keys are rejected with a suggestion, values are checked once,
// and the result is frozen. The CLI and environment build the same input object and pass through here too.
import { HermeticError } from './errors.js';

export type Check<T> = (value: unknown, name: string) => T;

function fail(name: string, expected: string, value: unknown): never {
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${name}" must be ${expected}; got ${shown}.`);
}

export const is = {
  string: (value: unknown, name: string): string => (typeof value === 'string' ? value : fail(name, 'a string', value)),
  boolean: (value: unknown, name: string): boolean => (typeof value === 'boolean' ? value : fail(name, 'true or false', value)),
  number: (value: unknown, name: string): number =>
    typeof value === 'number' && Number.isFinite(value) ? value : fail(name, 'a finite number', value),
  integer: (value: unknown, name: string): number =>
    typeof value === 'number' && Number.isInteger(value) ? value : fail(name, 'an integer', value),
  port: (value: unknown, name: string): number =>
    typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 65535
      ? value
      : fail(name, 'a port number from 0 to 65535', value),
  nullable<T>(check: Check<T>): Check<T | null> {
    return (value, name) => (value === null ? null : check(value, name));
  },
  stringArray: (value: unknown, name: string): string[] =>
    Array.isArray(value) && value.every((v) => typeof v === 'string') ? [...value] : fail(name, 'an array of strings', value),
  any: (value: unknown): unknown => value,
};

/** Edit distance, for "did you mean" suggestions. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

export function suggest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const k of known) {
    const d = distance(name.toLowerCase(), k.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/**
 * Validates `input` against `schema` (one check per key; absent keys take `defaults`), rejecting unknown keys.
 * @example parseOptions('emulator', { port: 1 }, { port: is.port }, { port: 8642 })
 */
export function parseOptions<S extends Record<string, Check<unknown>>>(
  what: string,
  input: unknown,
  schema: S,
  defaults: { [K in keyof S]: ReturnType<S[K]> },
): Readonly<{ [K in keyof S]: ReturnType<S[K]> }> {
  if (input !== undefined && (typeof input !== 'object' || input === null || Array.isArray(input))) {
    throw new HermeticError('HERMETIC_OPTIONS_INVALID', `${what} options must be an object.`);
  }
  const source = (input ?? {}) as Record<string, unknown>;
  const known = Object.keys(schema);
  for (const key of Object.keys(source)) {
    if (!(key in schema)) {
      const hint = suggest(key, known);
      throw new HermeticError(
        'HERMETIC_OPTIONS_UNKNOWN',
        `Unknown ${what} option "${key}".${hint ? ` Did you mean "${hint}"?` : ` Known options: ${known.join(', ')}.`}`,
      );
    }
  }
  const out: Record<string, unknown> = {};
  for (const key of known) {
    const value = source[key];
    out[key] = value === undefined ? defaults[key as keyof S] : schema[key]!(value, key);
  }
  return Object.freeze(out) as { [K in keyof S]: ReturnType<S[K]> };
}
