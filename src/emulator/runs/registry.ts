// The gateway's run memory (Hermes's _run_statuses, _run_streams, owner stamps, active tasks) plus the durable
// rows behind it: status updates with Hermes's key-order and persistence rules, event emission, hydration of
// durable snapshots (with the restart interruption), and the 60-second retention sweep.
import type { Clock, Timer } from '../../shared/clock.js';
import { PyFloat, clonePy, dumpsSorted, parsePyJson, type PyDict, type PyValue } from '../../shared/python/index.js';
import { settle } from './durability.js';
import { EventBuffer, type BufferItem } from './event-log.js';
import { SWEEPABLE, isTerminal, nextStatus, TRANSITIONS, type Trigger } from './lifecycle.js';
import { applyUpdate, statusOf } from './status.js';
import { ownerAlive, type OwnerIdentity } from './owner.js';
import type { LockWait, RunTable } from './run-table.js';
import type { StreamTurnRun } from './stream-turn.js';

/** What Hermes keeps while a run's background task is alive (agent, approval session, stop mark). */
export interface LiveRun {
  readonly runId: string;
  /** The task has started and created its agent. */
  started: boolean;
  stopRequested: boolean;
  /** Pending approval requests, oldest first (each the approval.request event dict). */
  approvals: PyDict[];
  acceptSteer: boolean;
  acknowledgeStop: boolean;
  /** Steer texts accepted but not yet injected at a tool boundary. */
  pendingSteer: string[];
  startTimer: Timer | null;
  /** The user turn, kept for recorders. */
  readonly userMessage: PyValue;
  /** The /p/<name>/ profile it was admitted under ('default' without a prefix): whose sessions it writes. */
  readonly profile: string;
  /** The X-Hermes-Session-Key it came with (its agent's gateway_session_key); null without one. */
  readonly sessionKey: string | null;
  /** The model its agent runs when the status's `model` does not say it (a session chat stream, decision 0145). */
  readonly agentModel?: string;
  /** A session chat stream's turn: no task, no approval session, statuses by the stream's rules (decision 0146). */
  readonly streamTurn?: StreamTurnRun;
}

/** A live run as a checkpoint keeps it: its fields, when its start timer was due, its steer policy's exception. */
export interface LiveRunSnapshot {
  readonly runId: string;
  readonly started: boolean;
  readonly stopRequested: boolean;
  readonly approvals: PyDict[];
  readonly acceptSteer: boolean;
  readonly acknowledgeStop: boolean;
  readonly pendingSteer: string[];
  /** Clock time the queued run was due to start (null: not waiting on a timer). */
  readonly startAt: number | null;
  readonly userMessage: PyValue;
  readonly profile: string;
  /** Absent in a checkpoint taken before runs kept it. */
  readonly sessionKey?: string | null;
  readonly agentModel?: string;
  /** Absent for a run of POST /v1/runs or the sync chat. */
  readonly streamTurn?: StreamTurnRun;
  readonly steerRaises: string | null;
}

/** The gateway's run memory, deep-copied (a checkpoint): statuses, owners, keyed runs, queued events, live runs. */
export interface MemorySnapshot {
  readonly statuses: ReadonlyArray<[string, PyDict]>;
  readonly owners: ReadonlyArray<[string, string]>;
  readonly durable: readonly string[];
  readonly buffers: ReadonlyArray<{ runId: string; createdAt: number; items: BufferItem[] }>;
  readonly live: readonly LiveRunSnapshot[];
}

const cloneItem = (item: BufferItem): BufferItem => (item.kind === 'event' ? { kind: 'event', event: clonePy(item.event) } : item);

export const INTERRUPTED_ERROR = 'The gateway restarted before this run settled.';
const STATUS_TTL = 3_600;
const BUFFER_TTL = 300;
const SWEEP_INTERVAL = 60;

/**
 * Run memory. Its maps change only through its methods (admission, hydration, updates, the sweep, a crash); everyone
 * else reads them through read-only views.
 */
