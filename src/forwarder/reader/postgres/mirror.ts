// The local mirror of a Hermes profile kept in PostgreSQL (decision 0038): each pass opens one short-lived connection,
// reads in one READ ONLY, REPEATABLE READ transaction (one moment of the store; no temp tables, nothing written),
// and copies what changed into a private SQLite file shaped as a state.db of the same schema version (Hermes's
// tables, their columns by name, content back in its SQLite form). The existing pipeline then steps that file.
// What changed: sessions whose row hash moved (md5 of the whole row, computed by the server), messages after the
// newest id copied, and within changed sessions every row whose hash moved or that is gone (a /retry, a rewind,
// compaction); the small tables (usage, prompts, meta, version, background delegations) are copied again when their
// stamp moves. Hermes also edits rows in place without touching their session (a reaction, a display kind stamped
// after the turn, api_content filled in later; decision 0053): at most once a minute, after the revision moved, a
// digest of those columns per recently active session finds them (per session of any age, once a day). A pass that finds nothing changed writes nothing,
// so the file's commit stamp stays and the pipeline skips the store.
import { chmodSync, existsSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { threadId } from 'node:worker_threads';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Db } from '../../../shared/sqlite.js';
import { sqliteContent } from './content.js';
import { pgFailure, readOnly } from './connect.js';
import type { MirrorJob } from './settings.js';
import { makeDirs } from '../../../shared/dirs.js';
import { quoteName as q } from '../../../shared/sql-name.js';

export type { MirrorJob } from './settings.js';

export interface MirrorResult {
  /** Whether the mirror file was written this pass. */
  changed: boolean;
  /** Whether it was made again from nothing (first pass, a new column, a replaced store). */
  rebuilt: boolean;
  sessionsCopied: number;
  sessionsRemoved: number;
  messagesCopied: number;
  messagesRemoved: number;
  /** Sessions whose rows were edited in place (their session row unchanged): their edited rows were copied. */
  edited: string[];
  schemaVersion: number | null;
}

/** Hermes's tables a state.db reader reads; the others (gateway, cron, leases, deliveries) stay in PostgreSQL. */
const TABLES = ['schema_version', 'system_prompts', 'sessions', 'messages', 'session_model_usage', 'state_meta', 'session_daily_usage', 'async_delegations'] as const;
/**
 * Tables copied whole when their stamp moves (few rows, or rows that never change once written). Their changes move no
 * revision (Hermes's revision triggers watch sessions and messages only), so their stamps are read every pass.
 */
const SMALL = ['schema_version', 'system_prompts', 'session_model_usage', 'state_meta', 'session_daily_usage', 'async_delegations'] as const;
/** The message columns Hermes edits in place (normalize/extras.ts EDITED_COLUMNS; decision 0053). */
const EDITED = ['display_kind', 'display_metadata', 'api_content'] as const;
/** Edits in place are looked for at most this often per mirror (seconds): the pipeline's own pace at its quickest. */
const EDIT_CHECK_SECONDS = 60;
const CHUNK = 500;
const PAGE = 2000;

interface Column { name: string; type: string }
interface Shape { tables: Map<string, Column[]>; keys: Map<string, string[]> }

/** SQLite's declared type for a PostgreSQL column type: the affinity Hermes's SQLite DDL gives the same column. */
export function affinity(pgType: string): string {
  if (/^(bigint|integer|smallint|boolean)/.test(pgType)) return 'INTEGER';
  if (/^(double precision|real|numeric)/.test(pgType)) return 'REAL';
  if (pgType === 'bytea') return 'BLOB';
  return 'TEXT';
}

/** A value from pg as better-sqlite3 binds it. */
function bindable(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object' && !Buffer.isBuffer(v) && typeof v !== 'bigint') return JSON.stringify(v);
  return v;
}

