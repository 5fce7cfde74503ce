// The dashboard's data from the fleet store (`hermetic web --from postgres://…`): the same report plans `hermetic
// report --from` runs, a session's transcript, lineage, model changes and delegations from the fleet's tables (each row
// keyed by its machine), and the slowest tool calls. Every request is one read-only transaction (sinks/postgres/read.ts).
import type pg from 'pg';
import { HermeticError } from '../../../shared/errors.js';
import { DELEGATIONS, MESSAGES, SESSIONS } from '../../dataset/columns.js';
import type { Dialect } from '../../report/dialect.js';
import { planReport, planValues, reportCondition, type ReportRequest } from '../../report/query.js';
import { runPostgres } from '../../report/postgres.js';
import { Zone } from '../../ledger/zone.js';
import { openFleet } from '../../sinks/postgres/read.js';
import { q } from '../../sinks/postgres/schema.js';
import type { PostgresTarget } from '../../sinks/postgres/url.js';
import { LINK_COLUMNS, MESSAGE_COLUMNS, delegationsSql, SESSION_COLUMNS, message, sessionDetail, slowestSql, transcriptPages, twoStores, unknownParent, type RawMessage } from './rows.js';
import type { DelegationRow, SessionKey, SessionRow, SessionView, SlowCall, UsageSource } from './source.js';

/** Connections for the page's requests, which it sends side by side. */
const CONNECTIONS = 4;

const pick = (cols: string[]) => cols.map((c) => `s.${c}`).join(', ');
/** The dataset's INTEGER columns (bigint in the fleet, which pg gives as text). */
const INTEGERS = new Set([SESSIONS, MESSAGES, DELEGATIONS].flatMap((t) => t.columns.filter((c) => c.type === 'INTEGER').map((c) => c.name)));
/** A row as the dataset gives it: integers as numbers. */
const numeric = (row: Record<string, unknown>): SessionRow =>
  Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'string' && INTEGERS.has(k) ? Number(v) : v])) as SessionRow;

