// One pass over one store: the only place the stages meet (read → normalize/project → policy → write with cursors).
// Backfill and forward both run it; only the window and the origin differ.
import { HermeticError } from '../../shared/errors.js';
import type { CursorCache } from '../checkpoint/cursors.js';
import type { RecordOf } from '../dataset/columns.js';
import type { PolicyResolver } from '../policy/index.js';
// Types from the file itself: the public declarations must not reach better-sqlite3's (test/package).
import type { StoreRef } from '../reader/discover.js';
import { readStore, StoreReader } from '../reader/index.js';
import { changeStamp } from '../reader/stamp.js';
import { REMOVED, type Batch, type Sink } from '../sinks/sink.js';
import { SessionFeed } from './feed.js';
import type { ReadWorkerMode } from './read-mode.js';
import { judge } from './project.js';
import { backoffSeconds } from './quarantine.js';
import { batchCommitter, writeIsolated } from './write.js';

export interface StepOptions {
  sink: Sink;
  policy: PolicyResolver;
  redact: boolean;
  origin: 'backfill' | 'forward';
  /** Epoch seconds; only sessions active inside it are read (by last activity, spec forwarding §6.4 item 25). */
  window?: { since?: number | undefined; until?: number | undefined };
  /** Epoch seconds now (quarantine and tick times); injected, never read from the wall clock here. */
  now: () => number;
  /**
   * Sessions and messages per write transaction (default 20 and 500). A batch is held in memory until it is written:
   * small ones die young in V8's heap, so memory stays flat however large the store (decision 0027).
   */
  batchSessions?: number;
  batchMessages?: number;
  onProgress?: (done: number, total: number) => void;
  /**
   * Each store's commit stamp after the last complete pass (forward passes only): while it is unchanged nothing has
   * committed to the store, and the pass skips it without opening it (reader/stamp.ts).
   */
  stamps?: Map<string, string>;
  /** When each store's `last_tick_at` was last written (forward passes): an idle store says it is alive once a minute. */
  heartbeats?: Map<string, number>;
  /** Cursors kept in memory between passes (they follow commits); without it they are loaded every pass. */
  cursorCache?: CursorCache;
  /** Column maps per store, reused while the store's schema cookie is unchanged. */
  schemaCache?: Map<string, { cookie: number; columns: Map<string, Set<string>> }>;
  /** Whether a read worker reads sessions beside this thread (feed.ts; default `auto`). */
  readWorker?: ReadWorkerMode;
  /** A test hook: called before each batch is written (crash tests kill the process here). */
  beforeWrite?: (batch: Batch) => void;
}

export interface PolicyDrop { sessionId: string; scope: string | null; reason: string }

export interface StepResult {
  store: string;
  profile: string;
  backend: 'sqlite' | 'postgres';
  warning: string | null;
  /** How the store was read: in place (read-only), or through a private copy (decision 0017). */
  read: 'in-place' | 'copy' | null;
  schemaVersion: number | null;
  journalMode: string | null;
  replaced: boolean;
  sessionsSeen: number;
  sessionsUnchanged: number;
  sessionsOutsideWindow: number;
  sessionsWritten: number;
  sessionsIgnored: number;
  sessionsRemoved: number;
  sessionsQuarantined: number;
  sessionsWaiting: number;
  messages: number;
  parts: number;
  rowIssues: number;
  /** Sessions the read worker read and projected (the rest were read on the calling thread); decision 0027. */
  readByWorker: number;
  policyDrops: PolicyDrop[];
  error: { code: string; message: string } | null;
}

function emptyResult(ref: StoreRef): StepResult {
  return {
    store: ref.path, profile: ref.profile, backend: ref.backend, warning: ref.warning, read: null, schemaVersion: null,
    journalMode: null, replaced: false, sessionsSeen: 0, sessionsUnchanged: 0, sessionsOutsideWindow: 0, sessionsWritten: 0,
    sessionsIgnored: 0, sessionsRemoved: 0, sessionsQuarantined: 0, sessionsWaiting: 0, messages: 0, parts: 0,
    rowIssues: 0, readByWorker: 0, policyDrops: [], error: null,
  };
}

/**
 * Reads what changed in one store and writes it. Never throws for a store problem: the result carries the error.
 * @example const r = stepStore(ref, { sink, policy, redact: false, origin: 'forward', now: () => Date.now() / 1000 });
 */