/** The tables (with their columns, stored ones only) and primary keys of the profile's schema. */
async function shapeOf(client: pg.Client, schema: string): Promise<Shape> {
  const cols = await client.query<{ t: string; c: string; type: string }>(
    `SELECT c.relname AS t, a.attname AS c, format_type(a.atttypid, a.atttypmod) AS type
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND c.relname = ANY($2) AND a.attnum > 0 AND NOT a.attisdropped
        AND a.attgenerated = '' AND format_type(a.atttypid, a.atttypmod) <> 'tsvector'
      ORDER BY c.relname, a.attnum`, [schema, [...TABLES]]);
  const keys = await client.query<{ t: string; c: string }>(
    `SELECT c.relname AS t, a.attname AS c
       FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
      WHERE i.indisprimary AND n.nspname = $1 AND c.relname = ANY($2)
      ORDER BY c.relname, k.ord`, [schema, [...TABLES]]);
  const shape: Shape = { tables: new Map(), keys: new Map() };
  for (const r of cols.rows) {
    if (!shape.tables.has(r.t)) shape.tables.set(r.t, []);
    shape.tables.get(r.t)!.push({ name: r.c, type: r.type });
  }
  for (const r of keys.rows) {
    if (!shape.keys.has(r.t)) shape.keys.set(r.t, []);
    shape.keys.get(r.t)!.push(r.c);
  }
  return shape;
}

/** CREATE statements for the mirror: Hermes's tables as SQLite holds them, the indexes the reader's queries use. */
function mirrorDdl(shape: Shape): string[] {
  const out: string[] = [];
  for (const [table, columns] of shape.tables) {
    const key = shape.keys.get(table) ?? [];
    const single = key.length === 1 ? key[0] : null;
    const defs = columns.map((c) => {
      const type = table === 'messages' && c.name === 'id' ? 'INTEGER' : affinity(c.type);
      return `${q(c.name)} ${type}${c.name === single ? ' PRIMARY KEY' : ''}`;
    });
    if (key.length > 1) defs.push(`PRIMARY KEY (${key.map(q).join(', ')})`);
    out.push(`CREATE TABLE ${q(table)} (${defs.join(', ')})`);
  }
  const has = (t: string, c: string) => shape.tables.get(t)?.some((x) => x.name === c) ?? false;
  if (has('messages', 'session_id')) {
    out.push('CREATE INDEX idx_messages_session ON messages(session_id, timestamp)');
    if (has('messages', 'active')) out.push('CREATE INDEX idx_messages_session_active ON messages(session_id, active, timestamp)');
  }
  if (has('session_model_usage', 'session_id')) out.push('CREATE INDEX idx_session_model_usage_session ON session_model_usage(session_id)');
  out.push(
    'CREATE TABLE hermetic_mirror (key TEXT PRIMARY KEY, value TEXT)',
    'CREATE TABLE hermetic_mirror_sessions (id TEXT PRIMARY KEY, hash TEXT NOT NULL)',
    'CREATE TABLE hermetic_mirror_messages (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, hash TEXT NOT NULL)',
    'CREATE INDEX hermetic_mirror_messages_session ON hermetic_mirror_messages(session_id, id)',
  );
  return out;
}

/**
 * Per session, the digest of its rows' edited columns when last compared. Made when a mirror is opened: one made before
 * it gains it then (once; when it is there, the statement writes nothing).
 */
const EDITS_TABLE = 'CREATE TABLE IF NOT EXISTS hermetic_mirror_edits (session_id TEXT PRIMARY KEY, digest TEXT NOT NULL)';

/**
 * When each mirror (by file) was last looked at for edits in place in this thread, and at which revision; and the
 * same for its last look at every session. A look at the week's sessions is due once the revision has moved since
 * the last look and EDIT_CHECK_SECONDS have passed; one at every session once it has moved since the last such look
 * and `settledEvery` has passed. Kept per process, as the pipeline keeps its own looks (decision 0053): a new process
 * looks at every session at once.
 */
const editLooks = new Map<string, { revision: string | null; at: number; allRevision: string | null; allAt: number }>();

/** Which sessions this pass looks at for edits in place: none, those active within the window, or all. */
type EditScope = 'none' | 'recent' | 'all';

function editScope(job: MirrorJob, revision: string | null): EditScope {
  const last = editLooks.get(job.file);
  if (!last) return 'all';
  const moved = (since: string | null) => revision === null || revision === '' || since !== revision;
  if (moved(last.allRevision) && job.now - last.allAt >= job.settledEvery) return 'all';
  return moved(last.revision) && job.now - last.at >= EDIT_CHECK_SECONDS ? 'recent' : 'none';
}

