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

/**
 * The `session_model_usage.task` values whose usage Hermes also counts in the session's own counters: `''` (the main
 * loop) and the per-turn routes `update_token_counts` takes a task for (`voice_chat`: a voice turn answered on another
 * model, hermes_state_usage.py). Every other task (title generation, compression, vision, background review, …) comes
 * from `record_auxiliary_usage`, which never touches the session row, so its usage is on top of the counters.
 */
export const SESSION_TOTAL_TASKS: ReadonlySet<string> = new Set(['', 'voice_chat']);

/** True when a `session_model_usage` row of this task is already inside the session's counters. */
export const inSessionTotals = (task: string): boolean => SESSION_TOTAL_TASKS.has(task);
