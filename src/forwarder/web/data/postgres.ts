// The dashboard's data from the fleet store (`hermetic web --from postgres://…`): the same report plans `hermetic
// report --from` runs, a session's transcript, lineage, model changes and delegations from the fleet's tables (each row
// keyed by its machine), and the slowest tool calls. Every request is one read-only transaction (sinks/postgres/read.ts).
import type pg from 'pg';
import { HermeticError } from '../../../shared/errors.js';
import { DELEGATIONS, MESSAGES, SESSIONS } from '../../dataset/columns.js';
import type { Dialect } from '../../report/dialect.js';
import { planReport, planValues, reportCondition, type ReportRequest } from '../../report/query.js';
import { fleetUsageReport, runPostgres } from '../../report/postgres.js';
import { planUncosted } from '../../report/uncosted.js';
import { fleetRowIssues } from '../../report/row-issues.js';
import { Zone } from '../../ledger/zone.js';
import { fleetTable, openFleet } from '../../sinks/postgres/read.js';
import { fleetUnread, fleetUnreadUnknown } from '../../report/unread.js';
import type { PostgresTarget } from '../../sinks/postgres/url.js';
import { ATTRIBUTES_CAP, FIELD_CAP, cutText, descendantsSql, lineageOf, LIST_ROWS, PAGE_BYTES, TEXT_CAP, TITLE_CAP, callsSql, delegationRow, delegationsSql, linkColumnsSql, linkRow, messageColumns, message, noMessage, noSessionText, noText, PageBudget, sessionColumnsSql, sessionDetail, sessionTextSql, slowestKeptSql, slowestSql, textSql, transcriptPages, twoStores, unknownParent, type RawCall, type RawMessage } from './rows.js';
import type { DelegationRow, MessageText, SessionKey, SessionRow, SessionView, SlowCall, TextField, TranscriptPage, UsageSource } from './source.js';
import type { FleetReader } from '../../sinks/postgres/read.js';
import { quoteName as q } from '../../../shared/sql-name.js';

/** The tables of the overview's notes that a later fleet version added (decision 0102), and the fleet's machines (0105). */
const OVERVIEW_NOTES = ['row_issues', 'backfill_unread', 'progress'] as const;

/** Connections for the page's requests, which it sends side by side. */
const CONNECTIONS = 4;

/** The dataset's INTEGER columns (bigint in the fleet, which pg gives as text). */
const INTEGERS = new Set([SESSIONS, MESSAGES, DELEGATIONS].flatMap((t) => t.columns.filter((c) => c.type === 'INTEGER').map((c) => c.name)));
/** A row as the dataset gives it: integers as numbers. */
const numeric = (row: Record<string, unknown>): SessionRow =>
  Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'string' && INTEGERS.has(k) ? Number(v) : v])) as SessionRow;

/** Rows of a page read at a time: a page of big messages stops at its budget after a few (decision 0088). */
const BATCH = 16;

/** Which of `names` the fleet's `table` has (a fleet store no newer sink has written to lacks the newer columns). */
async function columnsOf(c: pg.PoolClient, table: string, names: readonly string[]): Promise<Set<string>> {
  const rows = (await c.query('SELECT attname FROM pg_attribute WHERE attrelid = $1::regclass AND attname = ANY($2) AND NOT attisdropped', [table, names])).rows as { attname: string }[];
  return new Set(rows.map((r) => r.attname));
}

/**
 * The session's row (with its machine): by id, and store and machine when given; two holding it are refused. Its texts
 * cut in SQL (decision 0094); `bare` reads only where it is (for a whole text, which needs nothing else of the row).
 */
