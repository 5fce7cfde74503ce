// SQLite values as the stages read them: a column may be missing (NULL), a number may come back as a bigint.

/** Text, or null for NULL (other values as their string). */
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : v === null || v === undefined ? null : String(v));

/** A finite number, or null. */
export const numOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'bigint' ? Number(v) : null);

/** A finite number, 0 for NULL or anything else (counters). */
export const num = (v: unknown): number => numOrNull(v) ?? 0;

/**
 * A counter as the dataset's INTEGER columns hold it: a whole number within ±(2^53 − 1), which the usage ledger counts
 * exactly and Parquet's INT64 and PostgreSQL's bigint take (a value Hermes stored otherwise is said in row_issues).
 */
export const count = (v: unknown): number => Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, Math.round(num(v))));

/** JSON text parsed, or the text itself when it is not JSON. */
export function parsed(v: string): unknown {
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}
