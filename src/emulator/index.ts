// createEmulator: Hermes v2026.8.31's /v1/runs surface with a fake agent, as an in-process Fetch handler.
import { ControlledClock } from '../shared/clock.js';
import { createIdSource } from '../shared/ids.js';
import { createAdminClient, type AdminClient } from './admin/client.js';
import { handle, type AppDeps } from './app.js';
import { fromFetchRequest, toFetchResponse } from './fetch.js';
import type { GatewaySettings } from './gateway.js';
import { normaliseCap } from './gateway.js';
import type { HttpRequest, HttpResponse } from './http.js';
import { parseEmulatorOptions, type EmulatorOptions } from './options.js';
import { StateDbRecorder } from './record/state-db.js';
import { FakeAgent } from './runs/agent.js';
import { claimOwner, releaseOwner } from './runs/owner.js';
import { RunRegistry } from './runs/registry.js';
import { RunService } from './runs/service.js';
import { realLockWait } from './store/busy.js';
import { openRunTable } from './store/db.js';

export type { EmulatorOptions } from './options.js';

export interface Emulator {
  /** Answers a standard Request exactly as Hermes would. */
  fetch(request: Request): Promise<Response>;
  /** The transport-neutral handler (used by the node:http server). */
  handle(request: HttpRequest): Promise<HttpResponse>;
  /** The control plane, driven through this emulator's fetch. */
  readonly admin: AdminClient;
  readonly clock: ControlledClock;
  readonly gateway: GatewaySettings;
  /** Emulates a gateway crash and restart on the same store. */
  restart(): void;
  close(): Promise<void>;
}

/**
 * @example
 *   const hermes = createEmulator({ apiKey: 'test-key-0123456789abcdef' });
 *   const res = await hermes.fetch(new Request('http://hermes.test/v1/runs', {
 *     method: 'POST', headers: { Authorization: 'Bearer test-key-0123456789abcdef' }, body: '{"input":"hi"}' }));
 */
export function createEmulator(input?: EmulatorOptions): Emulator {
  const options = parseEmulatorOptions(input);
  const clock = options.clock ?? new ControlledClock({ start: options.time ?? undefined, frozen: options.frozen });
  const ids = createIdSource(options.seed ?? undefined);
  const gateway: GatewaySettings = {
    apiKey: options.apiKey,
    draining: options.draining,
    maxConcurrentRuns: normaliseCap(options.maxConcurrentRuns),
    modelName: options.modelName,
    corsOrigins: [...options.corsOrigins],
    profiles: new Map(Object.entries(options.profiles)),
  };
  const lock = realLockWait(options.lockTimeout * 1000);
  let lastWarning = -Infinity;
  // A private store (db: null) is an in-memory database this emulator keeps across its emulated restarts.
  const openStore = () =>
    openRunTable(options.db ?? ':memory:', {
      kind: options.runTable,
      lock,
      onBackgroundError: (e) => {
        // A locked store can fail a background commit every few ms: say so once every 10 s, not each time.
        if (performance.now() - lastWarning < 10_000) return;
        lastWarning = performance.now();
        console.warn(`hermetic: ${e.message}; held status writes are retried, and nothing that shows them is answered until they are saved`);
      },
    });
  const registry = new RunRegistry(clock, openStore(), claimOwner(), lock);
  const recorder = options.stateDb
    ? new StateDbRecorder(options.stateDb, { now: () => clock.now(), ids, modelName: () => gateway.modelName })
    : null;
  const agent = new FakeAgent(registry, clock, ids, { ...options.agent }, recorder);
  const service = new RunService(registry, gateway, ids, agent);
  registry.startSweeps();

  const restart = (): void => {
    // Hermes writes statuses synchronously: what it wrote survives the crash. What cannot be committed now is lost,
    // as a crash would lose it (no client has seen it: answers wait for their commit).
    try {
      registry.store.commit();
    } catch {
      // lost with the emulated process
    }
    registry.clearMemory();
    recorder?.reset();
    releaseOwner(registry.owner);
    registry.owner = claimOwner();
    if (options.db === ':memory:') {
      // Hermes's in-memory fallback store dies with the process: nothing replays after a restart.
      registry.store.close();
      registry.store = openStore();
    }
    gateway.draining = false;
    registry.startSweeps();
  };

  /** Our own bugs are never dressed up as Hermes's answers without a trace: they are reported with their stack. */
  const onInternalError =
    options.onInternalError ??
    ((error: unknown): void => {
      console.error(`hermetic: internal error (a bug in Hermetic, not an emulated Hermes error; please report it):\n${(error as Error)?.stack ?? String(error)}`);
    });
  const deps: AppDeps = {
    clock,
    api: { service, registry, gateway, clock, durable: options.db !== ':memory:', onInternalError },
    admin: { clock, gateway, registry, agent, restart, onInternalError },
  };
  const handleRequest = (req: HttpRequest) => handle(req, deps);
  const fetch = async (request: Request) =>
    toFetchResponse(await handleRequest(fromFetchRequest(request)), request.method.toUpperCase() === 'HEAD');
  let closed = false;

  return {
    fetch,
    handle: handleRequest,
    admin: createAdminClient(fetch, 'http://hermes.invalid'),
    clock,
    gateway,
    restart,
    async close() {
      if (closed) return;
      closed = true;
      registry.stopSweeps();
      registry.clearMemory();
      releaseOwner(registry.owner);
      if (!options.clock) clock.close();
      registry.store.close();
      recorder?.close();
    },
  };
}
