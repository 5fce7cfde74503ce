// `hermetic status`: what the forwarder sees and has done — stores (path, profile, schema, journal, backend),
// cursors, rows per table, last tick, last error, quarantined sessions. Bounded: counts, never whole cursor maps.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseFlags } from '../../cli/args.js';
import { findStores, hermeticHome } from '../pipeline/forwarder.js';
import { storeFailure } from '../reader/index.js';
import { spelledAsKnown, storeFile } from '../reader/discover.js';
import { pendingOf, type Pending } from '../pipeline/pending.js';
import { stillIgnored } from '../pipeline/project.js';
import { createPolicyResolver } from '../policy/index.js';
import { HermeticError } from '../../shared/errors.js';
import { DATASET_FILE, openDatasetReadOnly } from '../sinks/sqlite/dataset.js';
import { readCursors } from '../sinks/sqlite/sink.js';
import type { Cursors } from '../sinks/sink.js';
import { sinkStatus, type SinkStatus } from '../sinks/remote/status.js';
import { datasetSetting } from '../sinks/sqlite/ledger.js';
import { liveBuilds } from '../sinks/sqlite/build-files.js';
import { COUNTED_TABLES, tableRows } from '../sinks/sqlite/row-counts.js';
import { byteSize, COMMON_FLAGS, errorKind, plural, whereLooked, type ErrorKind } from './common.js';
import { STATUS_HELP } from './help.js';
import { terminalSafeJson, terminalText } from '../../shared/terminal-text.js';

interface StoreStatus {
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

const NO_CURSORS = (): Cursors => ({ row: null, identity: null, maxMessageId: 0, usageStamp: null, sessions: new Map(), quarantine: new Map() });

/** A lag as a person reads it: 42 s, 3 min, 5 h 10 min, 2 d 4 h. */
export function lagText(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86400) return `${Math.floor(s / 3600)} h${s % 3600 >= 60 ? ` ${Math.floor((s % 3600) / 60)} min` : ''}`;
  return `${Math.floor(s / 86400)} d${s % 86400 >= 3600 ? ` ${Math.floor((s % 86400) / 3600)} h` : ''}`;
}

const iso = (t: number | null | undefined) => (typeof t === 'number' ? new Date(t * 1000).toISOString() : null);

