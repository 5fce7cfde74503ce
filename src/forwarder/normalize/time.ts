// Hermes times are epoch seconds (REAL). A damaged page can hold garbage such as 5e+246 (spec state-db §3); such a
// value is replaced by its nearest earlier good neighbour, or the session start, and reported.

/** 2000-01-01 … 2100-01-01: anything outside is not a time Hermes wrote. */
export const EPOCH_MIN = 946684800;
export const EPOCH_MAX = 4102444800;

export function validEpoch(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= EPOCH_MIN && value < EPOCH_MAX;
}

/** A calendar day as `session_daily_usage.day` holds it (`YYYY-MM-DD`, a real date inside the epoch range). */
export function validDay(value: unknown): value is string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const [y, m, d] = value.split('-').map(Number) as [number, number, number];
  const t = Date.UTC(y, m - 1, d);
  const back = new Date(t);
  return back.getUTCFullYear() === y && back.getUTCMonth() === m - 1 && back.getUTCDate() === d && validEpoch(t / 1000 + 43200);
}