async function findSession(c: pg.PoolClient, key: SessionKey, bare = false): Promise<Record<string, unknown> | undefined> {
  const where = ['s.session_id = $1'];
  const values: unknown[] = [key.id];
  if (key.store !== null) where.push(`s.store = $${values.push(key.store)}`);
  if (key.machine !== null) where.push(`s.machine_id = $${values.push(key.machine)}`);
  // A fleet store no newer sink has written to yet has no `attributes` column (nothing is known beyond the columns).
  // (Not to_jsonb(s) ->> 'attributes': that builds the whole row as JSON, system prompt and any huge title included.)
  const columns = bare ? 's.store' : sessionColumnsSql((await columnsOf(c, 'sessions', ['attributes'])).has('attributes') ? 's.attributes' : 'NULL');
  const rows = (await c.query(`SELECT ${columns}, s.machine_id, s.hostname FROM sessions s WHERE ${where.join(' AND ')} ORDER BY s.machine_id, s.store LIMIT 2`, values)).rows as Record<string, unknown>[];
  if (rows.length > 1) {
    const [a, b] = rows as [Record<string, unknown>, Record<string, unknown>];
    if (a.machine_id === b.machine_id) throw twoStores(key.id, [a.store, b.store]);
    throw new HermeticError('HERMETIC_WEB_INVALID', `Two machines hold session "${key.id}" (${String(a.hostname)} and ${String(b.hostname)}); name one with machine=${String(a.machine_id)} or machine=${String(b.machine_id)}.`);
  }
  return rows[0];
}

async function sessionView(c: pg.PoolClient, d: Dialect, target: PostgresTarget, zone: Zone, key: SessionKey, asked: TranscriptPage): Promise<SessionView | null> {
  const found = await findSession(c, key);
  if (!found) return null;
  const [machine, store] = [String(found.machine_id), String(found.store)];
  const total = Number((await c.query('SELECT COUNT(*) AS n FROM messages WHERE machine_id = $1 AND store = $2 AND session_id = $3', [machine, store, key.id])).rows[0].n);
  const { pages, from, wanted } = transcriptPages(key.id, total, asked);
  const link = `SELECT ${linkColumnsSql()} FROM sessions s WHERE s.machine_id = $1 AND s.store = $2`;
  const parentRow = found.parent_session_id === null ? null : (await c.query(`${link} AND s.session_id = $3`, [machine, store, found.parent_session_id])).rows[0] as Record<string, unknown> | undefined;
  const children = (await c.query(`${link} AND s.parent_session_id = $3 ORDER BY s.started_at, s.session_id COLLATE "C" LIMIT ${LIST_ROWS + 1}`, [machine, store, key.id])).rows as Record<string, unknown>[];
  const changes = (await c.query(`SELECT seq, created_at, ${cutText('prev', FIELD_CAP)} AS "from", ${cutText('model', FIELD_CAP)} AS "to" FROM (
      SELECT seq, created_at, model, LAG(model) OVER (ORDER BY seq) AS prev FROM messages WHERE machine_id = $1 AND store = $2 AND session_id = $3 AND role = 'assistant' AND model IS NOT NULL) m
    WHERE prev IS NOT NULL AND prev <> model ORDER BY seq LIMIT ${LIST_ROWS + 1}`, [machine, store, key.id])).rows as Record<string, unknown>[];
  // A fleet store no newer sink has written to yet has no `compacted` column (its messages are all live) nor
  // `attributes` (nothing beyond the columns). Each text is cut in SQL (decision 0088), a few rows at a time.
  const has = await columnsOf(c, 'messages', ['compacted', 'attributes']);
  const extra = `${has.has('compacted') ? 'compacted::int' : '0'} AS compacted`;
  const rowsSql = `SELECT ${messageColumns(has.has('attributes') ? 'attributes' : 'NULL')}, ${extra} FROM messages WHERE machine_id = $1 AND store = $2 AND session_id = $3 AND seq >= $4 ORDER BY seq LIMIT $5`;
  const budget = new PageBudget(wanted);
  let next = from;
  let left = wanted;
  reading: while (left > 0) {
    const batch = (await c.query(rowsSql, [machine, store, key.id, next, Math.min(BATCH, left)])).rows as Record<string, unknown>[];
    for (const raw of batch) {
      const r = numeric(raw) as unknown as RawMessage;
      let cut: RawCall[] = [];
      if (r.tool_calls_characters !== null && r.tool_calls_characters > TEXT_CAP) {
        const bound = d.bind(callsSql(true), { machine, store, session: key.id, seq: r.seq });
        cut = (await c.query(bound.sql, bound.values as unknown[])).rows as RawCall[];
      }
      if (!budget.add(message(r, cut))) break reading;
    }
    if (batch.length === 0) break;
    left -= batch.length;
    next = Number((batch[batch.length - 1] as { seq: unknown }).seq) + 1;
  }
  // A fleet store no sink of dataset version 8 has written to yet (fleet schema 1) has no `delegations`: none. A role
  // granted SELECT before that version made the table may not read it: the rest of the page is still read, and the
  // delegations are null (not known, where an empty list would read as "none"), withheld with the GRANT (decision 0105).
  const delegationsTable = await fleetTable(c, target.schema, 'delegations');
  const withheld = delegationsTable.state === 'denied' ? [{ table: 'delegations', grant: delegationsTable.grant }] : [];
  let delegations: Record<string, unknown>[] = [];
  if (delegationsTable.state === 'readable') {
    const bound = d.bind(delegationsSql(true, ' COLLATE "C"'), { machine, store, session: key.id });
    delegations = (await c.query(bound.sql, bound.values as unknown[])).rows as Record<string, unknown>[];
  }
  let below: string[] = [];
  if (children.length > 0) {
    const bound = d.bind(descendantsSql(true), { machine, store, session: key.id });
    below = (await c.query(bound.sql, bound.values as unknown[])).rows.map((r: { id: string }) => r.id);
  }
  const lineage = lineageOf(key.id, below);
  const lineageUsage = lineage && { descendants: lineage.descendants, more: lineage.more, totals: (await runPostgres(c, planReport({ filter: { session: lineage.sessions }, place: { store, machineId: machine } }, zone, d), d)).totals };
  const { machine_id: _m, hostname: _h, ...session } = found;
  return {
    session: sessionDetail(numeric(session)),
    parent: found.parent_session_id === null ? null : parentRow ? linkRow(numeric(parentRow)) : unknownParent(found.parent_session_id, store),
    children: children.slice(0, LIST_ROWS).map((r) => linkRow(numeric(r))),
    model_changes: changes.slice(0, LIST_ROWS).map(numeric) as unknown as SessionView['model_changes'],
    delegations: withheld.length > 0 ? null : delegations.slice(0, LIST_ROWS).map((r) => delegationRow(numeric(r))),
    more: { children: children.length > LIST_ROWS, delegations: delegations.length > LIST_ROWS, model_changes: changes.length > LIST_ROWS },
    limits: { title_characters: TITLE_CAP, field_characters: FIELD_CAP, attributes_characters: ATTRIBUTES_CAP, list_rows: LIST_ROWS },
    usage: await runPostgres(c, planReport({ filter: { session: [key.id] }, place: { store, machineId: machine }, by: ['model', 'task'] }, zone, d), d),
    lineage_usage: lineageUsage,
    transcript: { page: asked.page, page_size: asked.size, pages, total, from, next_from: budget.next_from, limits: { text_characters: TEXT_CAP, page_bytes: PAGE_BYTES }, messages: budget.messages },
    ...(withheld.length > 0 ? { withheld } : {}),
  };
}