function noteLook(job: MirrorJob, revision: string | null, scope: EditScope): void {
  if (scope === 'none') return;
  const last = editLooks.get(job.file);
  const all = scope === 'all' ? { allRevision: revision, allAt: job.now } : { allRevision: last?.allRevision ?? null, allAt: last?.allAt ?? job.now };
  editLooks.set(job.file, { revision, at: job.now, ...all });
}

/** The mirror's own bookkeeping (hermetic_mirror): source, shape, revision, newest message id, small-table stamps. */
function metaOf(db: Db): Map<string, string> {
  try {
    return new Map((db.prepare('SELECT key, value FROM hermetic_mirror').raw().all() as [string, string][]));
  } catch {
    return new Map();
  }
}

/** Writes one table's rows (objects from pg) into the mirror, content in its SQLite form. */
function putter(db: Db, table: string, columns: readonly Column[]): (rows: readonly Record<string, unknown>[]) => void {
  const names = columns.map((c) => c.name);
  const stmt = db.prepare(`INSERT OR REPLACE INTO ${q(table)} (${names.map(q).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`);
  const content = table === 'messages' ? names.indexOf('content') : -1;
  return (rows) => {
    for (const r of rows) stmt.run(names.map((n, i) => bindable(i === content ? sqliteContent(r[n]) : r[n])));
  };
}

/** Copies into the mirror what changed in PostgreSQL since its last pass; the work of one transaction. */
async function copyChanges(client: pg.Client, job: MirrorJob, db: Db, shape: Shape, fresh: boolean, result: MirrorResult): Promise<void> {
  const s = q(job.schema);
  const meta = fresh ? new Map<string, string>() : metaOf(db);
  const setMeta = db.prepare('INSERT OR REPLACE INTO hermetic_mirror (key, value) VALUES (?, ?)');
  let began = false;
  /** Starts the mirror's write transaction at the first change: a pass that finds none leaves the file untouched. */
  const write = () => {
    if (!began) { db.prepare('BEGIN IMMEDIATE').run(); began = true; }
  };
  try {
    if (fresh) {
      write();
      setMeta.run('source', job.identity);
      setMeta.run('shape', JSON.stringify([...shape.tables].map(([t, c]) => [t, c, shape.keys.get(t) ?? []])));
    }
    const revision = shape.tables.has('messages') && (await client.query(`SELECT to_regclass($1) AS r`, [`${s}.state_change_revision`])).rows[0]?.r
      ? String((await client.query(`SELECT revision FROM ${s}.state_change_revision WHERE id = 1`)).rows[0]?.revision ?? '')
      : null;
    const edits = editScope(job, revision);
    if (revision === null || revision === '' || meta.get('revision') !== revision || edits !== 'none') {
      await copySessions(client, job, db, shape, meta, write, result, edits);
      if (revision !== null && revision !== '' && meta.get('revision') !== revision) { write(); setMeta.run('revision', revision); }
    }
    for (const table of SMALL) {
      const columns = shape.tables.get(table);
      if (!columns) continue;
      const stamp = (await client.query(`SELECT count(*)::text || ':' || coalesce(md5(string_agg(h, ',' ORDER BY h)), '') AS stamp FROM (SELECT md5(ROW(t.*)::text) AS h FROM ${s}.${q(table)} t) x`)).rows[0].stamp as string;
      if (meta.get(`stamp:${table}`) === stamp) continue;
      write();
      db.prepare(`DELETE FROM ${q(table)}`).run();
      putter(db, table, columns)((await client.query(`SELECT ${columns.map((c) => q(c.name)).join(', ')} FROM ${s}.${q(table)}`)).rows);
      setMeta.run(`stamp:${table}`, stamp);
    }
    if (began) db.prepare('COMMIT').run();
    result.changed = began;
    noteLook(job, revision, edits);
  } catch (e) {
    if (db.inTransaction) db.prepare('ROLLBACK').run();
    throw e;
  }
}

