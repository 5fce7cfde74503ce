// Durations as people type them in a flag or a control body: `10s`, `5m`, `2h`, `7d`, `1w`, `500ms`, and sums of them
// (`1h30m`). One reader for every command and the control plane.

/** Seconds in each unit a duration may use. */
export const UNIT_SECONDS: Readonly<Record<string, number>> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

const PART = /(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)/g;

/**
 * Seconds in `10s`, `5m`, `2h`, `7d`, `500ms`, `1w`, or a sum such as `1h30m`; null when the text is not a duration.
 * @example durationSeconds('1h30m') // 5400
 */
export function durationSeconds(text: string): number | null {
  if (!/^\s*(?:\d+(?:\.\d+)?\s*(?:ms|s|m|h|d|w)\s*)+$/.test(text)) return null;
  let total = 0;
  for (const [, n, unit] of text.matchAll(PART)) total += Number(n) * UNIT_SECONDS[unit!]!;
  return total;
}