/**
 * A whole text: its lengths read in one transaction, then each chunk in its own (a connection is held per chunk, not
 * for as long as a slow client reads), read only while the text still has the byte length announced.
 */
async function messageText(fleet: FleetReader, key: SessionKey, seq: number, field: TextField): Promise<MessageText | null> {
  const found = await fleet.read(async (c, d) => {
    const row = await findSession(c, key, true);
    if (!row) return null;
    const at = { machine: String(row.machine_id), store: String(row.store), session: key.id, seq, call: field.name === 'arguments' ? field.call : null };
    if ((await c.query('SELECT 1 FROM messages WHERE machine_id = $1 AND store = $2 AND session_id = $3 AND seq = $4', [at.machine, at.store, at.session, seq])).rows.length === 0) throw noMessage(key.id, seq);
    const bound = d.bind(textSql(true, field.name, 'length'), at);
    const size = (await c.query(bound.sql, bound.values as unknown[])).rows[0] as { characters: number | null; bytes: number | null };
    if (size.characters === null) throw noText(key.id, seq, field);
    return { at, characters: Number(size.characters), bytes: Number(size.bytes) };
  });
  return found && chunked(fleet, found, textSql(true, field.name, 'chunk'));
}

/** A whole text found at `found.at`, read a chunk at a time by `chunkSql`, each chunk in a read-only transaction of its own. */
function chunked(fleet: FleetReader, found: { at: Record<string, string | number | null>; characters: number; bytes: number }, chunkSql: string): MessageText {
  return {
    characters: found.characters,
    bytes: found.bytes,
    chunk: (from) => fleet.read(async (c, d) => {
      const bound = d.bind(chunkSql, { ...found.at, from, bytes: found.bytes });
      return ((await c.query(bound.sql, bound.values as unknown[])).rows[0] as { chunk: string } | undefined)?.chunk ?? null;
    }),
  };
}