async function sessionView(c: pg.PoolClient, d: Dialect, target: PostgresTarget, zone: Zone, key: SessionKey, pageNo: number, pageSize: number): Promise<SessionView | null> {
  const where = ['s.session_id = $1'];
  const values: unknown[] = [key.id];
  if (key.store !== null) where.push(`s.store = $${values.push(key.store)}`);
  if (key.machine !== null) where.push(`s.machine_id = $${values.push(key.machine)}`);
  // to_jsonb: a fleet store no newer sink has written to yet has no `attributes` column (nothing is known beyond the columns).
  const rows = (await c.query(`SELECT ${pick(SESSION_COLUMNS)}, to_jsonb(s) ->> 'attributes' AS attributes, s.machine_id, s.hostname FROM sessions s WHERE ${where.join(' AND ')} ORDER BY s.machine_id, s.store LIMIT 2`, values)).rows as Record<string, unknown>[];
  if (rows.length > 1) {
    const [a, b] = rows as [Record<string, unknown>, Record<string, unknown>];
    if (a.machine_id === b.machine_id) throw twoStores(key.id, [a.store, b.store]);
    throw new HermeticError('HERMETIC_WEB_INVALID', `Two machines hold session "${key.id}" (${String(a.hostname)} and ${String(b.hostname)}); name one with machine=${String(a.machine_id)} or machine=${String(b.machine_id)}.`);
  }
  const found = rows[0];
  if (!found) return null;
  const [machine, store] = [String(found.machine_id), String(found.store)];
  const total = Number((await c.query('SELECT COUNT(*) AS n FROM messages WHERE machine_id = $1 AND store = $2 AND session_id = $3', [machine, store, key.id])).rows[0].n);
  const pages = transcriptPages(key.id, total, pageNo, pageSize);
  const link = `SELECT ${pick(LINK_COLUMNS)} FROM sessions s WHERE s.machine_id = $1 AND s.store = $2`;
  const parentRow = found.parent_session_id === null ? null : (await c.query(`${link} AND s.session_id = $3`, [machine, store, found.parent_session_id])).rows[0] as Record<string, unknown> | undefined;
  const children = (await c.query(`${link} AND s.parent_session_id = $3 ORDER BY s.started_at, s.session_id`, [machine, store, key.id])).rows as Record<string, unknown>[];
  const changes = (await c.query(`SELECT seq, created_at, prev AS "from", model AS "to" FROM (
      SELECT seq, created_at, model, LAG(model) OVER (ORDER BY seq) AS prev FROM messages WHERE machine_id = $1 AND store = $2 AND session_id = $3 AND role = 'assistant' AND model IS NOT NULL) m
    WHERE prev IS NOT NULL AND prev <> model ORDER BY seq`, [machine, store, key.id])).rows as Record<string, unknown>[];
  // to_jsonb: a fleet store no newer sink has written to yet has no `compacted` column (its messages are all live) nor
  // `attributes` (nothing beyond the columns); the row is made into JSON once, after the page is chosen.
  const page = (await c.query(`SELECT ${MESSAGE_COLUMNS}, (j ->> 'compacted')::int AS compacted, j ->> 'attributes' AS attributes
    FROM (SELECT * FROM messages WHERE machine_id = $1 AND store = $2 AND session_id = $3 AND seq >= $4 ORDER BY seq LIMIT $5) m, to_jsonb(m) AS j ORDER BY seq`, [machine, store, key.id, (pageNo - 1) * pageSize, pageSize])).rows as Record<string, unknown>[];
  // A fleet store no sink of dataset version 8 has written to yet (fleet schema 1) has no `delegations`: none.
  const hasDelegations = (await c.query('SELECT to_regclass($1) AS t', [`${q(target.schema)}.delegations`])).rows[0].t !== null;
  let delegations: Record<string, unknown>[] = [];
  if (hasDelegations) {
    const bound = d.bind(delegationsSql(true, ' COLLATE "C"'), { machine, store, session: key.id });
    delegations = (await c.query(bound.sql, bound.values as unknown[])).rows as Record<string, unknown>[];
  }
  const { machine_id: _m, hostname: _h, ...session } = found;
  return {
    session: sessionDetail(numeric(session)),
    parent: found.parent_session_id === null ? null : parentRow ? numeric(parentRow) : unknownParent(found.parent_session_id, store),
    children: children.map(numeric),
    model_changes: changes.map(numeric) as unknown as SessionView['model_changes'],
    delegations: delegations.map(numeric) as unknown as DelegationRow[],
    usage: await runPostgres(c, planReport({ filter: { session: [key.id] }, place: { store, machineId: machine }, by: ['model', 'task'] }, zone, d), d),
    transcript: { page: pageNo, page_size: pageSize, pages, total, messages: page.map((r) => message(numeric(r) as unknown as RawMessage)) },
  };
}

/**
 * The fleet store as the dashboard's source. Nothing connects before the first request; `zone` is the one windows
 * are read in (each machine's days are its own, as `hermetic report --from` says).
 */
export function postgresSource(url: string, zone: Zone): UsageSource {
  const fleet = openFleet(url, CONNECTIONS);
  return {
    fleet: true,
    zone: () => zone,
    report: (request) => fleet.read((c, d) => runPostgres(c, planReport(request, request.utc ? new Zone('UTC') : zone, d), d)),
    values: (request, column, limit) => fleet.read((c, d) => runPostgres(c, planValues(request, column, limit, d), d)),
    session: (key, pageNo, pageSize) => fleet.read((c, d, target) => sessionView(c, d, target, zone, key, pageNo, pageSize)),
    slowestCalls: (request: ReportRequest, limit: number) => fleet.read(async (c, d) => {
      const { tools, params } = reportCondition(request, d);
      const { sql, values } = d.bind(slowestSql(request, tools, limit, true), params);
      return ((await c.query(sql, values as unknown[])).rows as Record<string, unknown>[]).map((r) => ({ ...r, started_at: Number(r.started_at), seconds: Number(r.seconds) })) as SlowCall[];
    }),
    // The fleet store receives no row issues (each machine's `hermetic status` has them).
    rowIssues: async () => null,
    unread: async () => null,
    close: () => fleet.close(),
  };
}
