// A session's per-model usage in one short string (rows, calls, newest last_seen): the reader computes it for every
// session in SQL, the projector from the rows it read, and the same numbers give the same string.

export function usageMark(rows: number, calls: number, lastSeen: number | null): string {
  return rows === 0 ? '' : `${rows}/${calls}/${lastSeen ?? ''}`;
}

/** The mark of a session's `session_model_usage` rows as read. */
export function usageMarkOf(usage: readonly Readonly<Record<string, unknown>>[]): string {
  let calls = 0;
  let last: number | null = null;
  for (const u of usage) {
    calls += typeof u.api_call_count === 'number' ? u.api_call_count : 0;
    if (typeof u.last_seen === 'number' && (last === null || u.last_seen > last)) last = u.last_seen;
  }
  return usageMark(usage.length, calls, last);
}
