// Readers for control bodies (decoded JSON objects, Python-typed values): unknown keys refused with a suggestion,
// fields read with their type checked. Shared by the control routes (admin/) and scenario steps (scenarios/), so a
// step says exactly what its route says; no HTTP here.
import { HermeticError } from '../../shared/errors.js';
import { suggest } from '../../shared/options.js';
import { PyFloat, type PyDict } from '../../shared/python/index.js';

/** Rejects keys outside `known`, naming the closest known one. */
export function onlyKeys(body: PyDict, known: readonly string[], what: string): void {
  for (const key of body.keys()) {
    if (known.includes(key)) continue;
    const hint = suggest(key, known);
    throw new HermeticError(
      'HERMETIC_ADMIN_BAD_FIELD',
      `Unknown field "${key}" for ${what}.${hint ? ` Did you mean "${hint}"?` : ` Known fields: ${known.join(', ') || 'none'}.`}`,
    );
  }
}

function wrongType(name: string, expected: string): never {
  throw new HermeticError('HERMETIC_ADMIN_BAD_FIELD', `Field "${name}" must be ${expected}.`);
}

export const field = {
  string(body: PyDict, name: string, fallback?: string): string {
    const v = body.get(name);
    if (v === undefined) return fallback ?? wrongType(name, 'a string (it is required)');
    return typeof v === 'string' ? v : wrongType(name, 'a string');
  },
  nullableString(body: PyDict, name: string, fallback: string | null): string | null {
    const v = body.get(name);
    if (v === undefined) return fallback;
    return v === null || typeof v === 'string' ? v : wrongType(name, 'a string or null');
  },
  boolean(body: PyDict, name: string, fallback?: boolean): boolean {
    const v = body.get(name);
    if (v === undefined) return fallback ?? wrongType(name, 'true or false (it is required)');
    return typeof v === 'boolean' ? v : wrongType(name, 'true or false');
  },
  number(body: PyDict, name: string): number | undefined {
    const v = body.get(name);
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'number') return v;
    if (v instanceof PyFloat && Number.isFinite(v.value)) return v.value;
    return wrongType(name, 'a finite number');
  },
  integer(body: PyDict, name: string, fallback?: number): number {
    const v = body.get(name);
    if (v === undefined) return fallback ?? wrongType(name, 'an integer (it is required)');
    return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : wrongType(name, 'a non-negative integer');
  },
};
