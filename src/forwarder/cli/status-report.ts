// What `hermetic status` knows, as data: the dataset (rows, sinks, a first build under way), each store (its facts,
// cursors, what the next pass would read, quarantine, row issues) and the usage policy's list. Read only; rendered
// as text or JSON by cli/status.ts. Bounded: counts, never whole cursor maps.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { findStores } from '../pipeline/stores.js';
import { storeFailure } from '../reader/index.js';
import { spelledAsKnown, storeFile, type StoreRef } from '../reader/discover.js';
import type { Db } from '../../shared/sqlite.js';
import { pendingOf, type Pending } from '../pipeline/pending.js';
import { judgeScopes, stillIgnored } from '../pipeline/project.js';
import { sessionsWithScopes } from '../pipeline/dataset-scopes.js';
import { createPolicyResolver, type PolicyResolver } from '../policy/index.js';
import { HermeticError } from '../../shared/errors.js';
import { DATASET_FILE, openDatasetReadOnly } from '../sinks/sqlite/dataset.js';
import { readCursors } from '../sinks/sqlite/sink.js';
import type { Cursors } from '../sinks/sink.js';
import { sinkStatus, type SinkStatus } from '../sinks/remote/status.js';
import { datasetSetting } from '../sinks/sqlite/ledger.js';
import { liveBuilds } from '../sinks/sqlite/build-files.js';
import { COUNTED_TABLES, tableRows } from '../sinks/sqlite/row-counts.js';
import { errorKind, type ErrorKind } from './common.js';

export interface StoreStatus {
  path: string; profile: string; exists: boolean; backend: string; warning: string | null;
  /** A PostgreSQL store's connection, the password redacted (decision 0038); null for a state.db. */
  connection: string | null;
  schema_version: number | null; journal_mode: string | null;
  /**
   * Device and inode, schema version and file generation, as read now (null when it cannot be read); `replaced`:
   * not the file the dataset read last (spec forwarding §6.3 item 18), so the next pass reads it whole.
   */
  identity: string | null; replaced: boolean;
  /** Why the store cannot be read now (missing, not SQLite, locked…), or null. */
  read_error: string | null;
  /**
   * The store's state as the forwarder's JSON lines name it (decision 0052): the kind of `read_error`, else
   * `quarantine` while sessions wait in quarantine, else null.
   */
  error_kind: ErrorKind | null;
  cursor_max_message_id: number | null; sessions_tracked: number; last_tick_at: string | null; last_error: string | null;
  /** Values changed or left out on the way into the dataset (issue 16 §5): entries, and the messages and sessions they touch. */
  row_issues: { entries: number; messages: number; sessions: number };
  quarantined: { session_id: string; failures: number; last_error: string; retry_at: string }[];
  /**
   * Sessions forwarded before whose folder the usage policy now ignores (decisions 0063, 0144): they stay in the
   * dataset until `hermetic forget` removes them; `why` is the policy's reason for the first of them.
   */
  ignored_in_dataset: { sessions: number; why: string | null };
  /**
   * What the dataset does not hold yet (spec forwarding §6.3 item 23): what the next pass would read, and how long
   * the oldest of it has waited. Null when the store cannot be read here (missing, unreadable, PostgreSQL).
   */
  pending: {
    sessions: number; messages: number; removed: number; waiting: number; undecodable: number; delegations: number;
    /** Messages whose session has no row in the store, and those sessions: not forwarded until Hermes writes the rows. */
    orphan_messages: number; orphan_sessions: number;
    oldest_at: string | null; lag_seconds: number | null;
  } | null;
}

/** What `status --json` prints. */
export interface StatusReport {
  dataset: string;
  dataset_exists: boolean;
  /** A first backfill's build under way (decision 0058), when there is no dataset yet. */
  dataset_building: { pid: number; bytes: number } | null;
  /**
   * The dataset file's size and how much of it is free pages (left by deletes, or by an upgrade that stored tables
   * again: decision 0172), which SQLite reuses for later writes and only a VACUUM gives back; null without a dataset.
   */
  dataset_size: { bytes: number; free_bytes: number } | null;
  usage_policy_error: string | null;
  stores: StoreStatus[];
  rows: Record<string, number>;
  sinks: SinkStatus[];
}

/** The dataset file's pages, all and free, in bytes (the -wal file aside). */
function datasetSize(db: Db): { bytes: number; free_bytes: number } {
  const page = db.pragma('page_size', { simple: true }) as number;
  return { bytes: (db.pragma('page_count', { simple: true }) as number) * page, free_bytes: (db.pragma('freelist_count', { simple: true }) as number) * page };
}

