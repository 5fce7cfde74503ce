// Sessions a windowed backfill left unread (stores.unread, written by the pass: plan.ts), as far as they reach into a
// report's window, so a report over history that was never read says so instead of showing less as if it were all.
// The embedded dataset only, as row-issues.ts.
import type { Db } from '../../shared/sqlite.js';
import type { Zone } from '../ledger/zone.js';
import type { ReportRequest } from './query.js';
import type { UnreadDays } from './render.js';

export interface UnreadSpan {
  /** Sessions left unread whose span meets the window, over every store. */
  sessions: number;
  /** Stores they are in. */
  stores: number;
  /** From the earliest start to the latest activity among them, epoch seconds. */
  from: number;
  to: number;
}

/** @example unreadIn(db, { since: now - 30 * 86400 }) // { sessions: 120, stores: 1, from: …, to: … } or null */
export function unreadIn(db: Db, request: Pick<ReportRequest, 'since' | 'until'>): UnreadSpan | null {
  // A dataset from before version 10, read as it is (the dashboard does not upgrade it), does not know.
  if (db.prepare("SELECT 1 FROM pragma_table_info('stores') WHERE name = 'unread'").get() === undefined) return null;
  const rows = db.prepare('SELECT unread FROM stores WHERE unread IS NOT NULL').pluck().all() as string[];
  let span: UnreadSpan | null = null;
  for (const text of rows) {
    // A span meets the window when it starts before the window ends and ends after it starts.
    const meets = parseUnread(text).filter((u) => (request.since == null || u.to >= request.since) && (request.until == null || u.from < request.until));
    if (meets.length === 0) continue;
    span ??= { sessions: 0, stores: 0, from: Infinity, to: -Infinity };
    span.stores++;
    for (const u of meets) {
      span.sessions += u.sessions;
      span.from = Math.min(span.from, u.from);
      span.to = Math.max(span.to, u.to);
    }
  }
  return span;
}

/** The spans of a stores.unread value; none when it is not what this version writes (nothing is claimed from it). */
function parseUnread(text: string): { sessions: number; from: number; to: number }[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  const ok = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
  return (Array.isArray(value) ? value : []).filter((u): u is { sessions: number; from: number; to: number } =>
    typeof u === 'object' && u !== null && ok(u.sessions) && u.sessions > 0 && ok(u.from) && ok(u.to));
}

/** The span as people read it: how many sessions, and the local days of `zone` they span. */
export function unreadDays(span: UnreadSpan, zone: Zone): UnreadDays {
  return { sessions: span.sessions, from: zone.dayOf(span.from), to: zone.dayOf(span.to) };
}
