// One pass over one store: where the stages meet (plan → read/project → policy → write with cursors); the pipeline's
// delegations.ts, edits.ts and chunks.ts join them for one kind of row each.
// Backfill and forward both run it; only the window and the origin differ. The stages return what they did; this
// module (with long-session.ts, its part for sessions longer than a chunk) counts it into the StepResult.
import type { CursorCache } from '../checkpoint/cursors.js';
import type { RecordOf } from '../dataset/columns.js';
import type { SessionDelta } from '../dataset/delta.js';
import type { PolicyResolver } from '../policy/index.js';
// Types from the file itself: the public declarations must not reach better-sqlite3's (test/package).
import type { StoreRef } from '../reader/discover.js';
import { openStore, storeFailure, StoreReader, type SessionMark, type StoreConnection } from '../reader/index.js';
import { BUSY_TIMEOUT_MS, isLock, LOCK_PATIENCE_MS, LOCK_SLICE_MS } from '../reader/connection.js';
import { changeStamp } from '../reader/stamp.js';
import type { MirrorResult } from '../reader/postgres/mirror.js';
import { mirrorJob } from '../reader/postgres/settings.js';
import { refreshMirrorSync } from '../reader/postgres/thread.js';
import { REMOVED, type Batch, type CursorBase, type Cursors, type Sink, type Written } from '../sinks/sink.js';
import { HermeticError } from '../../shared/errors.js';
import { delegationChanges, marksOf } from './delegations.js';
import { SETTLED_INTERVAL, WATCH_SECONDS, type EditChecks } from './edits.js';
import { IGNORED, PARTIAL, standingFingerprint } from './cursor-marks.js';
import { SessionFeed, warmIfWorth, WorkerQuiet, type FeedItem } from './feed.js';
import { planPass, type PassPlan } from './plan.js';
import { CHUNK, type ChunkSize } from './chunk-size.js';
import type { Prior } from './read-session.js';
import { judge, stillIgnored } from './project.js';
import { backoffSeconds, stillWaiting } from './quarantine.js';
import type { ReadWorkerMode } from './read-mode.js';
import type { WorkerWhere } from '../../shared/thread-task.js';
import { countSession, countWritten, emptyResult, type StepResult } from './result.js';
import { batchCommitter, writeIsolated } from './write.js';
import { writeLong, type LongContext } from './long-session.js';
import { newerSchemaWarning, orphanWarning, undecodableWarning, workerStoppedWarning } from './store-warnings.js';

export type { PolicyDrop, StepResult } from './result.js';

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
  /**
   * When each session of each store was last compared for edits in place (pipeline/edits.ts), kept between passes;
   * without it no pass looks for them. `checkBudget` bounds the message rows one pass compares (default: no bound).
   */
  checkedAt?: Map<string, Map<string, number>>;
  /** The sessions of each store owed a look for edits (pipeline/edits.ts EditChecks.owed), kept between passes. */
  owed?: Map<string, Map<string, number>>;
  checkBudget?: number;
  /** Whether settled sessions are looked at for edits too, once a day (pipeline/edits.ts EditChecks.settled). */
  checkSettled?: boolean;
  /** Cursors kept in memory between passes (they follow commits); without it they are loaded every pass. */
  cursorCache?: CursorCache;
  /** Column maps per store, reused while the store's schema cookie is unchanged. */
  schemaCache?: Map<string, { cookie: number; columns: Map<string, Set<string>> }>;
  /** Whether a read worker reads sessions beside this thread (feed.ts; default `auto`). */
  readWorker?: ReadWorkerMode;
  /** The read worker's module (default: read-worker's): tests give one that misbehaves. */
  readWorkerModule?: WorkerWhere;
  /** Between batches: false stops the pass there (what is committed stays; the next pass does the rest). */
  keepGoing?: () => boolean;
  /**
   * A PostgreSQL store's mirror, already refreshed by the caller (the async passes await it in this thread, without
   * the mirror thread): what the refresh did, or its failure. Undefined: the pass refreshes it itself.
   */
  mirrorRefreshed?: HermeticError | MirrorResult;
  /** A test hook: called before each batch is written (crash tests kill the process here). */
  beforeWrite?: (batch: Batch) => void;
  /** The most a session is read with at once (default chunk-size.ts CHUNK; decisions 0055, 0171). */
  chunk?: ChunkSize;
}