const NO_CURSORS = (): Cursors => ({ row: null, identity: null, maxMessageId: 0, usageStamp: null, sessions: new Map(), quarantine: new Map() });

const iso = (t: number | null | undefined) => (typeof t === 'number' ? new Date(t * 1000).toISOString() : null);

/**
 * `db` when it holds a dataset, else null (closed): an empty file, or another SQLite file, named hermetic.db has version 0
 * and none of its tables yet; the next pass makes them in it (as report's upgrade does), so it reads as not created.
 */
function heldDataset(db: Db): Db | null {
  if (db.pragma('user_version', { simple: true }) !== 0) return db;
  db.close();
  return null;
}

/**
 * Everything `status` says of the dataset in `home` and the stores it reads (`stateDbs` as --state-db gives them),
 * and whether the dataset stores text through the redactor (said on the terminal, not in the JSON).
 * @example const { report } = await statusReport('/home/me/.hermetic', []);
 */
export async function statusReport(home: string, stateDbs: readonly string[]): Promise<{ report: StatusReport; redacted: boolean }> {
  const datasetPath = join(home, DATASET_FILE);
  const db = existsSync(datasetPath) ? heldDataset(openDatasetReadOnly(home)) : null;
  // Sessions the usage policy ignored count as pending once it no longer does (the next pass reads them).
  const resolver = createPolicyResolver({ stateDir: home, now: Date.now });
  const ignored = stillIgnored(resolver);
  // A usage-policy list that cannot be read stops every pass (fail closed): said first, as the reason nothing moves.
  let policyError: string | null = null;
  try {
    resolver.checkList();
  } catch (e) {
    if (!(e instanceof HermeticError)) throw e;
    policyError = `${e.message} [${e.code}]`;
  }
  try {
    const known = db ? (db.prepare('SELECT store FROM stores').pluck().all() as string[]) : [];
    const refs = spelledAsKnown(findStores({ stateDbs: [...stateDbs] }), known);
    for (const k of known) if (!refs.some((r) => r.path === k)) refs.push({ path: k, profile: '?', hermesHome: '', backend: 'sqlite', warning: null, ...storeFile(k) });
    const stores: StoreStatus[] = [];
    const ignoredNow = db && policyError === null ? ignoredInDataset(db, resolver) : new Map<string, StoreStatus['ignored_in_dataset']>();
    for (const r of refs) stores.push(await storeStatus(r, db, ignored, ignoredNow.get(r.path) ?? { sessions: 0, why: null }));
    // Kept exact by the writer in the transactions that change the rows (decision 0069): read, not counted.
    const rows = db ? tableRows(db) : Object.fromEntries(COUNTED_TABLES.map((t) => [t, 0]));
    const sinks: SinkStatus[] = db ? sinkStatus(db, Date.now() / 1000) : [];
    // A first backfill builds the dataset aside and publishes it when its pass ends (decision 0058): said, not "none".
    const building = db ? null : (liveBuilds(home)[0] ?? null);
    const report: StatusReport = { dataset: datasetPath, dataset_exists: db !== null, dataset_building: building && { pid: building.pid, bytes: building.bytes }, dataset_size: db ? datasetSize(db) : null, usage_policy_error: policyError, stores, rows, sinks };
    return { report, redacted: db ? datasetSetting(db, 'redact') === 'on' : false };
  } finally {
    db?.close();
  }
}

/**
 * The dataset's sessions the usage policy would ignore now, by store: forwarded before their folder became `ignore`,
 * kept until `hermetic forget` (a pass never removes them unless they change in Hermes). Judged as a pass judges them.
 */
function ignoredInDataset(db: Db, policy: PolicyResolver): Map<string, StoreStatus['ignored_in_dataset']> {
  const out = new Map<string, StoreStatus['ignored_in_dataset']>();
  for (const { row, scopes } of sessionsWithScopes(db)) {
    const verdict = judgeScopes(scopes, policy);
    if ('error' in verdict || verdict.cls !== 'ignore') continue;
    const store = out.get(row.store) ?? { sessions: 0, why: verdict.why || null };
    store.sessions++;
    out.set(row.store, store);
  }
  return out;
}

