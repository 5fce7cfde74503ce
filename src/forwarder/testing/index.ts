// Test helpers for the forwarder: a temporary Hermetic home and user home, a forwarder over given stores, and the
// dataset opened for assertions.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createIdSource } from '../../shared/ids.js';
import { createStore } from '../../state-db/schema/create.js';
import { StateDbWriter } from '../../state-db/writer/index.js';
import { copyFixture, tempDir } from '../../state-db/testing/fixtures.js';
import { DATASET_TABLES } from '../dataset/columns.js';
import { createForwarder, type Forwarder, type ForwarderOptions } from '../pipeline/forwarder.js';
import type { Batch, Sink } from '../sinks/sink.js';
import { SqliteSink } from '../sinks/sqlite/sink.js';
import { COUNTED_TABLES } from '../sinks/sqlite/row-counts.js';
import { toolCallsFromParts } from '../sinks/sqlite/tool-calls.js';

export interface Rig {
  dir: string;
  home: string;
  forwarder: Forwarder;
  /** The dataset, read-only, for assertions. */
  query<T = Record<string, unknown>>(sql: string, ...params: unknown[]): T[];
  cleanup(): void;
}

/** A Hermes store at the latest schema in a temp folder's `hermes/` (a Hermes home: its channel scopes hang there), a writer on it. */
export interface HermesStore {
  dir: string;
  path: string;
  db: Database.Database;
  w: StateDbWriter;
  cleanup(): void;
}

/** @example const s = hermesStore('hermetic-x-', 'seed'); s.w.createSession({ source: 'cli' }); s.db.close(); */
export function hermesStore(prefix: string, seed: string, now: () => number = () => 1_780_000_000): HermesStore {
  const { dir, cleanup } = tempDir(prefix);
  const path = join(dir, 'hermes', 'state.db');
  mkdirSync(join(dir, 'hermes'), { recursive: true });
  const db = createStore({ path, level: 31, journal: 'delete', fts: false });
  return { dir, path, db, w: new StateDbWriter(db, { now, ids: createIdSource(seed) }), cleanup };
}

export function forwarderRig(stateDbs: string[], options: Omit<ForwarderOptions, 'stateDbs'> & { dir?: string } = {}): Rig {
  const { dir: given, ...forwarderOptions } = options;
  const own = given ? null : tempDir('hermetic-fwd-');
  const dir = given ?? own!.dir;
  const home = options.home ?? join(dir, 'hermetic-home');
  const forwarder = createForwarder({ userHome: dir, hermesHome: undefined, now: () => 1_800_000_000_000, ...forwarderOptions, home, stateDbs });
  let ro: Database.Database | null = null;
  return {
    dir, home, forwarder,
    query: <T>(sql: string, ...params: unknown[]) => {
      ro ??= new Database(join(home, 'hermetic.db'), { readonly: true });
      return ro.prepare(sql).all(...params) as T[];
    },
    cleanup: () => { ro?.close(); forwarder.close(); own?.cleanup(); },
  };
}

/**
 * A dataset of one session of one message, backfilled into a temp folder: for commands that read a dataset (query,
 * report) where what it holds does not matter. Returns its home; `cleanup` removes the folder.
 * @example const { home, cleanup } = oneMessageDataset('hermetic-q-'); t.after(cleanup);
 */
export function oneMessageDataset(prefix: string): { home: string; cleanup(): void } {
  const { dir, cleanup, path, w, db } = hermesStore(prefix, prefix);
  w.appendMessages(w.createSession({ source: 'cli' }), [{ role: 'user', content: 'hi' }]);
  db.close();
  const rig = forwarderRig([path], { dir });
  rig.forwarder.backfill();
  rig.cleanup();
  return { home: rig.home, cleanup };
}

/**
 * Every forwarded table (without `origin`, which says which command wrote a row), each cursor's tail and what the
 * writer keeps beside the rows (`tool_calls`, `row_counts`: decision 0069), in key order: two datasets of the same
 * store compare equal when a forward tick left what a clean backfill writes.
 */
export function datasetDump(rig: Pick<Rig, 'query'>): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const t of DATASET_TABLES.filter((x) => !x.internal && x.name !== 'usage_events')) {
    const cols = t.columns.map((c) => `"${c.name}"`).filter((c) => c !== '"origin"');
    out[t.name] = rig.query(`SELECT ${cols.join(', ')} FROM "${t.name}" ORDER BY ${t.primaryKey.map((c) => `"${c}"`).join(', ')}`);
  }
  out.tails = rig.query('SELECT session_id, tail FROM session_cursors ORDER BY session_id');
  out.tool_calls = rig.query('SELECT * FROM tool_calls ORDER BY store, session_id, call_id');
  // usage_events is the log of what was observed: a tick may have seen more than a backfill (left out above too).
  out.row_counts = rig.query("SELECT * FROM row_counts WHERE tbl <> 'usage_events' ORDER BY tbl");
  return out;
}

