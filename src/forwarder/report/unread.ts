// Sessions a windowed backfill left unread (stores.unread, written by the pass: plan.ts), as far as they reach into a
// report's window, so a report over history that was never read says so instead of showing less as if it were all.
// On the dataset from `stores`; on the fleet store from `backfill_unread`, each machine's stores as the dataset holds
// them (decision 0102), so the fleet's count is each machine's added up.
import type pg from 'pg';
import type { Db } from '../../shared/sqlite.js';
import type { Zone } from '../ledger/zone.js';
import { fleetTable } from './fleet-table.js';
import type { Dialect } from './dialect.js';
import type { ReportRequest } from './query.js';
import { UNREAD_UNKNOWN_NAMES, type UnreadDays, type UnreadUnknown } from './render.js';

export type { UnreadUnknown };

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
  return unreadOver(rows.map(parsed), request);
}

/**
 * The same over the fleet store, in the caller's read transaction: every machine's stores (`backfill_unread`, one row
 * per machine that ships it). Null where the fleet does not know: a store no forwarder of dataset version 13 has
 * opened (no table), or a role that may not read it (`onDenied` gets the GRANT to run). A machine whose forwarder is
 * older sends no row and adds nothing; the count is then of the machines that send it, never a zero for the others
 * (`fleetUnreadUnknown` says how many do not send it).
 */
export async function fleetUnread(client: pg.PoolClient, request: Pick<ReportRequest, 'since' | 'until'>, dialect: Dialect & { readonly schema: string }, onDenied?: (table: string, grant: string) => void): Promise<UnreadSpan | null> {
  const table = await fleetTable(client, dialect.schema, 'backfill_unread');
  if (table.state === 'denied') onDenied?.('backfill_unread', table.grant);
  if (table.state !== 'readable') return null;
  const rows = (await client.query('SELECT stores FROM backfill_unread ORDER BY machine_id')).rows as { stores: string }[];
  // Each machine's element per store: two machines with the same store path are two stores.
  return unreadOver(rows.flatMap((r) => { const v = parsed(r.stores); return Array.isArray(v) ? v : []; }), request);
}

/**
 * How many of the fleet's machines the unread count cannot speak for (decision 0105): `fleetUnread` adds up the
 * machines that send `backfill_unread`, and a forwarder older than dataset version 13 sends none. On a fleet store
 * before version 7 (no table) no machine says. Null where that is not known: no `progress` (dropped by hand), or a role
 * that may not read `progress` (`onDenied` gets its GRANT) or `backfill_unread` (whose GRANT `fleetUnread` gives).
 */
export async function fleetUnreadUnknown(client: pg.PoolClient, dialect: Dialect & { readonly schema: string }, onDenied?: (table: string, grant: string) => void): Promise<UnreadUnknown | null> {
  const progress = await fleetTable(client, dialect.schema, 'progress');
  if (progress.state === 'denied') onDenied?.('progress', progress.grant);
  if (progress.state !== 'readable') return null;
  const table = await fleetTable(client, dialect.schema, 'backfill_unread');
  // Denied: the unread note is withheld (fleetUnread says why and gives its GRANT), so there is no count to speak for.
  if (table.state === 'denied') return null;
  // The silent machines' host names too, the first few by name (each cut: a machine writes its own), so the report
  // can say which forwarders to update. By name in byte order, as the report's other orders (decision 0122), whatever
  // the server's collation.
  const silent = table.state === 'absent' ? 'progress' : `(SELECT p.* FROM progress p WHERE NOT EXISTS (SELECT 1 FROM backfill_unread b WHERE b.machine_id = p.machine_id))`;
  const known = table.state === 'absent' ? 'progress' : '(SELECT machine_id FROM progress UNION SELECT machine_id FROM backfill_unread)';
  const sql = `SELECT (SELECT COUNT(*) FROM ${silent} s) AS machines, (SELECT COUNT(*) FROM ${known} k) AS "of",
       ARRAY(SELECT DISTINCT left(s.hostname, 64) COLLATE "C" AS name FROM ${silent} s WHERE s.hostname <> '' ORDER BY name LIMIT ${UNREAD_UNKNOWN_NAMES}) AS names`;
  const r = (await client.query(sql)).rows[0] as { machines: string; of: string; names: string[] };
  return { machines: Number(r.machines), of: Number(r.of), names: r.names };
}

/** What each store's spans (one element per store, a `stores.unread` value) say of the window, added up; null: nothing. */
function unreadOver(stores: readonly unknown[], request: Pick<ReportRequest, 'since' | 'until'>): UnreadSpan | null {
  let span: UnreadSpan | null = null;
  for (const value of stores) {
    // A span meets the window when it starts before the window ends and ends after it starts.
    const meets = spansOf(value).filter((u) => (request.since == null || u.to >= request.since) && (request.until == null || u.from < request.until));
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

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The spans of a stores.unread value; none when it is not what this version writes (nothing is claimed from it). */
function spansOf(value: unknown): { sessions: number; from: number; to: number }[] {
  const ok = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
  return (Array.isArray(value) ? value : []).filter((u): u is { sessions: number; from: number; to: number } =>
    typeof u === 'object' && u !== null && ok(u.sessions) && u.sessions > 0 && ok(u.from) && ok(u.to));
}

/** The span as people read it: how many sessions, and the local days of `zone` they span. */
export function unreadDays(span: UnreadSpan, zone: Zone): UnreadDays {
  return { sessions: span.sessions, from: zone.dayOf(span.from), to: zone.dayOf(span.to) };
}
