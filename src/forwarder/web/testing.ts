// A dashboard over a dataset for tests and the screenshot script: Hermes stores (generated, or the repository's
// fixtures) backfilled into a temporary home, `hermetic web`'s server on a free loopback port, `now` fixed.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { generate } from '../../state-db/generate/index.js';
import { copyFixture, tempDir } from '../../state-db/testing/fixtures.js';
import { forwarderRig } from '../testing/index.js';
import { sqliteSource } from './data/sqlite.js';
import { startWebServer } from './server.js';

/** Wednesday 2026-07-15 10:30 UTC: the generated month of history ends here. */
export const DASHBOARD_NOW = Date.UTC(2026, 6, 15, 10, 30) / 1000;

export interface DashboardRig {
  url: string;
  home: string;
  /** The dataset, read-only, for computing what the page must show. */
  db: Database.Database;
  now: number;
  close(): Promise<void>;
}

export interface DashboardRigOptions {
  /** Generated history (the default: 150 sessions over 30 days ending at `now`), or the named repository fixtures. */
  fixtures?: readonly string[];
  sessions?: number;
  messages?: number;
  now?: number;
  timeZone?: string;
}

export async function dashboardRig(options: DashboardRigOptions = {}): Promise<DashboardRig> {
  const { dir, cleanup } = tempDir('hermetic-web-');
  const now = options.now ?? DASHBOARD_NOW;
  const stores = options.fixtures
    ? options.fixtures.map((name) => copyFixture(name, dir))
    : [generate({ out: join(dir, 'hermes', 'state.db'), sessions: options.sessions ?? 150, messages: options.messages ?? 3000, seed: 'dashboard', end: now, days: 30 }).path];
  const rig = forwarderRig(stores, { dir, timeZone: options.timeZone ?? 'Europe/Berlin' });
  rig.forwarder.backfill();
  rig.forwarder.close();
  const db = new Database(join(rig.home, 'hermetic.db'), { readonly: true });
  const served = new Database(join(rig.home, 'hermetic.db'), { readonly: true });
  const server = await startWebServer({ source: sqliteSource(served), port: 0, now: () => now * 1000, onError: (e) => { throw e; } });
  return {
    url: server.url, home: rig.home, db, now,
    close: async () => {
      await server.close();
      served.close();
      db.close();
      cleanup();
    },
  };
}