/**
 * Sessions whose row changed, their messages that changed or went, new messages, sessions gone; and the messages of
 * the sessions `edits` names (recently active ones, or all) whose edited columns changed.
 */
async function copySessions(client: pg.Client, job: MirrorJob, db: Db, shape: Shape, meta: Map<string, string>, write: () => void, result: MirrorResult, edits: EditScope): Promise<void> {
  const s = q(job.schema);
  const sessionCols = shape.tables.get('sessions');
  const messageCols = shape.tables.get('messages');
  if (!sessionCols) return;
  const had = new Map(db.prepare('SELECT id, hash FROM hermetic_mirror_sessions').raw().all() as [string, string][]);
  const activity = sessionCols.some((c) => c.name === 'last_activity_at') ? 'COALESCE(x.last_activity_at, x.started_at)' : 'x.started_at';
  const now = (await client.query<{ id: string; h: string; at: number | null }>(`SELECT id, md5(ROW(x.*)::text) AS h, ${activity} AS at FROM ${s}.sessions x`)).rows;
  const changed = now.filter((r) => had.get(r.id) !== r.h);
  const present = new Set(now.map((r) => r.id));
  const gone = [...had.keys()].filter((id) => !present.has(id));
  const putSession = putter(db, 'sessions', sessionCols);
  const putHash = db.prepare('INSERT OR REPLACE INTO hermetic_mirror_sessions (id, hash) VALUES (?, ?)');
  const sessionList = sessionCols.map((c) => q(c.name)).join(', ');
  for (let i = 0; i < changed.length; i += CHUNK) {
    const part = changed.slice(i, i + CHUNK);
    const rows = (await client.query(`SELECT ${sessionList} FROM ${s}.sessions WHERE id = ANY($1::text[])`, [part.map((r) => r.id)])).rows;
    write();
    putSession(rows);
    for (const r of part) putHash.run(r.id, r.h);
  }
  result.sessionsCopied += changed.length;
  if (gone.length > 0) {
    write();
    const delSession = db.prepare('DELETE FROM sessions WHERE id = ?');
    const delHash = db.prepare('DELETE FROM hermetic_mirror_sessions WHERE id = ?');
    const delMessages = messageCols ? db.prepare('DELETE FROM messages WHERE session_id = ?') : null;
    const delMessageHashes = db.prepare('DELETE FROM hermetic_mirror_messages WHERE session_id = ?');
    const delEdits = db.prepare('DELETE FROM hermetic_mirror_edits WHERE session_id = ?');
    for (const id of gone) {
      delSession.run(id);
      delHash.run(id);
      result.messagesRemoved += delMessages?.run(id).changes ?? 0;
      delMessageHashes.run(id);
      delEdits.run(id);
    }
    result.sessionsRemoved += gone.length;
  }
  if (!messageCols) return;
  const messageList = messageCols.map((c) => `m.${q(c.name)}`).join(', ');
  const putMessage = putter(db, 'messages', messageCols);
  const putMessageHash = db.prepare('INSERT OR REPLACE INTO hermetic_mirror_messages (id, session_id, hash) VALUES (?, ?, ?)');
  const before = Number(meta.get('max_message_id') ?? 0);
  // Rows at or below the newest id copied, in sessions whose row changed: what a rewrite touched (a /retry deletes and
  // appends, a rewind or compaction flips `active`), and any row committed late with a lower id; and in sessions whose
  // edited columns changed with their row untouched.
  const known = changed.map((r) => r.id);
  if (edits !== 'none') {
    const recent = now.filter((r) => edits === 'all' || (r.at !== null && Number(r.at) >= job.now - job.editsWindow)).map((r) => r.id);
    const changedIds = new Set(known);
    for (const id of await editedSessions(client, job, db, shape, recent, write)) {
      if (changedIds.has(id)) continue;
      known.push(id);
      result.edited.push(id);
    }
  }
  for (let i = 0; i < known.length && before > 0; i += CHUNK) {
    const ids = known.slice(i, i + CHUNK);
    const there = (await client.query<{ id: string | number; session_id: string; h: string }>(`SELECT m.id, m.session_id, md5(ROW(m.*)::text) AS h FROM ${s}.messages m WHERE m.session_id = ANY($1::text[]) AND m.id <= $2`, [ids, before])).rows;
    const mine = db.prepare(`SELECT id, hash FROM hermetic_mirror_messages WHERE session_id IN (${ids.map(() => '?').join(', ')}) AND id <= ?`).raw().all(...ids, before) as [number, string][];
    const mineHash = new Map(mine);
    const seen = new Set<number>();
    const stale: number[] = [];
    for (const r of there) {
      const id = Number(r.id);
      seen.add(id);
      if (mineHash.get(id) !== r.h) stale.push(id);
    }
    const removed = mine.filter(([id]) => !seen.has(id)).map(([id]) => id);
    if (removed.length > 0) {
      write();
      const d1 = db.prepare('DELETE FROM messages WHERE id = ?');
      const d2 = db.prepare('DELETE FROM hermetic_mirror_messages WHERE id = ?');
      for (const id of removed) { d1.run(id); d2.run(id); }
      result.messagesRemoved += removed.length;
    }
    for (let j = 0; j < stale.length; j += PAGE) {
      const page = (await client.query(`SELECT ${messageList}, md5(ROW(m.*)::text) AS hermetic_hash FROM ${s}.messages m WHERE m.id = ANY($1::bigint[])`, [stale.slice(j, j + PAGE)])).rows;
      write();
      putMessage(page);
      for (const r of page) putMessageHash.run(r.id, r.session_id, r.hermetic_hash);
      result.messagesCopied += page.length;
    }
  }
  // Messages after the newest id copied, a page at a time.
  let last = before;
  for (;;) {
    const page = (await client.query(`SELECT ${messageList}, md5(ROW(m.*)::text) AS hermetic_hash FROM ${s}.messages m WHERE m.id > $1 ORDER BY m.id LIMIT ${PAGE}`, [last])).rows;
    if (page.length === 0) break;
    write();
    putMessage(page);
    for (const r of page) putMessageHash.run(r.id, r.session_id, r.hermetic_hash);
    result.messagesCopied += page.length;
    last = Number(page[page.length - 1]!.id);
  }
  if (last !== before) db.prepare('INSERT OR REPLACE INTO hermetic_mirror (key, value) VALUES (?, ?)').run('max_message_id', String(last));
}