export async function statusCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, COMMON_FLAGS);
  if (values.help) return console.log(STATUS_HELP), 0;
  const home = resolve(hermeticHome(values.home));
  const datasetPath = join(home, DATASET_FILE);
  const db = existsSync(datasetPath) ? openDatasetReadOnly(home) : null;
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
    const refs = spelledAsKnown(findStores({ stateDbs: values['state-db'] ?? [] }), known);
    for (const k of known) if (!refs.some((r) => r.path === k)) refs.push({ path: k, profile: '?', hermesHome: '', backend: 'sqlite', warning: null, ...storeFile(k) });
    const stores: StoreStatus[] = [];
    for (const r of refs) {
      let schema: number | null = null, journal: string | null = null, readError: string | null = null, kind: ErrorKind | null = null;
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
        readError = `${r.path} ${why}${r.backend === 'postgres' ? ': this profile uses the PostgreSQL backend' : why === 'does not exist' ? ' (yet: forward waits for Hermes to create it)' : ''}`;
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
      const row = db?.prepare('SELECT * FROM stores WHERE store = ?').get(r.path) as Record<string, unknown> | undefined;
      const issuesOf = (store: string) => (db?.prepare('SELECT COUNT(*) AS entries, COUNT(DISTINCT session_id || char(0) || message_id) FILTER (WHERE message_id > 0) AS messages, COUNT(DISTINCT session_id) AS sessions FROM row_issues WHERE store = ?').get(store) as StoreStatus['row_issues'] | undefined) ?? { entries: 0, messages: 0, sessions: 0 };
      const quarantined = db ? (db.prepare('SELECT session_id, failures, last_error, retry_at FROM quarantine WHERE store = ? ORDER BY retry_at LIMIT 20').all(r.path) as { session_id: string; failures: number; last_error: string; retry_at: number }[]).map((q) => ({ ...q, retry_at: iso(q.retry_at)! })) : [];
      stores.push({
        path: r.path, profile: row?.profile as string ?? r.profile, exists: r.exists, backend: r.backend, warning: r.warning,
        connection: r.source?.display ?? null,
        schema_version: schema, journal_mode: journal, read_error: readError, error_kind: kind ?? (quarantined.length > 0 ? 'quarantine' : null),
        identity: pending?.facts.identity ?? null, replaced: pending?.replaced ?? false,
        cursor_max_message_id: (row?.max_message_id as number | undefined) ?? null,
        sessions_tracked: db ? (db.prepare('SELECT COUNT(*) FROM session_cursors WHERE store = ?').pluck().get(r.path) as number) : 0,
        last_tick_at: iso(row?.last_tick_at as number | null), last_error: (row?.last_error as string | null) ?? null,
        row_issues: issuesOf(r.path),
        pending: pending && { sessions: pending.sessions, messages: pending.messages, removed: pending.removed, waiting: pending.waiting, undecodable: pending.undecodable, delegations: pending.delegations, orphan_messages: pending.orphans.messages, orphan_sessions: pending.orphans.sessions, oldest_at: iso(pending.oldestAt), lag_seconds: pending.oldestAt === null ? null : Math.max(0, Math.round(now - pending.oldestAt)) },
        quarantined,
      });
    }
    // Kept exact by the writer in the transactions that change the rows (decision 0069): read, not counted.
    const rows = db ? tableRows(db) : Object.fromEntries(COUNTED_TABLES.map((t) => [t, 0]));
    const sinks: SinkStatus[] = db ? sinkStatus(db, Date.now() / 1000) : [];
    // A first backfill builds the dataset aside and publishes it when its pass ends (decision 0058): said, not "none".
    const building = db ? null : (liveBuilds(home)[0] ?? null);
    const report = { dataset: datasetPath, dataset_exists: db !== null, dataset_building: building && { pid: building.pid, bytes: building.bytes }, usage_policy_error: policyError, stores, rows, sinks };
    if (values.json) {
      console.log(terminalSafeJson(JSON.stringify(report, null, 2)));
      return 0;
    }
    const redacted = db ? datasetSetting(db, 'redact') === 'on' : false;
    const missing = building ? ` (not created yet: the first pass of a backfill or forward, process ${building.pid}, is writing it, ${byteSize(building.bytes)} so far; it appears when that pass ends)` : ' (not created yet; run hermetic backfill)';
    console.log(`dataset: ${datasetPath}${db ? (redacted ? ' (text stored through the secret redactor)' : '') : missing}`);
    console.log(`rows: ${Object.entries(rows).map(([k, v]) => `${k} ${v}`).join(', ')}`);
    if (policyError) console.log(`usage policy: ${policyError}; nothing is forwarded until it is fixed`);
    if (stores.length === 0) console.log(`stores: none found (looked for ${whereLooked()})`);
    for (const s of stores) {
      console.log(`store ${s.path} (profile ${s.profile}, ${s.backend} backend)`);
      if (s.connection) console.log(`  connection: ${s.connection}`);
      if (s.backend === 'postgres' && s.read_error) console.log(`  cannot read: ${s.read_error}`);
      else if (s.backend === 'postgres') console.log(`  schema v${s.schema_version ?? '?'}, read through a local mirror`);
      else if (!s.exists) console.log(`  missing: ${s.read_error}`);
      else console.log(`  schema v${s.schema_version ?? '?'}, ${s.journal_mode ?? '?'} journal${s.read_error ? `; cannot read: ${s.read_error}` : ''}`);
      if (s.identity) console.log(`  identity: ${s.identity}${s.replaced ? ' (replaced since it was last read: the next pass reads it whole)' : ''}`);
      if (s.warning && s.warning !== s.read_error) console.log(`  warning: ${s.warning}`);
      console.log(`  cursor: message id ${s.cursor_max_message_id ?? '-'}, ${s.sessions_tracked} sessions tracked, last tick ${s.last_tick_at ?? 'never'}`);
      if (s.pending) console.log(`  ${pendingText(s.pending)}`);
      // Status reads the dataset and files only: what PostgreSQL holds beyond the mirror is the next pass's to find.
      else if (s.backend === 'postgres' && !s.read_error) console.log('  pending: not counted (status does not query PostgreSQL; the next backfill or forward reads what changed)');
      if (s.last_error) console.log(`  last error: ${terminalText(s.last_error)}`);
      if (s.row_issues.entries > 0) console.log(`  ${rowIssuesText(s.row_issues)}`);
      // The id and the error come from the store: shown harmless (terminalText), as report shows them.
      for (const q of s.quarantined) console.log(`  quarantined: ${terminalText(q.session_id)} (${plural(q.failures, 'failure')}, retry after ${q.retry_at}): ${terminalText(q.last_error)}`);
    }
    for (const k of sinks) {
      console.log(`sink ${k.display}`);
      const lag = k.lag_rows === 0 && !k.snapshot ? 'up to date' : sinkLagText(k);
      console.log(`  acked seq ${k.acked_seq}, ${lag}; ${plural(k.shipped_rows, 'row')} sent; last ack ${k.acked_at ?? 'never'}`);
      // A retry time passed is not a retry under way: only a backfill or forward that feeds the sink tries again.
      // On a line of its own: the error ends in its code, which a retry clause would split from its sentence.
      const retry = k.retry_at === null ? null : Date.parse(k.retry_at) > Date.now() ? `next retry after ${k.retry_at}` : 'tried again by the next backfill or forward that feeds it (--sink URL, or sinks: in the config file)';
      if (k.last_error) console.log(`  last error (${plural(k.failures, 'failure')}): ${k.last_error}${retry ? `\n  ${retry}` : ''}`);
      else if (k.lag_rows > 0 || k.snapshot_pending) console.log('  fed by a backfill or forward that names it (--sink URL, or sinks: in the config file); hermetic sinks remove URL stops it');
    }
    return 0;
  } finally {
    db?.close();
  }
}