export class RunRegistry {
  readonly #statuses = new Map<string, PyDict>();
  /** Each run's owner stamp (the ownership scope that admitted it; '' for a chat turn no client owns). */
  readonly #owners = new Map<string, string>();
  readonly #buffers = new Map<string, EventBuffer>();
  /**
   * The buffer each live run was admitted with, kept while its task lives even once #buffers forgot it: Hermes's
   * _approval_notify puts on the queue its closure captured, not on _run_streams (decision 0076).
   */
  readonly #admitted = new Map<string, EventBuffer>();
  readonly #live = new Map<string, LiveRun>();
  /** Runs with a durable row (admitted with a key, or hydrated from one). */
  readonly #durable = new Set<string>();
  /** Closers of attached event streams and waiting chat turns (an emulated crash cuts them). */
  readonly #streams = new Set<() => void>();
  #sweepTimer: Timer | null = null;
  /** Whether the sweep runs (between startSweeps and stopSweeps), and the clock time its phase starts from. */
  #sweepsOn = false;
  #sweepOrigin = 0;
  #store: RunTable;
  #owner: OwnerIdentity;

  constructor(
    readonly clock: Clock,
    store: RunTable,
    owner: OwnerIdentity,
    readonly lockWait: LockWait,
  ) {
    this.#store = store;
    this.#owner = owner;
  }

  /** Status dicts by run id (Hermes's _run_statuses). */
  get statuses(): ReadonlyMap<string, PyDict> {
    return this.#statuses;
  }

  /** Event buffers by run id (Hermes's _run_streams). */
  get buffers(): ReadonlyMap<string, EventBuffer> {
    return this.#buffers;
  }

  /** Runs whose background task is alive. */
  get live(): ReadonlyMap<string, LiveRun> {
    return this.#live;
  }

  get durable(): ReadonlySet<string> {
    return this.#durable;
  }

  /** Attached event streams and waiting chat turns. */
  get attached(): number {
    return this.#streams.size;
  }

  get store(): RunTable {
    return this.#store;
  }

  get owner(): OwnerIdentity {
    return this.#owner;
  }

  /** After an emulated crash (clearMemory first): the new process's owner identity, and its store when it changed. */
  restarted(owner: OwnerIdentity, store: RunTable = this.#store): void {
    this.#owner = owner;
    this.#store = store;
  }