/**
 * Of `sessions`, those whose rows' edited columns (EDITED) differ from what the mirror saw: a digest per session of
 * the rows with one of them set, computed by the server, against the one kept in hermetic_mirror_edits (updated here
 * for those that differ).
 */
async function editedSessions(client: pg.Client, job: MirrorJob, db: Db, shape: Shape, sessions: readonly string[], write: () => void): Promise<string[]> {
  const columns = EDITED.filter((c) => shape.tables.get('messages')?.some((x) => x.name === c));
  if (columns.length === 0 || sessions.length === 0) return [];
  const theirs = new Map<string, string>();
  for (let i = 0; i < sessions.length; i += CHUNK) {
    const rows = (await client.query<{ id: string; d: string }>(
      `SELECT m.session_id AS id, md5(string_agg(m.id::text || ':' || md5(ROW(${columns.map((c) => `m.${q(c)}`).join(', ')})::text), ',' ORDER BY m.id)) AS d
         FROM ${q(job.schema)}.messages m
        WHERE m.session_id = ANY($1::text[]) AND (${columns.map((c) => `m.${q(c)} IS NOT NULL`).join(' OR ')})
        GROUP BY m.session_id`, [sessions.slice(i, i + CHUNK)])).rows;
    for (const r of rows) theirs.set(r.id, r.d);
  }
  const mine = new Map(db.prepare('SELECT session_id, digest FROM hermetic_mirror_edits').raw().all() as [string, string][]);
  const differ = sessions.filter((id) => (theirs.get(id) ?? null) !== (mine.get(id) ?? null));
  if (differ.length > 0) {
    write();
    const put = db.prepare('INSERT OR REPLACE INTO hermetic_mirror_edits (session_id, digest) VALUES (?, ?)');
    const drop = db.prepare('DELETE FROM hermetic_mirror_edits WHERE session_id = ?');
    for (const id of differ) {
      const d = theirs.get(id);
      if (d === undefined) drop.run(id);
      else put.run(id, d);
    }
  }
  return differ;
}

