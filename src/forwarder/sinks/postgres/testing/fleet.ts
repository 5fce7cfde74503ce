// A fleet store for tests: generated histories, each backfilled into a dataset of its own, then shipped into a
// PostgreSQL database as their machines (one batch each, as a first shipment of a backfill would be).
import { join } from 'node:path';
import { generatedStore } from '../../../../state-db/testing/generated.js';
import { forwarderRig } from '../../../testing/index.js';
import type { Origin } from '../../remote/contract.js';
import { createPostgresSink } from '../index.js';
import { datasetBatch } from './rows.js';

/** A month of generated history (`sessions`, 20 messages each, ending at `end`) backfilled in `dir`; the dataset's path. */
export function generatedDataset(dir: string, options: { sessions: number; seed: string; end: number; timeZone: string }): string {
  const g = generatedStore({ out: join(dir, 'hermes', 'state.db'), sessions: options.sessions, messages: options.sessions * 20, seed: options.seed, end: options.end, days: 30 });
  const rig = forwarderRig([g.path], { dir, timeZone: options.timeZone });
  rig.forwarder.backfill();
  rig.forwarder.close();
  return join(rig.home, 'hermetic.db');
}

/** Writes each dataset's shipped rows into the fleet store at `url` as its machine. */
export async function shipDatasets(url: string, ships: readonly (readonly [datasetPath: string, origin: Origin])[]): Promise<void> {
  const sink = createPostgresSink(url);
  await sink.open();
  try {
    for (const [path, origin] of ships) await sink.write(datasetBatch(path, origin, 1));
  } finally {
    await sink.close();
  }
}