/** The stores-table row of `ref`, with the facts this pass learnt. */
function storeRow(ref: StoreRef, result: StepResult, extra: RecordOf): RecordOf {
  return {
    store: ref.path, profile: ref.profile, identity: null, schema_version: result.schemaVersion, journal_mode: result.journalMode,
    read_mode: result.read, max_message_id: 0, last_tick_at: null, last_error: null, hermes_home: ref.hermesHome, ...extra,
  };
}

/** A batch that only updates the store's row (health, heartbeat), starting from the row last committed. */
function storeOnly(ref: StoreRef, result: StepResult, cursors: Cursors, change: RecordOf): Batch {
  const base = cursors.row ?? storeRow(ref, result, { identity: cursors.identity, max_message_id: cursors.maxMessageId, usage_stamp: cursors.usageStamp });
  return { store: { ...base, hermes_home: ref.hermesHome, ...change }, reset: false, writes: [], removed: [], quarantine: { failed: [], cleared: [] } };
}

/**
 * A pass stopped (`keepGoing` false) while it waited for a writer's lock on this store, before it wrote anything of
 * it: the pass ends there, with no result for the store (the next pass reads it).
 */
export class StoreStopped extends Error {
  constructor(readonly store: string) {
    super(`The pass stopped while ${store} was locked by a writer.`);
  }
}

const STOPPED = Symbol('stopped');

/**
 * `read`, tried again after a turn of the event loop (a yield) while it meets a writer's lock (`isLockedOut`), until
 * LOCK_PATIENCE_MS have passed; then its error is thrown. STOPPED when `keepGoing` says stop between two tries. Each
 * try waits LOCK_SLICE_MS at most (the connection's busy timeout meanwhile): a stop is seen within about that.
 */
function* lockWait<T>(options: StepOptions, read: () => T, isLockedOut: (e: unknown) => boolean = isLock): Generator<void, T | typeof STOPPED, void> {
  const patience = performance.now() + LOCK_PATIENCE_MS;
  for (;;) {
    try {
      return read();
    } catch (e) {
      if (!isLockedOut(e) || performance.now() >= patience) throw e;
    }
    yield;
    if (options.keepGoing?.() === false) return STOPPED;
  }
}

/**
 * The feed's next session: a writer's lock met reading it waited for as lockWait does; a read worker that stays quiet
 * waited for as long as its thread runs, with a turn of the event loop between tries (where its end, and a stop, are
 * seen: decision 0129).
 */
function* nextRead(options: StepOptions, feed: SessionFeed): Generator<void, FeedItem | null | typeof STOPPED, void> {
  for (;;) {
    try {
      return yield* lockWait(options, () => feed.next(), (e) => feed.lockedOut && isLock(e));
    } catch (e) {
      if (!(e instanceof WorkerQuiet)) throw e;
    }
    yield;
    if (options.keepGoing?.() === false) return STOPPED;
  }
}

/**
 * Reads what changed in one store and writes it. A store that cannot be read is no exception: the result carries its
 * error (HERMETIC_READER_*, or the dataset's HERMETIC_DATASET_*). Anything else thrown is a bug, thrown as it is.
 * @example const r = stepStore(ref, { sink, policy, redact: false, origin: 'forward', now: () => Date.now() / 1000 });
 */