/**
 * Opens a mirror file for writing: rollback journal (its commit stamp is the file's change counter), private, with
 * its table of edit digests.
 */
function openMirror(file: string): Db {
  const db = new Database(file);
  db.pragma('journal_mode = DELETE');
  db.pragma('busy_timeout = 5000');
  db.exec(EDITS_TABLE);
  return db;
}

/**
 * Brings the mirror up to date with the profile's PostgreSQL state: one connection, one read-only transaction,
 * closed before returning. Throws HermeticError HERMETIC_READER_PG_* (server unreachable, credentials refused, no
 * Hermes schema), or HERMETIC_DATASET_WRITE when the mirror file cannot be written; the password is in no message.
 * @example await refreshMirror({ url, schema: 'hermes_default_0123456789ab', identity, display, file: '/h/mirrors/x.db' })
 */
export async function refreshMirror(job: MirrorJob): Promise<MirrorResult> {
  const result: MirrorResult = { changed: false, rebuilt: false, sessionsCopied: 0, sessionsRemoved: 0, messagesCopied: 0, messagesRemoved: 0, edited: [], schemaVersion: null };
  await readOnly(job, async (client) => {
    if (!(await client.query('SELECT to_regclass($1) AS r', [`${q(job.schema)}.sessions`])).rows[0]?.r) {
      throw pgFailure(job, Object.assign(new Error(`schema "${job.schema}" holds no sessions table`), { code: '3F000' }));
    }
    const shape = await shapeOf(client, job.schema);
    const signature = JSON.stringify([...shape.tables].map(([t, c]) => [t, c, shape.keys.get(t) ?? []]));
    // The tables' oids: a table dropped and made again (a schema rebuilt, a restore) gets a new one, and its ids may
    // start again below those the mirror holds.
    const oids = (await client.query(`SELECT coalesce(string_agg(c.relname || '=' || c.oid::text, ',' ORDER BY c.relname), '') AS o FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = ANY($2) AND c.relkind IN ('r', 'p')`, [job.schema, [...TABLES]])).rows[0].o as string;
    makeDirs(dirname(job.file), 'HERMETIC_DATASET_WRITE', 0o700);
    let db: Db | null = existsSync(job.file) ? openMirror(job.file) : null;
    const meta = db ? metaOf(db) : new Map<string, string>();
    // Made again from nothing: no mirror yet, another source's, a column added or dropped, or tables made again.
    // Built beside and renamed over, so a half-made mirror is never read.
    const rebuild = !db || meta.get('source') !== job.identity || meta.get('shape') !== signature || meta.get('oids') !== oids;
    // A name of its own: two forwarders on one home may rebuild at once; the last rename wins, whole.
    const temp = `${job.file}.${process.pid}-${threadId}.new`;
    try {
      if (rebuild) {
        db?.close();
        rmSync(temp, { force: true });
        db = openMirror(temp);
        // The user's conversations: readable by the user alone, like the dataset.
        chmodSync(temp, 0o600);
        for (const stmt of mirrorDdl(shape)) db.prepare(stmt).run();
        db.prepare("INSERT INTO hermetic_mirror (key, value) VALUES ('oids', ?)").run(oids);
        await copyChanges(client, job, db, shape, true, result);
        db.close();
        db = null;
        renameSync(temp, job.file);
        rmSync(`${job.file}-journal`, { force: true });
        result.rebuilt = true;
        result.changed = true;
      } else {
        await copyChanges(client, job, db!, shape, false, result);
      }
      const version = shape.tables.has('schema_version') ? (await client.query(`SELECT max(version) AS v FROM ${q(job.schema)}.schema_version`)).rows[0]?.v : null;
      result.schemaVersion = version === null || version === undefined ? null : Number(version);
    } finally {
      db?.close();
      // A rebuild that failed leaves nothing behind (one that succeeded was renamed).
      rmSync(temp, { force: true });
      rmSync(`${temp}-journal`, { force: true });
    }
  });
  return result;
}
