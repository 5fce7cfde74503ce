// One namespace: a whole emulated gateway of its own — clock, ids, settings, run memory, durable rows, fake agent,
// fault rules, scenarios, sessions, request journal, checkpoints — answering through its pipeline (journal → faults →
// app.ts). The default namespace is the gateway createEmulator always had. Every other namespace costs memory only for
// what it holds: its stores (SQLite) open on first write, its journal grows with its requests, its sweep timer is armed
// by its first run (decision 0028).
import { ControlledClock } from '../../shared/clock.js';
import { HermeticError } from '../../shared/errors.js';
import { createIdSource, type IdSource } from '../../shared/ids.js';
import type { ControlledNamespace, ControlledNamespaces } from '../admin/context.js';
import { finish, handle, type AppDeps } from '../app.js';
import { Faults } from '../faults/index.js';
import { normaliseCap, type GatewaySettings } from '../gateway.js';
import type { HttpRequest, HttpResponse } from '../http.js';
import type { JournalSlots, RequestJournal } from '../journal/journal.js';
import { RequestTraffic } from '../journal/traffic.js';
import type { ParsedEmulatorOptions } from '../options.js';
import { StateFiles } from '../record/state-files.js';
import type { TurnSink } from '../record/turn-sink.js';
import { TurnRecorder, type TurnsState } from '../record/turns.js';
import { FakeAgent } from '../runs/agent.js';
import { claimOwner, releaseOwner, type OwnerIdentity } from '../runs/owner.js';
import { RunRegistry, type MemorySnapshot } from '../runs/registry.js';
import type { IdempotencyRow, LockWait, RunTable } from '../runs/run-table.js';
import { RunService } from '../runs/service.js';
import { ScenarioBook } from '../scenarios/index.js';
import { SessionService, Sessions } from '../sessions/index.js';
import { StoreUnavailable } from '../runs/run-table.js';
import { LazyRunTable, LazySessionTable } from '../store/lazy.js';
import { openSessionTable } from '../store/session-table.js';
import { clip } from '../journal/journal.js';
import type { RequestTrace } from '../journal/traffic.js';
import { BorrowedClock, type NamespaceClock } from './borrowed-clock.js';
import type { CheckpointPart } from './checkpoint-part.js';
import { Checkpoints, type CheckpointSummary, type TimelineView } from './checkpoints.js';
import { DEFAULT_NAMESPACE } from './names.js';
import { backgroundFailureLine, storeFailureLine, type Warn } from './warnings.js';
import { PRIVATE_STORE } from '../../shared/sqlite.js';

/** What every namespace of one emulator shares. */
export interface NamespaceShared {
  readonly options: ParsedEmulatorOptions;
  readonly lock: LockWait;
  /** Opens a namespace's run table: the default one on options.db, the others on a store private to them. */
  openStore(name: string): RunTable;
  readonly onInternalError: (error: unknown) => void;
  /** Says on stderr what the emulator could not do, each kind at most once every 10 s (warnings.ts). */
  readonly warn: Warn;
  /** The emulator's namespaces (the admin routes that list, reset or describe them). */
  readonly namespaces: ControlledNamespaces;
  /** The fault rules for every namespace (`"namespace": "*"`), tried after each namespace's own (decision 0066). */
  readonly faultsEverywhere: Faults;
  /** The slots every namespace's request journal takes from (journal/journal.ts `JournalSlots`). */
  readonly journalSlots: JournalSlots;
}

/** The gateway settings the options describe (a reset goes back to these). */
export function initialSettings(options: ParsedEmulatorOptions): GatewaySettings {
  return {
    apiKey: options.apiKey,
    draining: options.draining,
    maxConcurrentRuns: normaliseCap(options.maxConcurrentRuns),
    modelName: options.modelName,
    agentModel: options.agentModel,
    corsOrigins: [...options.corsOrigins],
    profiles: new Map(Object.entries(options.profiles)),
  };
}

const copySettings = (g: GatewaySettings): GatewaySettings => ({
  ...g,
  corsOrigins: [...g.corsOrigins],
  profiles: new Map([...g.profiles].map(([name, p]) => [name, { ...p }])),
});

/** The gateway between two resets: its id stream, run memory, agent, services and what the handlers are given. */
interface Core {
  readonly ids: IdSource;
  readonly registry: RunRegistry;
  readonly agent: FakeAgent;
  readonly service: RunService;
  /** Hands each run's turn to the sessions and the --state-db recorder. */
  readonly turns: TurnRecorder;
  readonly deps: AppDeps;
}