/**
 * How far a sink is behind: its first copy (not sent yet, or the table it is at), then the changes made since, and
 * for how long it has not held everything.
 */
export function sinkLagText(k: SinkStatus): string {
  const since = k.lag_seconds > 0 ? `, ${Math.round(k.lag_seconds)} s` : '';
  if (!k.snapshot) return `${plural(k.lag_rows, 'change')} behind${since}`;
  const copy = k.snapshot.started ? `first copy under way (at ${k.snapshot.table}, ${k.snapshot.tables_done} of ${k.snapshot.tables} tables sent)` : 'first copy not sent yet (the whole dataset)';
  return `${copy}${k.lag_rows > 0 ? `, then ${plural(k.lag_rows, 'change')} made since` : ''}${since}`;
}

/** The store's row-issues line: the values changed or left out, and the messages and sessions they touch. */
export function rowIssuesText(issues: StoreStatus['row_issues']): string {
  return `row issues: ${plural(issues.entries, 'value')} changed or left out, in ${plural(issues.messages, 'message')} of ${plural(issues.sessions, 'session')} (hermetic query "SELECT * FROM row_issues")`;
}

/** The store's pending line: what the next pass would read, and how long the oldest change has waited. */
function pendingText(p: NonNullable<StoreStatus['pending']>): string {
  const parts: string[] = [];
  if (p.sessions > 0) {
    // No time: every one changed in place (a field, a settled cost, a new dataset version), with no new activity.
    const lag = p.lag_seconds === null ? '' : `, the oldest change ${lagText(p.lag_seconds)} ago (${p.oldest_at})`;
    parts.push(`${plural(p.sessions, 'session')} to read (${plural(p.messages, 'new message')}${p.lag_seconds === null ? '; changed in place, no new activity' : ''})${lag}`);
  }
  if (p.removed > 0) parts.push(`${plural(p.removed, 'session')} Hermes has deleted`);
  if (p.waiting > 0) parts.push(`${plural(p.waiting, 'session')} waiting in quarantine`);
  if (p.delegations > 0) parts.push(`${plural(p.delegations, 'background delegation')} to write`);
  const aside = [
    p.undecodable > 0 ? `${plural(p.undecodable, 'session')} cannot be read (${p.undecodable === 1 ? 'its id is' : 'their ids are'} not valid UTF-8 text)` : '',
    p.orphan_messages > 0 ? `${plural(p.orphan_messages, 'message')} of ${plural(p.orphan_sessions, 'session')} with no row in the store's sessions table (not read until Hermes writes ${p.orphan_sessions === 1 ? 'it' : 'them'})` : '',
  ].filter(Boolean).map((t) => `; ${t}`).join('');
  if (parts.length === 0) return `pending: nothing${aside ? '' : ', the dataset holds everything the store has'}${aside}`;
  return `pending: ${parts.join('; ')}${aside}`;
}