export function stepStore(ref: StoreRef, options: StepOptions): StepResult {
  const result = emptyResult(ref);
  const { sink } = options;
  const storeRow = (extra: RecordOf): RecordOf => ({
    store: ref.path, profile: ref.profile, identity: null, schema_version: result.schemaVersion, journal_mode: result.journalMode,
    read_mode: result.read, max_message_id: 0, last_tick_at: null, last_error: null, ...extra,
  });
  if (!ref.exists) {
    result.error = { code: 'HERMETIC_READER_OPEN', message: `${ref.path} does not exist${ref.backend === 'postgres' ? ' (this profile uses the PostgreSQL backend)' : ''}` };
    return result;
  }
  const cursors = options.cursorCache ? options.cursorCache.load(ref.path) : sink.cursors(ref.path);
  const commit = batchCommitter(sink, options.cursorCache);
  /** A batch that only updates the store's row (health, heartbeat), starting from the row last committed. */
  const storeOnly = (change: RecordOf): Batch => ({
    store: { ...(cursors.row ?? storeRow({ identity: cursors.identity, max_message_id: cursors.maxMessageId, usage_stamp: cursors.usageStamp })), ...change },
    reset: false, writes: [], removed: [], quarantine: { failed: [], cleared: [] },
  });
  // Nothing committed since the last complete pass, and nobody waits in quarantine: nothing to read.
  const stamp = options.stamps ? changeStamp(ref.path) : null;
  const due = [...cursors.quarantine.values()].some((q) => q.retryAt <= options.now());
  if (stamp !== null && !due && cursors.identity !== null && options.stamps!.get(ref.path) === stamp) {
    result.sessionsUnchanged = [...cursors.sessions.values()].filter((c) => c.fingerprint !== REMOVED).length;
    result.sessionsSeen = result.sessionsUnchanged + cursors.quarantine.size;
    result.sessionsWaiting = cursors.quarantine.size;
    // Nothing to read, but `hermetic status` should see a running forwarder: last_tick_at moves once a minute.
    const now = options.now();
    if (options.heartbeats && now - (options.heartbeats.get(ref.path) ?? 0) >= 60) {
      try {
        commit(storeOnly({ last_tick_at: now, last_error: null }));
        options.heartbeats.set(ref.path, now);
      } catch (e) {
        result.error = { code: (e as HermeticError).code ?? 'HERMETIC_DATASET_WRITE', message: (e as Error).message };
      }
    }
    return result;
  }
  try {
    readStore(ref.path, (db, how) => {
      result.read = how;
      const reader = new StoreReader(db, ref.path, options.schemaCache);
      const { facts, marks, fresh, usage, usageChanged } = reader.snapshot(() => {
        const f = reader.facts();
        const replaced = cursors.identity !== null && cursors.identity !== f.identity;
        const u = reader.usageStamp();
        // Auxiliary usage touches only session_model_usage. While its store-wide stamp is the one last committed,
        // no session's usage moved; else each session's usage mark is compared with its cursor's.
        const changed = u === null || (!replaced && cursors.usageStamp === u.stamp) ? null : reader.usageMarks();
        // With no cursor at all (a first backfill) every session is read anyway: no need to look for new ids.
        const fresh = cursors.sessions.size === 0 ? new Map<string, number>() : reader.newMessages(replaced ? 0 : cursors.maxMessageId);
        return { facts: f, marks: reader.marks(), fresh, usage: u, usageChanged: changed };
      });
      result.schemaVersion = facts.schemaVersion;
      result.journalMode = facts.journalMode;
      result.replaced = cursors.identity !== null && cursors.identity !== facts.identity;
      const known = result.replaced ? new Map() : cursors.sessions;
      result.sessionsSeen = marks.length;
      const now = options.now();
      const present = new Set(marks.map((m) => m.id));
      // Sessions the store no longer has (also across a replacement: a restored file may lack some).
      const removed = [...cursors.sessions].filter(([id, c]) => !present.has(id) && c.fingerprint !== REMOVED).map(([id]) => id);
      result.sessionsRemoved = removed.length;

      // Which sessions to read: changed ones (fingerprint or new messages), not waiting in quarantine, in the window.
      let todo = marks.filter((m) => {
        const cur = known.get(m.id);
        const usageSame = usageChanged === null || (usageChanged.get(m.id) ?? '') === cur?.usageMark;
        if (cur && cur.fingerprint === m.fingerprint && (fresh.get(m.id) ?? 0) <= cur.maxMessageId && usageSame) { result.sessionsUnchanged++; return false; }
        const q = cursors.quarantine.get(m.id);
        if (q && q.retryAt > now) { result.sessionsWaiting++; return false; }
        return true;
      });
      const w = options.window;
      if (w && (w.since !== undefined || w.until !== undefined)) {
        // Last activity includes the last message: a session without a heartbeat is judged by it, both ways.
        const last = reader.lastMessageAt(todo.map((m) => m.id));
        todo = todo.filter((m) => {
          const activity = Math.max(m.activity, last.get(m.id) ?? 0);
          const inside = (w.since === undefined || activity >= w.since) && (w.until === undefined || activity <= w.until);
          if (!inside) result.sessionsOutsideWindow++;
          return inside;
        });
      }

      const identity = facts.identity;
      const batchSessions = options.batchSessions ?? 20;
      const batchMessages = options.batchMessages ?? 500;
      let done = 0;
      let reset = result.replaced;
      let taken = 0;
      let first = true;
      options.onProgress?.(0, todo.length);
      // Sessions come read and projected, in the order they are ready (feed.ts: here, or by the read worker).
      const feed = new SessionFeed({
        reader, ref, redact: options.redact, origin: options.origin, ids: todo.map((m) => m.id),
        ledgerOf: (id) => cursors.sessions.get(id)?.ledger ?? null, mode: options.readWorker ?? 'auto',
        // The worker may run a few batches ahead of the writes (what it posted waits packed, outside the heap).
        window: { sessions: batchSessions * 4, messages: batchMessages * 4 },
      });
      try {
        for (;;) {
          const batch: Batch = { store: {}, reset, writes: [], removed: first ? removed.splice(0) : [], quarantine: { failed: [], cleared: [] } };
          reset = false;
          first = false;
          let messages = 0;
          while (taken < todo.length && batch.writes.length < batchSessions && messages < batchMessages) {
            const item = feed.next();
            if (item === null) throw new HermeticError('HERMETIC_INTERNAL', `The pass over ${ref.path} ran out of sessions: ${taken} of ${todo.length} read.`);
            taken++;
            const mark = todo[item.index]!;
            if (item.read === null) continue; // deleted since the marks were read: the next pass marks it removed
            const write = 'error' in item.read ? item.read : judge(mark.id, mark.fingerprint, item.read, options.policy, result);
            if ('error' in write) {
              const failures = (cursors.quarantine.get(mark.id)?.failures ?? 0) + 1;
              batch.quarantine.failed.push({ sessionId: mark.id, error: write.error, failures, retryAt: now + backoffSeconds(failures) });
              result.sessionsQuarantined++;
              continue;
            }
            if (write.projection) messages += write.projection.messages.length;
            batch.writes.push(write);
            if (cursors.quarantine.has(mark.id)) batch.quarantine.cleared.push(mark.id);
          }
          const last = taken >= todo.length;
          batch.store = storeRow({
            identity, max_message_id: last ? facts.maxMessageId : result.replaced ? 0 : cursors.maxMessageId,
            usage_stamp: last ? usage?.stamp ?? null : result.replaced ? null : cursors.usageStamp, last_tick_at: last ? options.now() : null,
          });
          options.beforeWrite?.(batch);
          const written = writeIsolated(commit, batch, (id) => (cursors.quarantine.get(id)?.failures ?? 0) + 1, now, result);
          for (const wr of written) {
            if (wr.projection) { result.sessionsWritten++; result.messages += wr.projection.messages.length; result.parts += wr.projection.parts.length; result.rowIssues += wr.projection.issues.length; }
            else result.sessionsIgnored++;
          }
          done += batch.writes.length + batch.quarantine.failed.length;
          options.onProgress?.(done, todo.length);
          if (last) break;
        }
      } finally {
        result.readByWorker += feed.readByWorker;
        feed.close();
      }
    });
    if (stamp !== null) options.stamps!.set(ref.path, stamp);
    options.heartbeats?.set(ref.path, options.now());
  } catch (e) {
    const err = e instanceof HermeticError ? e : new HermeticError('HERMETIC_READER_OPEN', `Cannot read ${ref.path}: ${(e as Error).message}.`);
    result.error = { code: err.code, message: err.message };
    try {
      commit(storeOnly({ last_error: err.message }));
    } catch { /* the dataset itself failing is reported by the caller's next write */ }
  }
  return result;
}
