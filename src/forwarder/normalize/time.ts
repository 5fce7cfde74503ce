// Hermes times are epoch seconds (REAL). A damaged page can hold garbage such as 5e+246 (spec state-db §3); such a
// value is replaced by its nearest earlier good neighbour, or the session start, and reported.

/** 2000-01-01 … 2100-01-01: anything outside is not a time Hermes wrote. */
export const EPOCH_MIN = 946684800;
export const EPOCH_MAX = 4102444800;

export function validEpoch(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= EPOCH_MIN && value < EPOCH_MAX;
}