/** The core state as a checkpoint keeps it. */
interface CoreState {
  readonly clock: { now: number; frozen: boolean } | null;
  readonly gateway: GatewaySettings;
  readonly rows: readonly IdempotencyRow[];
  readonly memory: MemorySnapshot;
  readonly idPosition: number | undefined;
  /** Each session's last message time (record/turns.ts), so a restored session's next turn still comes after it. */
  readonly turns: TurnsState;
}

/** The response header naming the checkpoint taken after a request (automatic checkpoints on; decision 0065). */
export const CHECKPOINT_HEADER = 'x-hermetic-checkpoint';

/** Methods that never change what Hermes holds: no automatic checkpoint follows them. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export class Namespace implements ControlledNamespace {
  /** What the namespace runs on: its own clock, or the caller's with the namespace's own timers (borrowed-clock.ts). */
  readonly clock: NamespaceClock;
  /** The gateway's settings: one object for the namespace's life (a reset puts the options' values back in it). */
  readonly gateway: GatewaySettings;
  /** Wall-clock milliseconds when the namespace was created (first used). */
  readonly createdAt = Date.now();
  /** Its checkpoints, branches and head (checkpoints.ts); kept across a reset. */
  readonly checkpoints: Checkpoints;
  /** Whether each request that changed the namespace is followed by a checkpoint (decision 0065). */
  autoCheckpoints: boolean;
  /** The request journal, per-request tallies for metrics, and the onRequest listener (journal/traffic.ts). */
  readonly traffic: RequestTraffic;
  /** Fault rules (faults/index.ts): the pipeline step between the journal and the gateway; a checkpoint part. */
  readonly faults: Faults;
  /** Scenarios (scenarios/book.ts): the fake agent's script; a checkpoint part. */
  readonly scenarios: ScenarioBook;
  /** The API server's sessions (sessions/): their store and the sink of the agent's turns; a checkpoint part. */
  readonly sessions: Sessions;
  readonly #shared: NamespaceShared;
  /** The clock the namespace made (null: it runs on the caller's, through #borrowed). */
  readonly #ownClock: ControlledClock | null;
  readonly #borrowed: BorrowedClock | null;
  /** The --state-db or --state-home recording, or null. */
  readonly #recorder: StateFiles | null;
  /** The parts a checkpoint saves, in the order they are restored (the core first: it fails before anything changed). */
  readonly #parts: ReadonlyArray<readonly [string, CheckpointPart]>;
  #core: Core;
  /** When it was last used, as its emulator's Namespaces stamps uses (eviction picks the oldest idle one). */
  lastUse = 0;
  /**
   * Whether a request that may create a namespace on a server with a key has used it (front-door.ts): one only keyless
   * health checks or unrouted paths have touched is evicted before any claimed one, and never evicts one.
   */
  claimed = true;
  /** Requests being answered now (an event stream counts until its head is ready; then as an attached stream). */
  #inFlight = 0;

  constructor(
    readonly name: string,
    shared: NamespaceShared,
  ) {
    this.#shared = shared;
    const { options } = shared;
    const isDefault = name === DEFAULT_NAMESPACE;
    // The default namespace may run on a clock the caller gave; every other namespace has a clock of its own.
    this.#borrowed = options.clock && isDefault ? new BorrowedClock(options.clock) : null;
    this.#ownClock = this.#borrowed ? null : new ControlledClock({ start: options.time ?? undefined, frozen: options.frozen });
    this.clock = this.#borrowed ?? this.#ownClock!;
    this.checkpoints = new Checkpoints(name);
    this.autoCheckpoints = options.autoCheckpoints;
    this.gateway = initialSettings(options);
    this.traffic = new RequestTraffic(name, options.journalSize, () => this.clock, options.onRequest, shared.journalSlots);
    // Probability draws follow the namespace's seed as its ids do (no seed: random draws).
    const seed = options.seed === null ? null : isDefault ? options.seed : `${options.seed}/ns/${name}`;
    // The option's rules for this namespace: those for each namespace, and those naming it (the rules for every
    // namespace are one list, shared.faultsEverywhere).
    const initial = options.faults.filter((r) => r.namespace === null || r.namespace === name);
    this.faults = new Faults({ clock: this.clock, seed, initial, finish: (r) => finish(r, this.clock), everywhere: shared.faultsEverywhere });
    this.scenarios = new ScenarioBook(this, options.scenarios);
    // The recorder draws from whichever id stream the namespace has now (a reset starts a new one).
    const ids: IdSource = { uuid4Hex: () => this.#core.ids.uuid4Hex(), seeded: options.seed !== null };
    // A new state.db file's generation token from a stream of its own: the namespace's ids stay where they were.
    const target = options.stateDb !== null ? { file: options.stateDb } : options.stateHome !== null ? { home: options.stateHome } : null;
    this.#recorder = target
      ? new StateFiles(target, {
        now: () => this.clock.now(), ids, fileIds: createIdSource(seed === null ? undefined : `${seed}\0state.db`), eager: isDefault,
        onError: (what, e) => shared.warn('state-db', backgroundFailureLine(what, e)),
      })
      : null;
    // Sessions outlive the gateway's restarts, as Hermes's state.db does: the default namespace's beside its run rows
    // in the --db file, every other namespace's (and the default's without one) in a private store on disk, opened by
    // its first write (decisions 0026, 0028, 0136).
    const sessionsFile = isDefault && options.db !== null && options.db !== ':memory:' ? options.db : PRIVATE_STORE;
    const sessionTable = isDefault ? openSessionTable(sessionsFile, shared.lock) : new LazySessionTable(() => openSessionTable(PRIVATE_STORE, shared.lock));
    this.sessions = new Sessions(sessionTable, shared.lock, (e) => shared.warn('turns', backgroundFailureLine('recording a turn into the sessions', e)));
    const store = isDefault ? shared.openStore(name) : new LazyRunTable(() => shared.openStore(name));
    this.#core = this.#build(claimOwner(), store);
    this.#parts = [
      ['core', { snapshot: () => this.#snapshotCore(), restore: (state) => this.#restoreCore(state as CoreState) }],
      ['faults', this.faults],
      ['scenarios', this.scenarios],
      ['sessions', this.sessions],
    ];
  }

  get isDefault(): boolean {
    return this.name === DEFAULT_NAMESPACE;
  }

  /** The clock as the caller sees it (emulator.clock): the namespace's own, or the very object the caller gave. */
  get publicClock(): ControlledClock {
    return this.#ownClock ?? this.#borrowed!.owner;
  }

  /** Whether the durable rows are on disk (capabilities advertise it). */
  get durable(): boolean {
    return this.#shared.options.db !== ':memory:';
  }

  // What the scenario book plays through, and what metrics and listings read: the current gateway's (a reset replaces it).
  get registry(): RunRegistry {
    return this.#core.registry;
  }

  get agent(): FakeAgent {
    return this.#core.agent;
  }

  get journal(): RequestJournal {
    return this.traffic.journal;
  }

  /** Something is going on: a request being answered, a live run, an attached event stream (never evicted then). */
  get busy(): boolean {
    const { registry } = this.#core;
    return this.#inFlight > 0 || registry.live.size > 0 || registry.attached > 0;
  }

  heldWrites(): number {
    return this.#core.registry.store.pendingCount();
  }

  /**
   * Answers one request whose path has already lost its /ns/<name> prefix. This is the namespace's request pipeline:
   * the place where what the request does (describeRequest) meets the namespace's fault rules and request journal.
   */
  handle(req: HttpRequest): Promise<HttpResponse> {
    const trace = this.traffic.begin(req);
    this.#inFlight++;
    return this.faults.handle(req, (r) => this.#answer(r, trace), trace).then(
      (response) => {
        this.#inFlight--;
        return this.traffic.end(req, trace, response);
      },
      (error: unknown) => {
        this.#inFlight--;
        this.traffic.failed(req, trace);
        throw error;
      },
    );
  }

  /** The gateway's answer; with automatic checkpoints on, a checkpoint after a request that changed the namespace. */
  #answer(req: HttpRequest, trace: RequestTrace): Promise<HttpResponse> {
    const answer = handle(req, this.#core.deps);
    if (!this.autoCheckpoints || trace.info.operation === 'admin' || READS.has(req.method)) return answer;
    return answer.then((response) => this.#autoCheckpoint(req, trace, response));
  }

  /**
   * Hermes accepted a request that may change what it holds (a 2xx to anything but a read; a replay changed nothing):
   * the namespace's state now, as the current branch's new head, named on the answer and the journal entry. A store
   * that is busy, or a state past the checkpoints' bounds, skips it (counted) and the answer goes as it is.
   */
  #autoCheckpoint(req: HttpRequest, trace: RequestTrace, response: HttpResponse): HttpResponse {
    if (response.status < 200 || response.status >= 300) return response;
    if (response.headers.some(([name, value]) => name === 'Idempotency-Replayed' && value === 'true')) return response;
    try {
      const { id } = this.checkpoint(`${req.method} ${clip(req.path)}`);
      response.headers.push([CHECKPOINT_HEADER, id]);
      trace.checkpoint = id;
    } catch (e) {
      this.checkpoints.skipped();
      if (!(e instanceof StoreUnavailable) && !(e instanceof HermeticError)) this.#shared.onInternalError(e);
    }
    return response;
  }

  /** Seeded emulators give each namespace its own repeatable stream (the default keeps the seed as given). */
  #idSource(): IdSource {
    const seed = this.#shared.options.seed;
    if (seed === null) return createIdSource();
    return createIdSource(this.isDefault ? seed : `${seed}/ns/${this.name}`);
  }

  /** A gateway over this namespace's clock, settings and store: run memory, agent, services, handler deps. */
  #build(owner: OwnerIdentity, store: RunTable): Core {
    const { options, lock, onInternalError, warn } = this.#shared;
    const { clock, gateway } = this;
    const ids = this.#idSource();
    const registry = new RunRegistry(clock, store, owner, lock);
    const sinks: TurnSink[] = [this.sessions.recorder, ...(this.#recorder ? [this.#recorder] : [])];
    const turns = new TurnRecorder(() => clock.now(), () => gateway.modelName, sinks, () => gateway.agentModel, options.redactSecrets);
    const agent = new FakeAgent(registry, clock, ids, { ...options.agent }, turns, options.redactSecrets);
    agent.script = this.scenarios;
    const service = new RunService(registry, gateway, ids, agent);
    registry.startSweeps();
    const sessions = new SessionService({
      table: this.sessions.table,
      recorder: this.sessions.recorder,
      chat: { service, registry, agent, gateway },
      clock,
      ids: () => this.#core.ids,
      gateway,
      lock,
      mirror: this.#recorder,
      onMirrorError: (e) => warn('state-db', backgroundFailureLine('recording a session into the --state-db file', e)),
    });
    const deps: AppDeps = {
      clock,
      api: { service, sessions, registry, gateway, clock, durable: this.durable, onInternalError, onStoreFailure: (request, e) => warn('request', storeFailureLine(request, e)) },
      admin: { clock, gateway, registry, agent, onInternalError, namespace: this, namespaces: this.#shared.namespaces, adminKey: options.adminKey },
    };
    return { ids, registry, agent, service, turns, deps };
  }

  /**
   * A gateway crash and restart on the same store: Hermes writes statuses synchronously, so what it wrote survives.
   * What cannot be committed now is lost, as a crash would lose it (no client has seen it: answers wait for commits).
   */
  restart(): void {
    const { registry, turns } = this.#core;
    try {
      registry.store.commit();
    } catch {
      // lost with the emulated process
    }
    registry.stopSweeps();
    this.scenarios.cancelPlays();
    registry.clearMemory();
    // What the agents had persisted stays (their tool calls too); the turns under way go with the process.
    turns.crash();
    releaseOwner(registry.owner);
    let store = registry.store;
    if (this.#shared.options.db === ':memory:') {
      // Hermes's in-memory fallback store dies with the process: nothing replays after a restart.
      store.close();
      store = this.isDefault ? this.#shared.openStore(this.name) : new LazyRunTable(() => this.#shared.openStore(this.name));
    }
    registry.restarted(claimOwner(), store);
    this.gateway.draining = false;
    registry.startSweeps();
  }

  /**
   * Back to how the options describe a new namespace: no runs, no durable rows, the start time, the first settings,
   * the seed's first ids. The clock and settings objects stay the same (callers may hold them); checkpoints are kept.
   */
  reset(): void {
    const { registry, turns } = this.#core;
    // The rows first: a store that refuses (locked, failing) fails the reset before anything else has changed. A
    // store private to the namespace is simply closed (its memory goes back).
    const store = registry.store;
    if (store instanceof LazyRunTable) store.discard();
    else store.replaceAll([]);
    this.sessions.reset();
    this.traffic.reset();
    this.faults.reset();
    this.scenarios.reset();
    registry.stopSweeps();
    registry.clearMemory();
    turns.reset();
    const { options } = this.#shared;
    // The caller's clock keeps its time; the namespace's timers on it go, as a clock of its own would drop them.
    if (this.#ownClock) this.#ownClock.reset({ start: options.time ?? undefined, frozen: options.frozen });
    else this.#borrowed!.cancelTimers();
    Object.assign(this.gateway, initialSettings(options));
    this.checkpoints.detach();
    this.autoCheckpoints = options.autoCheckpoints;
    this.#core = this.#build(registry.owner, store);
  }

  /** The request tallies the metrics count, started over (the journal stays). */
  resetMetrics(): void {
    this.traffic.resetCounts();
  }

  /** The clock alone back to how the options start it; false when it is a clock the caller gave (left alone). */
  resetClock(): boolean {
    if (!this.#ownClock) return false;
    const { options } = this.#shared;
    this.#ownClock.reset({ start: options.time ?? undefined, frozen: options.frozen });
    return true;
  }

  /**
   * Saves this namespace's state as the current branch's new head (checkpoints.ts); kept across a reset of the
   * namespace. `request`: the request it follows ("METHOD /path"), for an automatic one.
   */
  checkpoint(request: string | null = null): CheckpointSummary {
    const takenAt = this.clock.now();
    return this.checkpoints.take(this.#parts, (states) => {
      const core = states.get('core') as CoreState;
      return { taken_at: takenAt, runs: core.memory.statuses.length, durable_rows: core.rows.length, clock: this.#ownClock ? 'namespace' : 'caller' };
    }, request);
  }

  restoreCheckpoint(id: string): CheckpointSummary {
    return this.checkpoints.restore(id, this.#parts);
  }

  /** The branch becomes the current one, at `id` (its head moves there) or at its head; the state is that checkpoint's. */
  checkout(branch: string, id?: string): { branch: string; checkpoint: CheckpointSummary | null } {
    return this.checkpoints.checkout(branch, id, this.#parts);
  }

  timeline(): TimelineView {
    return this.checkpoints.timeline(this.autoCheckpoints);
  }

  /** The core part: durable rows (held writes committed first when they can be), run memory, clock, settings, ids. */
  #snapshotCore(): CoreState {
    const { registry, agent, ids, turns } = this.#core;
    return {
      turns: turns.snapshot(),
      clock: this.#ownClock ? { now: this.clock.now(), frozen: this.clock.frozen } : null,
      gateway: copySettings(this.gateway),
      rows: registry.store.rows(),
      memory: registry.snapshotMemory((run) => agent.steerRaises(run)),
      idPosition: ids.position,
    };
  }

  /** Puts the core state back (attached event streams are cut, as in a restart); the rows first, so a store that refuses changes nothing. */
  #restoreCore(state: CoreState): void {
    const { registry, agent, ids, turns } = this.#core;
    registry.store.replaceAll(state.rows);
    turns.restore(state.turns);
    registry.stopSweeps();
    registry.clearMemory();
    // A clock of the namespace's own goes back to the checkpoint's time; the caller's keeps its time (decision 0067),
    // and only the namespace's timers on it are cancelled (re-armed below at the times they were due).
    if (this.#ownClock && state.clock) this.#ownClock.reset({ start: state.clock.now, frozen: state.clock.frozen });
    else this.#borrowed?.cancelTimers();
    Object.assign(this.gateway, copySettings(state.gateway));
    if (state.idPosition !== undefined) ids.seek?.(state.idPosition);
    registry.restoreMemory(state.memory, (run) => void agent.revive(run));
    registry.startSweeps();
  }

  close(): void {
    const { registry } = this.#core;
    this.faults.close();
    this.scenarios.cancelPlays();
    registry.stopSweeps();
    registry.clearMemory();
    releaseOwner(registry.owner);
    if (this.#ownClock) this.#ownClock.close();
    else this.#borrowed!.cancelTimers();
    registry.store.close();
    this.sessions.close();
    this.#recorder?.close();
    // Its journal's slots go back to the other namespaces'.
    this.traffic.journal.reset();
  }
}