/** What `status` says of one store: read once, read-only (a PostgreSQL store: its server asked for its version only). */
async function storeStatus(r: StoreRef, db: Db | null, ignored: ReturnType<typeof stillIgnored>, ignoredNow: StoreStatus['ignored_in_dataset']): Promise<StoreStatus> {
  let schema: number | null = null, journal: string | null = null, readError: string | null = null, kind: ErrorKind | null = null;
  const row = db?.prepare('SELECT * FROM stores WHERE store = ?').get(r.path) as Record<string, unknown> | undefined;
  if (r.problem) [readError, kind] = [`${r.problem.message} [${r.problem.code}]`, errorKind(r.problem)];
  else if (r.source) {
    // Asked of the server itself, read-only, on a short connection: is the source there, and which version is it.
    try {
      const { pgSchemaVersion } = await import('../reader/postgres/connect.js');
      schema = await pgSchemaVersion(r.source);
      journal = 'postgres';
    } catch (e) {
      if (!(e instanceof HermeticError)) throw e;
      [readError, kind] = [`${e.message} [${e.code}]`, errorKind(e)];
    }
  } else if (!r.exists) {
    const why = r.backend === 'postgres' ? 'does not exist' : r.absent ?? 'does not exist';
    // Never read: Hermes has yet to make it. Read before: it was removed, and forward reads it again once it is back.
    const wait = row?.last_tick_at ? ' (it was read before: forward waits for it to come back)' : ' (yet: forward waits for Hermes to create it)';
    readError = `${r.path} ${why}${r.backend === 'postgres' ? ': this profile uses the PostgreSQL backend' : why === 'does not exist' ? wait : ''}`;
    kind = 'missing';
  }
  let pending: Pending | null = null;
  const now = Date.now() / 1000;
  if (readError === null && r.exists && !r.source && !r.problem) {
    // One read of the store: its facts (schema, journal, identity) and what the next pass would read.
    try {
      const seen = db ? new Map(db.prepare('SELECT session_id, last_activity_at FROM sessions WHERE store = ?').raw().all(r.path) as [string, number][]) : new Map<string, number>();
      pending = pendingOf(r.path, db ? readCursors(db, r.path, false) : NO_CURSORS(), now, seen, ignored);
      schema = pending.facts.schemaVersion;
      journal = pending.facts.journalMode;
    } catch (e) {
      const failure = storeFailure(r.path, e);
      if (failure === null) throw e;
      [readError, kind] = [failure.message, errorKind(failure)];
    }
  }
  const issues = (db?.prepare('SELECT COUNT(*) AS entries, COUNT(DISTINCT session_id || char(0) || message_id) FILTER (WHERE message_id > 0) AS messages, COUNT(DISTINCT session_id) AS sessions FROM row_issues WHERE store = ?').get(r.path) as StoreStatus['row_issues'] | undefined) ?? { entries: 0, messages: 0, sessions: 0 };
  const quarantined = db ? (db.prepare('SELECT session_id, failures, last_error, retry_at FROM quarantine WHERE store = ? ORDER BY retry_at LIMIT 20').all(r.path) as { session_id: string; failures: number; last_error: string; retry_at: number }[]).map((q) => ({ ...q, retry_at: iso(q.retry_at)! })) : [];
  return {
    path: r.path, profile: row?.profile as string ?? r.profile, exists: r.exists, backend: r.backend, warning: r.warning,
    connection: r.source?.display ?? null,
    schema_version: schema, journal_mode: journal, read_error: readError, error_kind: kind ?? (quarantined.length > 0 ? 'quarantine' : null),
    identity: pending?.facts.identity ?? null, replaced: pending?.replaced ?? false,
    cursor_max_message_id: (row?.max_message_id as number | undefined) ?? null,
    sessions_tracked: db ? (db.prepare('SELECT COUNT(*) FROM session_cursors WHERE store = ?').pluck().get(r.path) as number) : 0,
    last_tick_at: iso(row?.last_tick_at as number | null), last_error: (row?.last_error as string | null) ?? null,
    row_issues: issues,
    pending: pending && { sessions: pending.sessions, messages: pending.messages, removed: pending.removed, waiting: pending.waiting, undecodable: pending.undecodable, delegations: pending.delegations, orphan_messages: pending.orphans.messages, orphan_sessions: pending.orphans.sessions, oldest_at: iso(pending.oldestAt), lag_seconds: pending.oldestAt === null ? null : Math.max(0, Math.round(now - pending.oldestAt)) },
    quarantined,
    ignored_in_dataset: ignoredNow,
  };
}