export function stepStore(ref: StoreRef, options: StepOptions): StepResult {
  const steps = stepStoreInSteps(ref, options);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/**
 * stepStore, pausing after each committed batch, and between two tries of a read a writer's lock held up (decision
 * 0104): whoever drives it may let the event loop run there (a SIGINT handler, timers) before asking it to go on; the
 * store stays open in between. Throws StoreStopped when `keepGoing` stopped it before it wrote anything of the store.
 */
export function* stepStoreInSteps(ref: StoreRef, options: StepOptions): Generator<void, StepResult, void> {
  const result = emptyResult(ref);
  if (ref.problem) {
    result.error = { ...ref.problem };
    return result;
  }
  if (!ref.exists) {
    // Its commit stamp goes with it: a store made again in its place may reuse the inode, size and change counter,
    // and must be opened and its identity looked at, not taken for the file that was read (decision 0104).
    options.stamps?.delete(ref.path);
    result.error = { code: 'HERMETIC_READER_OPEN', message: ref.backend === 'postgres' ? `${ref.path} does not exist (this profile uses the PostgreSQL backend)` : `${ref.path} ${ref.absent ?? 'does not exist'}` };
    return result;
  }
  // The file read: the store itself, or the local mirror of a PostgreSQL store (refreshed first; decision 0038).
  const file = ref.file ?? ref.path;
  const cursors = options.cursorCache ? options.cursorCache.load(ref.path) : options.sink.cursors(ref.path);
  const commit = batchCommitter(options.sink, options.cursorCache, options.origin);
  /** The failure said in the result, and in the store's row when the dataset already knows the store. */
  const failed = (failure: HermeticError) => {
    const message = file === ref.path ? failure.message : failure.message.split(file).join(ref.path);
    result.error = { code: failure.code, message };
    // A store never read creates nothing.
    if (cursors.row !== null && failure.code !== 'HERMETIC_DATASET_WRITE') {
      try {
        commit(storeOnly(ref, result, cursors, { last_error: message }));
      } catch { /* the dataset itself failing is reported by the caller's next write */ }
    }
    return result;
  };
  // Sessions the mirror copied edits in place of: looked at this pass (pipeline/edits.ts EditChecks.nudged).
  let nudged: ReadonlySet<string> | undefined;
  if (ref.source) {
    try {
      const refreshed = options.mirrorRefreshed ?? refreshMirrorSync(mirrorJob(ref, { now: options.now(), editsWindow: WATCH_SECONDS, settledEvery: SETTLED_INTERVAL }));
      if (refreshed instanceof HermeticError) throw refreshed;
      nudged = new Set(refreshed.edited);
    } catch (e) {
      if (!(e instanceof HermeticError)) throw e;
      return failed(e);
    }
  }
  const stamp = options.stamps ? changeStamp(file) : null;
  if (stamp !== null && idle(ref, options, cursors, stamp, result, commit)) return result;
  let conn: StoreConnection | null = null;
  try {
    const checks = editChecks(ref, options, stamp, nudged);
    const open = (): { conn: StoreConnection; reader: StoreReader; plan: PassPlan } => {
      const c = openStore(file, { attempts: 1, busyMs: LOCK_SLICE_MS });
      try {
        const reader = new StoreReader(c.db, file, options.schemaCache);
        // The read worker loads beside the plan's queries when the pass will likely want it (decision 0164).
        warmIfWorth({ mode: options.readWorker ?? 'auto', ownWorker: options.readWorkerModule !== undefined, firstRead: cursors.sessions.size === 0,
          windowed: options.window?.since !== undefined || options.window?.until !== undefined, sessions: () => reader.sessionCount() });
        return { conn: c, reader, plan: planPass(reader, cursors, { window: options.window, now: options.now(), checks, ignored: stillIgnored(options.policy) }) };
      } catch (e) {
        c.close();
        throw e;
      }
    };
    // Opened and planned in short waits on a writer's lock (a rollback-journal store; WAL readers never wait), with a
    // turn of the event loop between them: a stop ends the wait at once, not after the ~15 s of three busy timeouts,
    // and the store is said locked after as long as before (decision 0104). Nothing is written before the plan.
    const opened = yield* lockWait(options, open);
    if (opened === STOPPED) throw new StoreStopped(ref.path);
    conn = opened.conn;
    const { reader, plan } = opened;
    // Reads wait BUSY_TIMEOUT_MS for a lock, three times (reader/connection.ts), but for those a pass waits in slices.
    conn.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    result.read = conn.how;
    const complete = yield* writePass(ref, options, cursors, reader, plan, result, commit);
    if (complete && checks) {
      const now = options.now();
      for (const id of plan.edits.checked) checks.checkedAt.set(id, now);
      options.owed!.set(ref.path, plan.edits.owed);
    }
    // A pass stopped between batches has more to read: the next one must not take the store for idle.
    if (stamp !== null && complete) options.stamps!.set(ref.path, stamp);
    options.heartbeats?.set(ref.path, options.now());
  } catch (e) {
    const failure = storeFailure(file, e);
    if (failure === null) throw e;
    failed(failure);
  } finally {
    conn?.close();
  }
  return result;
}

/** What a pass over `ref` needs to look for edits in place (pipeline/edits.ts), when the forwarder keeps their state. */
function editChecks(ref: StoreRef, options: StepOptions, stamp: string | null, nudged: ReadonlySet<string> | undefined): EditChecks | undefined {
  if (!options.checkedAt || !options.owed) return undefined;
  let checkedAt = options.checkedAt.get(ref.path);
  if (!checkedAt) options.checkedAt.set(ref.path, (checkedAt = new Map()));
  const owed = options.owed.get(ref.path) ?? new Map<string, number>();
  const committed = stamp === null || options.stamps?.get(ref.path) !== stamp;
  return { checkedAt, owed, committed, budget: options.checkBudget ?? Infinity, settled: options.checkSettled ?? false, nudged };
}

/** Whether a session the usage policy ignored is no longer ignored (its scopes judged again: the policy's cache). */
function unignored(cursors: Cursors, policy: PolicyResolver): boolean {
  let judge: ((scopes: string[]) => boolean) | null = null;
  for (const c of cursors.sessions.values()) {
    if (c.fingerprint.startsWith(IGNORED) && standingFingerprint(c.fingerprint, (judge ??= stillIgnored(policy))) === null) return true;
  }
  return false;
}

/**
 * Nothing committed to the store since the last complete pass, no session the usage policy ignored is no longer ignored, nobody waits in quarantine, and no session is due a
 * look for edits something committed before may have made (pipeline/edits.ts): nothing to read. The
 * store's `last_tick_at` still moves once a minute, so `hermetic status` sees a running forwarder.
 */
function idle(ref: StoreRef, options: StepOptions, cursors: Cursors, stamp: string, result: StepResult, commit: (b: Batch) => Written): boolean {
  const now = options.now();
  const due = [...cursors.quarantine.values()].some((q) => !stillWaiting(q.retryAt, now)) || [...(options.owed?.get(ref.path)?.values() ?? [])].some((t) => t <= now)
    || unignored(cursors, options.policy);
  if (due || cursors.identity === null || options.stamps!.get(ref.path) !== stamp) return false;
  result.sessionsUnchanged = [...cursors.sessions.values()].filter((c) => c.fingerprint !== REMOVED).length;
  result.sessionsSeen = result.sessionsUnchanged + cursors.quarantine.size;
  result.sessionsWaiting = cursors.quarantine.size;
  if (options.heartbeats && now - (options.heartbeats.get(ref.path) ?? 0) >= 60) {
    try {
      commit(storeOnly(ref, result, cursors, { last_tick_at: now, last_error: null }));
      options.heartbeats.set(ref.path, now);
    } catch (e) {
      if (!(e instanceof HermeticError)) throw e;
      result.error = { code: e.code, message: e.message };
    }
  }
  return true;
}

/**
 * Reads the plan's sessions (here or by the read worker) and writes them in batches, each with its cursors; false
 * when `keepGoing` stopped it before the end.
 */
function* writePass(ref: StoreRef, options: StepOptions, cursors: Cursors, reader: StoreReader, plan: PassPlan, result: StepResult, commit: (b: Batch) => Written): Generator<void, boolean, void> {
  const { facts, todo } = plan;
  Object.assign(result, {
    schemaVersion: facts.schemaVersion, journalMode: facts.journalMode, replaced: plan.replaced, sessionsSeen: plan.seen,
    sessionsUnchanged: plan.unchanged, sessionsWaiting: plan.waiting, sessionsOutsideWindow: plan.outsideWindow,
    sessionsRemoved: plan.removed.length, sessionsChecked: plan.edits.checked.length, sessionsEdited: plan.edits.edited.size,
  });
  // What the pass says of the store beside its counts: the discovery's warning, then each of these that holds.
  const said = [orphanWarning(plan.orphans), undecodableWarning(plan.undecodable), newerSchemaWarning(facts.schemaVersion, reader)];
  result.warning = [result.warning, ...said].filter(Boolean).join('; ') || null;
  const now = options.now();
  // A dataset once written through the redactor stays redacted: a later run without --redact does not mix raw text in.
  const redact = options.redact || (options.sink.redacts?.() ?? false);
  const batchSessions = options.batchSessions ?? 20;
  const batchMessages = options.batchMessages ?? 500;
  const chunk = options.chunk ?? CHUNK;
  // A replaced store is read whole: its sessions' tails describe another file.
  const priorOf = (id: string) => {
    const c = cursors.sessions.get(id);
    return c ? { ledger: c.ledger, tail: plan.replaced ? null : c.tail, whole: plan.edits.edited.has(id) } : null;
  };
  const baseOf = (id: string) => {
    const c = cursors.sessions.get(id);
    return c && !plan.replaced ? { fingerprint: c.fingerprint, maxMessageId: c.maxMessageId } : null;
  };
  const failuresOf = (id: string) => (cursors.quarantine.get(id)?.failures ?? 0) + 1;
  /** Whether the dataset holds the session's rows: written before, not ignored since (a drop then removes them). */
  const heldOf = (id: string) => {
    const c = cursors.sessions.get(id);
    return c !== undefined && !c.fingerprint.startsWith(IGNORED);
  };
  const removed = [...plan.removed];
  let done = 0;
  let taken = 0;
  let first = true;
  options.onProgress?.(0, todo.length);
  // Sessions come read and projected, in the order they are ready (feed.ts: here, or by the read worker).
  const feed = new SessionFeed({
    reader, ref, redact, origin: options.origin, ids: todo.map((m) => m.id), priorOf,
    mode: options.readWorker ?? 'auto',
    // The worker may run a few batches ahead of the writes (what it posted waits packed, outside the heap).
    window: { sessions: batchSessions * 4, messages: batchMessages * 4, chars: chunk.chars * 4 },
    chunk, quietThrows: true, worker: options.readWorkerModule,
  });
  // The store's row as a batch that is not the pass's last writes it: its cursor stays where the last pass left it.
  const midRow = () => storeRow(ref, result, {
    identity: facts.identity, max_message_id: plan.replaced ? 0 : cursors.maxMessageId, usage_stamp: plan.replaced ? null : cursors.usageStamp,
    last_tick_at: null, delegation_marks: cursors.row?.delegation_marks ?? null, unread: cursors.row?.unread ?? null,
  });
  const longCtx: LongContext = { reader, options, result, commit, now, redact, chunk, midRow, failuresOf, priorOf, baseOf, heldOf, ref };
  try {
    for (;;) {
      const batch: Batch = { store: {}, reset: first && plan.replaced, writes: [], removed: first ? removed.splice(0) : [], quarantine: { failed: [], cleared: first ? [...plan.settled] : [] }, redacted: redact };
      first = false;
      let messages = 0;
      // Characters of text the batch holds: a batch of sessions of long texts closes early, as a chunk would (0171).
      let chars = 0;
      // A session longer than a chunk, met while filling this batch: written after it, in chunks (chunks.ts).
      let long: SessionMark | null = null;
      while (taken < todo.length && batch.writes.length < batchSessions && messages < batchMessages && chars < chunk.chars) {
        // A writer's lock met reading a session is waited for here, in slices a stop can end (the batch so far is
        // then not written: the next pass reads it again).
        const item = yield* nextRead(options, feed);
        if (item === STOPPED) return false;
        if (item === null) throw new HermeticError('HERMETIC_INTERNAL', `The pass over ${ref.path} ran out of sessions: ${taken} of ${todo.length} read.`);
        taken++;
        const mark = todo[item.index]!;
        if (item.read === null) continue; // deleted since the marks were read: the next pass marks it removed
        if ('long' in item.read) {
          long = mark;
          break;
        }
        const judged = 'error' in item.read ? item.read : judge(mark.id, mark.fingerprint, item.read, options.policy, baseOf(mark.id));
        if ('error' in judged) {
          const failures = failuresOf(mark.id);
          batch.quarantine.failed.push({ sessionId: mark.id, error: judged.error, failures, retryAt: now + backoffSeconds(failures) });
          result.sessionsQuarantined++;
          continue;
        }
        if (judged.drop) result.policyDrops.push(heldOf(mark.id) ? { ...judged.drop, removed: true } : judged.drop);
        if (judged.write.projection) {
          messages += judged.write.projection.messages.length;
          chars += judged.write.projection.chars ?? 0;
        }
        batch.writes.push(judged.write);
        if (cursors.quarantine.has(mark.id)) batch.quarantine.cleared.push(mark.id);
      }
      const last = taken >= todo.length && long === null;
      // The store's delegations ride on its last batch: the rows that changed and the marks they were judged against
      // commit together (decision 0054).
      let delegationMarks = cursors.row?.delegation_marks ?? null;
      const delegations = last ? yield* lockWait(options, () => reader.shortWaits(() => delegationChanges(reader, marksOf(cursors.row), { ref, redact, origin: options.origin, policy: options.policy }))) : null;
      if (delegations === STOPPED) return false;
      if (delegations) {
        batch.delegations = delegations.changes;
        delegationMarks = JSON.stringify(delegations.marks);
      }
      batch.store = storeRow(ref, result, {
        identity: facts.identity, max_message_id: last ? facts.maxMessageId : plan.replaced ? 0 : cursors.maxMessageId,
        usage_stamp: last ? plan.usage?.stamp ?? null : plan.replaced ? null : cursors.usageStamp, last_tick_at: last ? options.now() : null,
        delegation_marks: delegationMarks,
        // What the window left unread is the pass's to say once it is whole; till then, what the last pass said.
        unread: last ? (plan.unread.length > 0 ? JSON.stringify(plan.unread) : null) : cursors.row?.unread ?? null,
      });
      options.beforeWrite?.(batch);
      const out = writeIsolated(commit, batch, failuresOf, now);
      countWritten(result, out.landed, out.written);
      result.sessionsQuarantined += out.quarantined.length;
      done += batch.writes.length + batch.quarantine.failed.length;
      if (long && !(yield* writeLong(long, longCtx))) {
        options.onProgress?.(done, todo.length);
        return false;
      }
      if (long) done++;
      options.onProgress?.(done, todo.length);
      if (last) return true;
      yield;
      if (options.keepGoing?.() === false) return false;
    }
  } finally {
    result.readByWorker += feed.readByWorker;
    result.warning = [result.warning, workerStoppedWarning(feed.workerStopped)].filter(Boolean).join('; ') || null;
    feed.close();
  }
}