/**
 * Where what the writer keeps beside the rows differs from the rows themselves, as sentences (none when exact):
 * `row_counts` against COUNT(*) of each table, `tool_calls` against the grouping of `parts` it stands for.
 */
export function keptDifferences(rig: Pick<Rig, 'query'>): string[] {
  const problems: string[] = [];
  const kept = new Map(rig.query<{ tbl: string; rows: number }>('SELECT tbl, rows FROM row_counts').map((r) => [r.tbl, r.rows]));
  for (const t of COUNTED_TABLES) {
    const [{ n }] = rig.query<{ n: number }>(`SELECT COUNT(*) AS n FROM "${t}"`) as [{ n: number }];
    if (kept.get(t) !== n) problems.push(`row_counts says ${kept.get(t)} rows of ${t}, it has ${n}`);
  }
  const order = ' ORDER BY store, session_id, call_id';
  const want = JSON.stringify(rig.query(`SELECT * FROM (${toolCallsFromParts()})${order}`));
  const got = JSON.stringify(rig.query(`SELECT * FROM tool_calls${order}`));
  if (want !== got) problems.push(`tool_calls differs from the grouping of parts: ${got.slice(0, 300)} against ${want.slice(0, 300)}`);
  return problems;
}

let cleanRuns = 0;

/**
 * Asserts that the rig's dataset is, row for row and tail for tail, what a clean backfill of `stateDb` writes now
 * (into a fresh home in the rig's folder, read on one thread): how tick tests check a delta left nothing behind.
 */
export function assertCleanBackfill(rig: Pick<Rig, 'dir' | 'query'>, stateDb: string, label: string, options: Pick<ForwarderOptions, 'now'> = {}): void {
  const clean = forwarderRig([stateDb], { dir: rig.dir, home: join(rig.dir, `clean-${++cleanRuns}`), readWorker: 'off', ...options });
  try {
    assert.equal(clean.forwarder.backfill()[0]!.error, null);
    assert.deepEqual(datasetDump(rig), datasetDump(clean), `after ${label} the dataset is a clean backfill's`);
    assert.deepEqual(keptDifferences(rig), [], `after ${label} the kept counts and calls are the rows'`);
  } finally {
    clean.cleanup();
  }
}

/**
 * A sink over `real` whose write of a batch holding session `sessionId` fails as a constraint would (the session is
 * quarantined, the rest lands), while `failing()` says so.
 * @example const sink = sinkFailingFor(SqliteSink.open(home), id, () => failing);
 */
export function sinkFailingFor(real: Sink, sessionId: string, failing: () => boolean): Sink {
  return {
    write(batch: Batch) {
      if (failing() && batch.writes.some((w) => w.sessionId === sessionId)) throw Object.assign(new Error('disk says no to this one'), { code: 'SQLITE_CONSTRAINT_CHECK' });
      return real.write(batch);
    },
    cursors: (s) => real.cursors(s),
    dataVersion: () => real.dataVersion(),
    close: () => real.close(),
  };
}

/** The `basic` fixture's session that `failingSessionRig` fails to write. */
export const FAILING_SESSION = '20260528_214744_414d27';

/** A rig whose writes of FAILING_SESSION fail while `failing` is true, on a clock (`now`, ms) the test moves. */
export interface FailingSessionRig extends Rig {
  /** The copy of the `basic` fixture it forwards. */
  path: string;
  failing: boolean;
  now: number;
}

/**
 * The `basic` fixture forwarded into a SQLite dataset (`home/`) through `sinkFailingFor` FAILING_SESSION, the clock at
 * 1 800 000 000 000 ms: how quarantine tests begin. `cleanup` closes the rig and removes the folder.
 * @example const q = failingSessionRig(); q.forwarder.backfill(); q.failing = false; q.now += 30_000;
 */
export function failingSessionRig(prefix?: string, options: Pick<ForwarderOptions, 'readWorker'> = {}): FailingSessionRig {
  const { dir, cleanup } = tempDir(prefix);
  const path = copyFixture('basic', dir);
  const home = join(dir, 'home');
  const state = { failing: true, now: 1_800_000_000_000 };
  const sink = sinkFailingFor(SqliteSink.open(home), FAILING_SESSION, () => state.failing);
  const rig = forwarderRig([path], { dir, home, sink, now: () => state.now, ...options });
  return Object.assign(state, rig, { path, cleanup: () => { rig.cleanup(); cleanup(); } });
}