  /** A run enters memory at admission: its owner stamp and its first status (spec §5.1 step 14). */
  admit(runId: string, ownerStamp: string, status: PyDict): void {
    this.#owners.set(runId, ownerStamp);
    this.#statuses.set(runId, status);
    // The first run of this gateway starts Hermes's sweep (a gateway that never ran one needs no timer).
    if (this.#sweepTimer === null && this.#sweepsOn) this.#armSweeps();
  }

  /** The run's row was reserved in the store: its status writes are durable from now on. */
  markDurable(runId: string): void {
    this.#durable.add(runId);
  }

  /** The run's background task exists (its agent; removed by finishTask or a crash). */
  track(run: LiveRun): void {
    this.#live.set(run.runId, run);
  }

  /** Registers what an emulated crash must cut (an event stream, a waiting chat turn); returns its removal. */
  onCrash(close: () => void): () => void {
    this.#streams.add(close);
    return () => void this.#streams.delete(close);
  }

  /** Hermes's finally of a subscriber: the run's buffer goes, if it is still this one (spec §8.6). */
  releaseBuffer(runId: string, buffer: EventBuffer): void {
    if (this.#buffers.get(runId) === buffer) this.#buffers.delete(runId);
  }

  /**
   * The durability barrier (runs/durability.ts): null when nothing `runId` (or any run) shows is waiting to be
   * committed, else a promise that settles once it is (or rejects with StoreUnavailable).
   */
  settle(runId?: string): Promise<void> | null {
    return settle(this.#store, this.lockWait, runId);
  }

  /**
   * Hermes's 60 s sweep runs from now on, in the phase of this moment (the gateway's start). Its timer is armed by the
   * first run the gateway holds: a gateway that never held one costs no timer (decision 0028).
   */
  startSweeps(): void {
    this.#sweepsOn = true;
    this.#sweepOrigin = this.clock.now();
    if (this.#statuses.size > 0 || this.#buffers.size > 0) this.#armSweeps();
  }

  #armSweeps(): void {
    this.#sweepTimer?.cancel();
    // Periodic: a clock jump of any length runs one sweep, not one per missed minute (decision 0014).
    this.#sweepTimer = this.clock.every(SWEEP_INTERVAL, () => this.sweep(), this.#sweepOrigin);
  }

  stopSweeps(): void {
    this.#sweepsOn = false;
    this.#sweepTimer?.cancel();
    this.#sweepTimer = null;
  }

  /**
   * Hermes's _request_owns_run (decision 0076): whether `scope` may see the run, without hydrating it. The owner stamp
   * decides when there is one; else the durable row under the caller's scope. The events route asks only this: a dead
   * owner's run is rewritten to `interrupted` by the first status read (GET, replay, stop, approval, steer), not by it.
   */
  visible(scope: string, runId: string): boolean {
    const stamp = this.#owners.get(runId);
    if (stamp !== undefined) return stamp === scope;
    return this.#store.findRun(scope, runId) !== undefined;
  }

  /**
   * The status dict the caller (`scope`) may see, or null (→ 404 run_not_found). Follows the visibility rule of
   * spec §3.3, then memory, then the durable row (hydrated, possibly rewritten to `interrupted`, and cached).
   */
  resolve(scope: string, runId: string): PyDict | null {
    const stamp = this.#owners.get(runId);
    if (stamp !== undefined && stamp !== scope) return null;
    const cached = this.#statuses.get(runId);
    if (cached) return cached;
    const row = this.#store.findRun(scope, runId);
    if (!row) return null;
    const dict = parsePyJson(row.status_json) as PyDict;
    this.#statuses.set(runId, dict);
    this.#owners.set(runId, scope);
    this.#durable.add(runId);
    if (!isTerminal(statusOf(dict)) && !ownerAlive(row.owner_pid, row.owner_started)) {
      this.update(runId, 'interrupt', [['error', INTERRUPTED_ERROR]]);
    }
    return dict;
  }

  /**
   * Applies a lifecycle trigger (spec §7.2); returns false when the table forbids it. Keys are appended in the order
   * Hermes's update call names them (§6.2): `before`, then last_event, then `after`
   * (completion: output, usage, last_event, pending_steer; approval: last_event, approval).
   */
  update(
    runId: string,
    trigger: Trigger,
    before: ReadonlyArray<[string, PyValue]> = [],
    after: ReadonlyArray<[string, PyValue]> = [],
    eventName?: string,
  ): boolean {
    const dict = this.#statuses.get(runId);
    if (!dict) return false;
    const to = nextStatus(statusOf(dict), trigger);
    if (to === null) return false;
    const row: { lastEvent: string | null; plain?: boolean } = TRANSITIONS[trigger];
    const lastEvent = row.lastEvent === 'event' ? eventName ?? null : row.lastEvent;
    const extras: Array<[string, PyValue]> = lastEvent ? [...before, ['last_event', lastEvent], ...after] : [...before, ...after];
    if (applyUpdate(dict, to, this.clock.now(), extras, row.plain)) this.persist(runId, dict);
    return true;
  }

  persist(runId: string, dict: PyDict): void {
    if (this.#durable.has(runId)) this.#store.writeStatus(runId, dumpsSorted(dict), this.clock.now());
  }

  /** Creates the run's transport buffer at admission; events are buffered from then on (§8.1). */
  openBuffer(runId: string, now: number): void {
    const buffer = new EventBuffer(now);
    this.#buffers.set(runId, buffer);
    this.#admitted.set(runId, buffer);
    if (this.#sweepTimer === null && this.#sweepsOn) this.#armSweeps();
  }

  /** Enqueues an event `{event, run_id, timestamp, ...fields}` if the run still has a buffer (else it is dropped). */
  emit(runId: string, name: string, fields: ReadonlyArray<[string, PyValue]> = []): void {
    const buffer = this.#buffers.get(runId);
    if (!buffer) return;
    // Built key by key (no entry arrays): this runs once per streamed event.
    const event: PyDict = new Map<string, PyValue>();
    event.set('event', name).set('run_id', runId).set('timestamp', new PyFloat(this.clock.now()));
    for (let i = 0; i < fields.length; i++) event.set(fields[i]![0], fields[i]![1]);
    buffer.push({ kind: 'event', event });
  }

  /**
   * Enqueues approval.request (an already-built dict: it keeps the approval subsystem's key order) on the queue the run
   * was admitted with, as Hermes's _approval_notify does, even after a subscriber's exit or the sweep dropped it from
   * the run table: a subscriber still attached to it gets the event (decision 0076). A dropped buffer nobody is
   * attached to can never be read, so nothing is queued there.
   */
  emitDict(runId: string, event: PyDict): void {
    const buffer = this.#buffers.get(runId) ?? this.#admitted.get(runId);
    if (buffer && (this.#buffers.get(runId) === buffer || buffer.subscribers > 0)) buffer.push({ kind: 'event', event });
  }

  /** The background task finished: sentinel to the stream, approval session and capacity released. */
  finishTask(runId: string): void {
    const run = this.#live.get(runId);
    if (!run) return;
    run.startTimer?.cancel();
    this.#live.delete(runId);
    this.#admitted.delete(runId);
    this.#buffers.get(runId)?.push({ kind: 'end' });
  }

  /** Hermes's 60 s sweep: terminal statuses idle for more than an hour, unwatched buffers older than 300 s. */
  sweep(): { statuses: number; buffers: number } {
    const now = this.clock.now();
    let statuses = 0;
    let buffers = 0;
    for (const [runId, dict] of this.#statuses) {
      const updated = dict.get('updated_at');
      const at = updated instanceof PyFloat ? updated.value : typeof updated === 'number' ? updated : now;
      if (SWEEPABLE.has(statusOf(dict)) && now - at > STATUS_TTL && !this.#live.has(runId)) {
        this.#statuses.delete(runId);
        this.#owners.delete(runId);
        this.#durable.delete(runId);
        statuses++;
      }
    }
    for (const [runId, buffer] of this.#buffers) {
      if (buffer.subscribers === 0 && now - buffer.createdAt > BUFFER_TTL) {
        this.#buffers.delete(runId);
        buffers++;
      }
    }
    return { statuses, buffers };
  }

  /** A deep copy of the run memory; `steerRaises` reads each live run's steer exception from the agent. */
  snapshotMemory(steerRaises: (run: LiveRun) => string | null): MemorySnapshot {
    return {
      statuses: [...this.#statuses].map(([id, dict]) => [id, clonePy(dict)]),
      owners: [...this.#owners],
      durable: [...this.#durable],
      buffers: [...this.#buffers].map(([runId, b]) => ({ runId, createdAt: b.createdAt, items: b.queued().map(cloneItem) })),
      live: [...this.#live.values()].map((run) => ({
        runId: run.runId,
        started: run.started,
        stopRequested: run.stopRequested,
        approvals: run.approvals.map((a) => clonePy(a)),
        acceptSteer: run.acceptSteer,
        acknowledgeStop: run.acknowledgeStop,
        pendingSteer: [...run.pendingSteer],
        startAt: run.startTimer ? run.startTimer.due : null,
        userMessage: clonePy(run.userMessage),
        profile: run.profile,
        sessionKey: run.sessionKey,
        ...(run.agentModel === undefined ? {} : { agentModel: run.agentModel }),
        ...(run.streamTurn === undefined ? {} : { streamTurn: { sessionId: run.streamTurn.sessionId, runtime: clonePy(run.streamTurn.runtime) } }),
        steerRaises: steerRaises(run),
      })),
    };
  }

  /**
   * Replaces the run memory with a copy of `snapshot` (after clearMemory: attached streams are cut). Live runs are
   * handed to `revive` (the agent re-creates them and re-arms their start timers); the copy stays reusable.
   */
  restoreMemory(snapshot: MemorySnapshot, revive: (run: LiveRunSnapshot) => void): void {
    this.clearMemory();
    for (const [id, dict] of snapshot.statuses) this.#statuses.set(id, clonePy(dict));
    for (const [id, scope] of snapshot.owners) this.#owners.set(id, scope);
    for (const id of snapshot.durable) this.#durable.add(id);
    for (const { runId, createdAt, items } of snapshot.buffers) {
      const buffer = new EventBuffer(createdAt);
      for (const item of items) buffer.push(cloneItem(item));
      this.#buffers.set(runId, buffer);
      if (snapshot.live.some((run) => run.runId === runId)) this.#admitted.set(runId, buffer);
    }
    for (const run of snapshot.live) revive(run);
    if (this.#sweepsOn && (this.#statuses.size > 0 || this.#buffers.size > 0)) this.#armSweeps();
  }

  /** Forgets everything a crashed process would lose; durable rows stay. */
  clearMemory(): void {
    for (const close of [...this.#streams]) close();
    for (const run of this.#live.values()) run.startTimer?.cancel();
    this.#statuses.clear();
    this.#owners.clear();
    this.#buffers.clear();
    this.#admitted.clear();
    this.#live.clear();
    this.#durable.clear();
  }
}