/** A session's own text whole (decision 0094), read as `messageText` reads a message's. */
async function sessionText(fleet: FleetReader, key: SessionKey, field: string): Promise<MessageText | null> {
  let column = field;
  const found = await fleet.read(async (c, d) => {
    const row = await findSession(c, key, true);
    if (!row) return null;
    if (field === 'attributes' && !(await columnsOf(c, 'sessions', ['attributes'])).has('attributes')) column = 'NULL';
    const at = { machine: String(row.machine_id), store: String(row.store), session: key.id };
    const bound = d.bind(sessionTextSql(true, column, 'length'), at);
    const size = (await c.query(bound.sql, bound.values as unknown[])).rows[0] as { characters: number | null; bytes: number | null };
    if (size.characters === null) throw noSessionText(key.id, field);
    return { at, characters: Number(size.characters), bytes: Number(size.bytes) };
  });
  return found && chunked(fleet, found, sessionTextSql(true, column, 'chunk'));
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
    report: (request) => fleetUsageReport(fleet, request, request.utc ? new Zone('UTC') : zone),
    // Each machine's batch moves its `progress` row in the batch's own transaction: the rows' digest changes with any
    // shipment. Null without the table, or for a role that may not read it (the page then does not follow).
    version: () => fleet.read(async (c, _d, target) => {
      if ((await fleetTable(c, target.schema, 'progress')).state !== 'readable') return null;
      const sql = `SELECT md5(COALESCE(string_agg(machine_id || ':' || applied_seq || ':' || updated_at, ',' ORDER BY machine_id COLLATE "C"), '')) AS v FROM ${q(target.schema)}.progress`;
      return String((await c.query(sql)).rows[0].v);
    }),
    values: (request, column, limit) => fleet.read((c, d) => runPostgres(c, planValues(request, column, limit, d), d)),
    session: (key, asked) => fleet.read((c, d, target) => sessionView(c, d, target, zone, key, asked)),
    messageText: (key, seq, field) => messageText(fleet, key, seq, field),
    sessionText: (key, field) => sessionText(fleet, key, field),
    // Read from the fleet's kept tool calls (schema version 6, decision 0099); a fleet store no newer sink has opened,
    // or a role given SELECT on the tables there were before it, groups the parts.
    slowestCalls: (request: ReportRequest, limit: number) => fleet.read(async (c, d, target) => {
      const { tools, params } = reportCondition(request, d);
      const { sql, values } = d.bind(((await fleetTable(c, target.schema, 'tool_calls')).state === 'readable' ? slowestKeptSql : slowestSql)(request, tools, limit, true), params);
      return ((await c.query(sql, values as unknown[])).rows as Record<string, unknown>[]).map((r) => ({ ...r, started_at: Number(r.started_at), seconds: Number(r.seconds) })) as SlowCall[];
    }),
    // The same count as on the dataset, each machine's sessions its own (decision 0090).
    uncosted: (request) => fleet.read((c, d) => runPostgres(c, planUncosted(request, d), d)),
    // The values each machine's forwarder repaired, counted as on the dataset (decision 0092).
    rowIssues: (request) => fleet.read((c, d) => fleetRowIssues(c, request, d)),
    // What each machine's windowed backfills left unread, added up (decision 0102); null on a fleet that does not keep
    // it, or for a role that may not read it.
    unread: (request) => fleet.read((c, d) => fleetUnread(c, request, d)),
    // The overview's notes this role may not read (their tables a later fleet version added): said with their GRANT.
    // Of the machines the fleet knows, how many do not say what they left unread (decision 0105); null where not known.
    unreadUnknown: () => fleet.read((c, d) => fleetUnreadUnknown(c, d)),
    withheld: () => fleet.read(async (c, _d, target) => {
      const out: { table: string; grant: string }[] = [];
      for (const table of OVERVIEW_NOTES) {
        const t = await fleetTable(c, target.schema, table);
        if (t.state === 'denied') out.push({ table, grant: t.grant });
      }
      return out;
    }),
    close: () => fleet.close(),
  };
}
