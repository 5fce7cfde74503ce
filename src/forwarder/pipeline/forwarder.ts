// The forwarder as a library: its options checked once (forwarder-options.ts, which names each environment variable's
// one reader), the stores discovered for each pass (stores.ts), one sink, the usage policy, and the two ways to run a
// pass (passes.ts; backfill: windowed, origin `backfill`; forward: everything changed, origin `forward`), each also as
// a pass that lets the event loop run between its batches (a SIGINT handler can stop it there).
import { resolve } from 'node:path';
import { hermeticHome } from '../home.js';
import { explicitTimeZone } from '../ledger/zone.js';
import { createPolicyResolver } from '../policy/index.js';
import type { StoreRef } from '../reader/discover.js';
import type { Sink } from '../sinks/sink.js';
import { LazySqliteSink } from '../sinks/sqlite/lazy.js';
import { buildAside, checkForwarderOptions, readWorkerMode, type ForwarderOptions } from './forwarder-options.js';
import { Passes, type PassOptions } from './passes.js';
import { chunkOf } from './chunk-size.js';
import type { StepResult } from './step.js';
import { forwarderStores, storesOfPasses } from './stores.js';

export type { ForwarderOptions } from './forwarder-options.js';
export type { PassOptions } from './passes.js';

export interface Forwarder {
  readonly home: string;
  readonly sink: Sink;
  stores(): StoreRef[];
  backfill(options?: PassOptions): StepResult[];
  forwardOnce(options?: PassOptions): StepResult[];
  /** The same passes, letting the event loop run after each committed batch and while a lock is waited for (where `keepGoing` may stop them). */
  backfillAsync(options?: PassOptions): Promise<StepResult[]>;
  forwardOnceAsync(options?: PassOptions): Promise<StepResult[]>;
  close(): void;
}

/** A forward pass reads everything changed: no window. */
const forwardPass = (o: PassOptions = {}): PassOptions => ({ ...o, since: undefined, until: undefined });

/**
 * @example const f = createForwarder({ stateDbs: ['/tmp/state.db'], home: '/tmp/h' }); f.backfill(); f.close();
 */
export function createForwarder(input: ForwarderOptions = {}): Forwarder {
  const options = checkForwarderOptions(input);
  const home = resolve(hermeticHome(options.home));
  // HERMETIC_TZ is checked with the options, not first when a pass opens the dataset: there a bad zone was said as
  // the store's failure (decision 0126, addendum).
  explicitTimeZone(options.timeZone);
  const readWorker = readWorkerMode(options.readWorker);
  const now = options.now ?? Date.now;
  // Opened on the first write: a pass that writes nothing creates no dataset.
  const sink = options.sink ?? new LazySqliteSink(home, { timeZone: options.timeZone, buildAside: buildAside(options.buildAside), onUpgrade: options.onDatasetUpgrade });
  const policy = createPolicyResolver({ stateDir: home, now });
  const stores = forwarderStores(options, home, sink);
  const passes = new Passes({
    home, sink, policy, stores: storesOfPasses(stores), now, redact: options.redact ?? false, readWorker, chunk: chunkOf(options),
  });
  return {
    home, sink, stores,
    backfill: (o) => passes.run('backfill', o),
    forwardOnce: (o) => passes.run('forward', forwardPass(o)),
    backfillAsync: (o) => passes.runAsync('backfill', o),
    forwardOnceAsync: (o) => passes.runAsync('forward', forwardPass(o)),
    close: () => sink.close(),
  };
}
