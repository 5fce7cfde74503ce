// A session that keeps failing to project is set aside with a growing delay (spec forwarding §6.3 item 21), so one
// bad session never stalls the others; `hermetic status` lists it.

/** The longest a failed session waits for its retry (seconds). */
export const MAX_BACKOFF = 3600;

/** Seconds before the n-th consecutive failure is retried: 30 s, 60 s, 120 s, … capped at one hour. */
export function backoffSeconds(failures: number): number {
  return Math.min(MAX_BACKOFF, 30 * 2 ** Math.max(0, failures - 1));
}

/**
 * Whether a session set aside waits still at `now` (epoch seconds). A retry time further ahead than the longest
 * backoff was set by a clock that has since been set back: the session is retried now, not when the clock catches up.
 */
export function stillWaiting(retryAt: number, now: number): boolean {
  return retryAt > now && retryAt - now <= MAX_BACKOFF;
}
