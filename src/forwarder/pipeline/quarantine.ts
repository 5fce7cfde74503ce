// A session that keeps failing to project is set aside with a growing delay (spec forwarding §6.3 item 21), so one
// bad session never stalls the others; `hermetic status` lists it.

/** Seconds before the n-th consecutive failure is retried: 30 s, 60 s, 120 s, … capped at one hour. */
export function backoffSeconds(failures: number): number {
  return Math.min(3600, 30 * 2 ** Math.max(0, failures - 1));
}
