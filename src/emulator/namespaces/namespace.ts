// One namespace: a whole emulated gateway of its own — clock, ids, settings, run memory, durable rows, fake agent —
// answering through the same front door (app.ts). The default namespace is the gateway createEmulator always had.
import { ControlledClock } from '../../shared/clock.js';
import { createIdSource, type IdSource } from '../../shared/ids.js';
import { finish, handle, type AppDeps } from '../app.js';
import { Faults } from '../faults/index.js';
import { normaliseCap, type GatewaySettings } from '../gateway.js';
import type { HttpRequest, HttpResponse } from '../http.js';
import type { ParsedEmulatorOptions } from '../options.js';
import { StateDbRecorder } from '../record/state-db.js';
import { TurnRecorder, type TurnSink } from '../record/turns.js';
import { FakeAgent } from '../runs/agent.js';
import { claimOwner, releaseOwner } from '../runs/owner.js';
import { RunRegistry } from '../runs/registry.js';
import type { LockWait, RunTable } from '../runs/run-table.js';
import { RequestTraffic } from '../journal/traffic.js';
import { RunService } from '../runs/service.js';
import { ScenarioBook } from '../scenarios/index.js';
import { SessionService, Sessions } from '../sessions/index.js';
import { openSessionTable } from '../store/session-table.js';
import { Checkpoints, type CheckpointPart, type CheckpointSummary } from './checkpoints.js';
import { DEFAULT_NAMESPACE } from './names.js';
import type { Namespaces } from './index.js';

/** What every namespace of one emulator shares. */
export interface NamespaceShared {
  readonly options: ParsedEmulatorOptions;
  readonly lock: LockWait;
  /** Opens a namespace's run table: the default one on options.db, the others on a store private to them. */
  openStore(name: string): RunTable;
  readonly onInternalError: (error: unknown) => void;
  /** The emulator's namespaces (the admin routes that list, reset or describe them). */
  readonly namespaces: () => Namespaces;
}

/** The gateway settings the options describe (a reset goes back to these). */
function initialSettings(options: ParsedEmulatorOptions): GatewaySettings {
  return {
    apiKey: options.apiKey,
    draining: options.draining,
    maxConcurrentRuns: normaliseCap(options.maxConcurrentRuns),
    modelName: options.modelName,
    corsOrigins: [...options.corsOrigins],
    profiles: new Map(Object.entries(options.profiles)),
  };
}

export class Namespace {
  readonly clock: ControlledClock;
  readonly gateway: GatewaySettings;
  /** Wall-clock milliseconds when the namespace was created (first used). */
  readonly createdAt = Date.now();
  store: RunTable;
  ids!: IdSource;
  registry!: RunRegistry;
  agent!: FakeAgent;
  service!: RunService;
  deps!: AppDeps;
  /** State owned by other parts (fault rules, scenarios) that checkpoints save and restore, by name. */
  readonly checkpointParts = new Map<string, CheckpointPart>();
  readonly checkpoints = new Checkpoints();
  /** The request journal, per-request tallies for metrics, and the onRequest listener (journal/traffic.ts). */
  readonly traffic: RequestTraffic;
  /** Fault rules (faults/index.ts): the pipeline step between the journal and the gateway; a checkpoint part. */
  readonly faults: Faults;
  /** Scenarios (scenarios/book.ts): the fake agent's script; a checkpoint part. */
  readonly scenarios: ScenarioBook;
  /** The API server's sessions (sessions/): their store and the sink of the agent's turns; a checkpoint part. */
  readonly sessions: Sessions;
  readonly #shared: NamespaceShared;
  readonly #ownClock: boolean;
  readonly #recorder: StateDbRecorder | null;
  /** Hands each run's turn to the sessions and the --state-db recorder (rebuilt with the agent). */
  #turns!: TurnRecorder;

  constructor(
    readonly name: string,
    shared: NamespaceShared,
  ) {
    this.#shared = shared;
    const { options } = shared;
    // The default namespace may run on a clock the caller gave; every other namespace has a clock of its own.
    this.#ownClock = !(options.clock && name === DEFAULT_NAMESPACE);
    this.clock = this.#ownClock
      ? new ControlledClock({ start: options.time ?? undefined, frozen: options.frozen })
      : options.clock!;
    this.gateway = initialSettings(options);
    this.store = shared.openStore(name);
    this.traffic = new RequestTraffic(name, options.journalSize, () => this.clock, options.onRequest);
    // Probability draws follow the namespace's seed as its ids do (no seed: random draws).
    const seed = options.seed === null ? null : name === DEFAULT_NAMESPACE ? options.seed : `${options.seed}/ns/${name}`;
    this.faults = new Faults({ clock: this.clock, seed, initial: options.faults, finish: (r) => finish(r, this.clock) });
    this.checkpointParts.set('faults', this.faults);
    this.scenarios = new ScenarioBook(this, options.scenarios);
    this.checkpointParts.set('scenarios', this.scenarios);
    // The recorder draws from whichever id stream the namespace has now (a reset starts a new one).
    const ids: IdSource = { uuid4Hex: () => this.ids.uuid4Hex(), seeded: options.seed !== null };
    this.#recorder = options.stateDb ? new StateDbRecorder(options.stateDb, { now: () => this.clock.now(), ids }) : null;
    // Sessions outlive the gateway's restarts, as Hermes's state.db does: the default namespace's beside its run rows
    // in the --db file, every other namespace's in memory (decision 0026).
    const file = this.isDefault && options.db !== null && options.db !== ':memory:' ? options.db : ':memory:';
    this.sessions = new Sessions(openSessionTable(file, shared.lock), shared.lock, (e) => warn('recording a turn into the sessions', e));
    this.checkpointParts.set('sessions', this.sessions);
    this.#build(claimOwner());
  }

