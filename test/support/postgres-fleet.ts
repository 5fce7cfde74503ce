// Forwarders in child processes for the PostgreSQL fleet tests (src/forwarder/sinks/postgres/testing/fleet-child.ts, run from the test build: a start in about half a
// second instead of tsx's), and what a fleet database holds compared with each forwarder's own dataset.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { cliBuild } from './cli-build.js';
import { machineOrigin } from '../../src/forwarder/sinks/remote/origin.js';
import { expectedRows, heldRows } from '../../src/forwarder/sinks/remote/testing/world.js';
import { createPool } from '../../src/forwarder/sinks/postgres/pool.js';
import { SHIPPED_TABLES } from '../../src/forwarder/sinks/postgres/schema.js';
import { postgresTarget } from '../../src/forwarder/sinks/postgres/url.js';
import { fleetRows, toolCallsDrift, verdictDrift } from '../../src/forwarder/sinks/postgres/testing/rows.js';

export interface ChildOptions { home: string; dir: string; stateDb: string; url: string; rows: number; backfill: boolean }

export interface Child {
  process: ChildProcess;
  /** Resolves when the child has said `line` (a prefix) `times` times. */
  said(line: string, times?: number): Promise<void>;
  /** Resolves with the exit code or signal. */
  exited: Promise<number | string>;
  output(): string;
}

export function startChild(options: ChildOptions): Child {
  const script = join(cliBuild(), 'dist', 'forwarder', 'sinks', 'postgres', 'testing', 'fleet-child.js');
  const child = spawn(process.execPath, [script, JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const waiters: { line: string; times: number; resolve: () => void }[] = [];
  const count = (line: string) => out.split('\n').filter((l) => l.startsWith(line)).length;
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    for (const w of [...waiters]) if (count(w.line) >= w.times) { waiters.splice(waiters.indexOf(w), 1); w.resolve(); }
  });
  child.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return {
    process: child,
    exited,
    output: () => `${out}${err}`,
    said: (line, times = 1) => new Promise<void>((resolve, reject) => {
      if (count(line) >= times) return resolve();
      waiters.push({ line, times, resolve });
      void exited.then((how) => { if (count(line) < times) reject(new Error(`the forwarder ended (${how}) before saying ${line} ×${times}:\n${out}${err}`)); });
    }),
  };
}

/** Runs a child to its end and asserts it said DONE. */
export async function runChild(options: ChildOptions): Promise<string> {
  const c = startChild(options);
  const how = await c.exited;
  assert.equal(how, 0, c.output());
  assert.match(c.output(), /^DONE$/m);
  return c.output();
}

/** Asserts the fleet database holds exactly the home's dataset's shipped rows (redacted) for the home's machine. */
export async function assertFleetHolds(url: string, home: string): Promise<number> {
  const origin = machineOrigin(home);
  const target = postgresTarget(url);
  const pool = createPool(target, { max: 1 });
  const dataset = new Database(join(home, 'hermetic.db'), { readonly: true });
  try {
    const held: Record<string, Record<string, unknown>[]> = {};
    for (const t of SHIPPED_TABLES) held[t.name] = await fleetRows(pool, target.schema, t, origin.machineId);
    const want = expectedRows(dataset as never, true);
    assert.deepEqual(heldRows(held), want, `machine ${origin.machineId}: the fleet holds its dataset row for row`);
    // And the tool calls the fleet keeps from its parts are their grouping (decision 0099).
    assert.deepEqual(await toolCallsDrift(pool, target.schema), { extra: [], missing: [] }, 'the fleet\'s tool_calls are its parts\' grouping');
    assert.deepEqual(await verdictDrift(pool, target.schema), [], 'the fleet\'s stored verdicts are its rule\'s (decision 0167)');
    return Object.values(want).reduce((n, rows) => n + rows.length, 0);
  } finally {
    dataset.close();
    await pool.end();
  }
}