  get isDefault(): boolean {
    return this.name === DEFAULT_NAMESPACE;
  }

  /** Whether the durable rows are on disk (capabilities advertise it). */
  get durable(): boolean {
    return this.#shared.options.db !== ':memory:';
  }

  /**
   * Answers one request whose path has already lost its /ns/<name> prefix. This is the namespace's request pipeline:
   * the place where what the request does (describeRequest) meets the namespace's fault rules and request journal.
   */
  handle(req: HttpRequest): Promise<HttpResponse> {
    const trace = this.traffic.begin(req);
    return this.faults.handle(req, (r) => handle(r, this.deps), trace).then(
      (response) => this.traffic.end(req, trace, response),
      (error: unknown) => {
        this.traffic.failed(req, trace);
        throw error;
      },
    );
  }

  /** Seeded emulators give each namespace its own repeatable stream (the default keeps the seed as given). */
  #idSource(): IdSource {
    const seed = this.#shared.options.seed;
    if (seed === null) return createIdSource();
    return createIdSource(this.isDefault ? seed : `${seed}/ns/${this.name}`);
  }

  /** Run memory, agent and service over this namespace's clock, settings and store. */
  #build(owner: ReturnType<typeof claimOwner>): void {
    const { options, lock, onInternalError } = this.#shared;
    this.ids = this.#idSource();
    this.registry = new RunRegistry(this.clock, this.store, owner, lock);
    const sinks: TurnSink[] = [this.sessions.recorder, ...(this.#recorder ? [this.#recorder] : [])];
    this.#turns = new TurnRecorder(() => this.clock.now(), () => this.gateway.modelName, sinks);
    this.agent = new FakeAgent(this.registry, this.clock, this.ids, { ...options.agent }, this.#turns);
    this.agent.script = this.scenarios;
    this.service = new RunService(this.registry, this.gateway, this.ids, this.agent);
    this.registry.startSweeps();
    const { clock, gateway, registry, agent, service } = this;
    const sessions = new SessionService({
      table: this.sessions.table,
      recorder: this.sessions.recorder,
      chat: { registry, agent, ids: this.ids, clock, gateway },
      clock,
      ids: () => this.ids,
      gateway,
      lock,
      mirror: this.#recorder,
      onMirrorError: (e) => warn('recording a session into the --state-db file', e),
    });
    this.deps = {
      clock,
      api: { service, sessions, registry, gateway, clock, durable: this.durable, onInternalError },
      admin: {
        clock, gateway, registry, agent, onInternalError,
        namespace: this,
        namespaces: this.#shared.namespaces,
        adminKey: options.adminKey,
        restart: () => this.restart(),
      },
    };
  }

  /**
   * A gateway crash and restart on the same store: Hermes writes statuses synchronously, so what it wrote survives.
   * What cannot be committed now is lost, as a crash would lose it (no client has seen it: answers wait for commits).
   */
  restart(): void {
    const { registry } = this;
    try {
      registry.store.commit();
    } catch {
      // lost with the emulated process
    }
    registry.stopSweeps();
    this.scenarios.cancelPlays();
    registry.clearMemory();
    this.#turns.reset();
    releaseOwner(registry.owner);
    registry.owner = claimOwner();
    if (this.#shared.options.db === ':memory:') {
      // Hermes's in-memory fallback store dies with the process: nothing replays after a restart.
      registry.store.close();
      this.store = registry.store = this.#shared.openStore(this.name);
    }
    this.gateway.draining = false;
    registry.startSweeps();
  }

  /**
   * Back to how the options describe a new namespace: no runs, no durable rows, the start time, the first settings,
   * the seed's first ids. The clock and settings objects stay the same (callers may hold them).
   */
  reset(): void {
    // The rows first: a store that refuses (locked, failing) fails the reset before anything else has changed.
    this.store.replaceAll([]);
    this.sessions.reset();
    this.traffic.reset();
    this.faults.reset();
    this.scenarios.reset();
    this.registry.stopSweeps();
    this.registry.clearMemory();
    this.#turns.reset();
    const { options } = this.#shared;
    if (this.#ownClock) this.clock.reset({ start: options.time ?? undefined, frozen: options.frozen });
    Object.assign(this.gateway, initialSettings(options));
    this.#build(this.registry.owner);
  }

  /** Saves this namespace's state (checkpoints.ts); kept across a reset of the namespace. */
  checkpoint(): CheckpointSummary {
    return this.checkpoints.take(this, this.#ownClock ? this.clock : null, this.checkpointParts);
  }

  restoreCheckpoint(id: string): CheckpointSummary {
    return this.checkpoints.restore(this, id, this.#ownClock ? this.clock : null, this.checkpointParts);
  }

  close(): void {
    this.faults.close();
    this.scenarios.cancelPlays();
    this.registry.stopSweeps();
    this.registry.clearMemory();
    releaseOwner(this.registry.owner);
    if (this.#ownClock) this.clock.close();
    this.store.close();
    this.sessions.close();
    this.#recorder?.close();
  }
}

/** A write Hermetic could not make in the background (the request it belongs to has been answered). */
function warn(what: string, error: unknown): void {
  console.warn(`hermetic: ${what} failed: ${(error as Error)?.message ?? String(error)}`);
}
