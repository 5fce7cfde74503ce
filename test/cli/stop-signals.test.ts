// A SIGTERM (or SIGINT) at any moment after `hermetic serve` or `hermetic forward` starts stops it cleanly: exit 0,
// "stopped" as the last line, no stack trace. The moments are reached by waiting for them, never by sleeping: while
// the CLI's modules load (the bin's first line has held the signals; a resolve hook holds the import until the test
// lets it go), after the first byte of output, after the banner, while a writer keeps the store locked; and in
// process, while the server binds. Other commands end by the signal, as any process does. Before the bin's first line
// runs, node's own default applies: the process ends by the signal having done nothing
// (docs/decisions/0034-test-suite-speed.md).
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { serveCommand } from '../../src/emulator/serve/cli.js';
import { forwardCommand } from '../../src/forwarder/cli/forward.js';
import { generate } from '../../src/state-db/generate/index.js';
import { spawnBin, type BinProcess } from '../support/process.js';

let dir: string;
let store: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'hermetic-stop-signals-'));
  store = join(dir, 'state.db');
  generate({ out: store, sessions: 3, messages: 12, seed: 'stop-signals', journal: 'wal' });
});
after(() => rmSync(dir, { recursive: true, force: true }));

let gates = 0;

/**
 * Waits (polling the file system) until `path` exists; fails only after a minute, or when the process ended. A
 * process left waiting is killed, so a failure here ends the file instead of holding the run open.
 */
async function appears(path: string, p: BinProcess): Promise<void> {
  let gone = false;
  void p.exited.then(() => (gone = true));
  try {
    for (const start = Date.now(); !existsSync(path); await sleep(10)) {
      assert.ok(!gone, `the process ended before ${path} appeared: ${p.output()}`);
      assert.ok(Date.now() - start < 60_000, `${path} did not appear in a minute: ${p.output()}`);
    }
  } catch (e) {
    p.child.kill('SIGKILL');
    throw e;
  }
}

/** Starts `hermetic ...args` held just before its modules load, sends `signal`, then lets it go on. */
async function signalWhileLoading(args: string[], signal: NodeJS.Signals): Promise<BinProcess> {
  const gate = join(dir, `gate-${++gates}`);
  mkdirSync(gate);
  const p = spawnBin(args, { cwd: dir, env: { HERMETIC_TEST_LOAD_GATE: gate, HOME: dir } });
  await appears(join(gate, 'loading'), p);
  p.child.kill(signal);
  writeFileSync(join(gate, 'go'), '');
  return p;
}

function assertStopped(p: BinProcess, status: number | string, last: string): void {
  assert.equal(status, 0, p.output());
  assert.equal(p.output().trimEnd().split('\n').at(-1), last, p.output());
  assert.doesNotMatch(p.output(), /^\s+at /m);
}

const SERVE = ['serve', '--port', '0', '--db', ':memory:'];

describe('hermetic serve', { concurrency: true, timeout: 180_000 }, () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`a ${signal} while the modules load (the bin's first line held it): nothing is bound, exit 0`, async () => {
      const p = await signalWhileLoading(SERVE, signal);
      assertStopped(p, await p.exited, 'hermetic: stopped');
      assert.doesNotMatch(p.output(), /listening on/);
    });
  }

  it('a SIGTERM the moment the process exists: before the bin\'s first line node ends it by the signal, having done nothing; after, exit 0', async () => {
    const db = join(dir, 'spawned.db');
    const p = spawnBin(['serve', '--port', '0', '--db', db]);
    await new Promise((resolve) => p.child.once('spawn', resolve));
    p.child.kill('SIGTERM');
    const status = await p.exited;
    if (status === 'SIGTERM') {
      // Node's own handler (it resets every inherited disposition at start-up): nothing printed, nothing created.
      assert.equal(p.output(), '');
      assert.equal(existsSync(db), false);
    } else assertStopped(p, status, 'hermetic: stopped');
  });

  it('a SIGTERM right after the first byte of output: exit 0', async () => {
    const p = spawnBin(SERVE);
    assert.ok(await p.until((o) => o.length > 0), p.output());
    p.child.kill('SIGTERM');
    assertStopped(p, await p.exited, 'hermetic: stopped');
  });

  it('a SIGTERM right after the banner: exit 0', async () => {
    const p = spawnBin(SERVE);
    assert.ok(await p.until((o) => /try: .*\n/.test(o)), p.output());
    p.child.kill('SIGTERM');
    assertStopped(p, await p.exited, 'hermetic: stopped');
  });

  it('in process, a SIGTERM while the server binds closes what it opened, prints no banner, and returns 0', async () => {
    const servers = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length;
    const before = [servers(), process.listenerCount('SIGTERM'), process.listenerCount('SIGINT')];
    const lines: string[] = [];
    const done = serveCommand(['--port', '0', '--db', join(dir, 'runs.db')], (line) => lines.push(line));
    // serveCommand has parsed its flags and is binding: its first await.
    process.emit('SIGTERM', 'SIGTERM');
    assert.equal(await done, 0);
    assert.deepEqual(lines, ['hermetic: stopped']);
    // The signals are node's again, and the server's handle is closed (libuv frees it in a later turn of the loop).
    assert.deepEqual([process.listenerCount('SIGTERM'), process.listenerCount('SIGINT')], before.slice(1));
    for (const start = Date.now(); servers() !== before[0]; await sleep(10)) assert.ok(Date.now() - start < 60_000, 'the server closes');
  });
});

describe('hermetic forward', { concurrency: true, timeout: 180_000 }, () => {
  const args = () => ['forward', '--state-db', store, '--home', join(dir, `home-${++gates}`), '--interval', '1s'];

  it('a SIGTERM while the modules load: nothing is opened, exit 0', async () => {
    const home = join(dir, 'home-loading');
    const p = await signalWhileLoading(['forward', '--state-db', store, '--home', home, '--interval', '1s'], 'SIGTERM');
    assertStopped(p, await p.exited, 'forward: stopped');
    assert.equal(existsSync(home), false);
  });

  it('a SIGTERM right after the first byte of output: exit 0', async () => {
    const p = spawnBin(args());
    assert.ok(await p.until((o) => o.length > 0), p.output());
    p.child.kill('SIGTERM');
    assertStopped(p, await p.exited, 'forward: stopped');
  });

  it('a SIGTERM while a writer keeps a rollback-journal store locked: exit 0 with the lock still held, nothing written (decision 0104)', async () => {
    const locked = join(dir, 'locked.db');
    generate({ out: locked, sessions: 3, messages: 12, seed: 'stop-signals-locked', journal: 'delete' });
    const home = join(dir, 'home-locked');
    // Another process's write lock, as Hermes (or sqlite3) holds it on a `delete`-journal store: readers wait for it.
    const writer = new Database(locked);
    writer.exec('BEGIN EXCLUSIVE');
    try {
      const spawnedAt = performance.now();
      const p = spawnBin(['forward', '--state-db', locked, '--home', home, '--interval', '1h']);
      // The banner is printed in the same run of the event loop that then opens the store and meets the lock.
      assert.ok(await p.until((o) => /Ctrl-C stops\n/.test(o)), p.output());
      const sentAfter = performance.now() - spawnedAt;
      p.child.kill('SIGTERM');
      const status = await p.exited;
      assert.ok(writer.inTransaction, 'the lock is held until the process has ended');
      assertStopped(p, status, 'forward: stopped');
      // The old reader waited out its three 5 s busy timeouts, said the store locked, then stopped. A signal sent
      // within 5 s of the start is well inside that patience; on a machine slow enough to send it later, the store may
      // rightly have been said locked first, and only the stop is checked.
      if (sentAfter < 5000) assert.deepEqual(p.output().trimEnd().split('\n').slice(1), ['forward: stopped'], p.output());
      assert.equal(existsSync(join(home, 'hermetic.db')), false);
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
    }
    // Unlocked, the store is read whole by the next run.
    const again = spawnBin(['forward', '--once', '--state-db', locked, '--home', home]);
    assert.equal(await again.exited, 0, again.output());
    assert.match(again.output(), /^forward: default: 3 sessions written/m);
  });

  it('in process, a SIGTERM after the first pass stops the loop and returns 0', async () => {
    const [error] = [console.error];
    const lines: string[] = [];
    console.error = (line: string) => void lines.push(line);
    try {
      const done = forwardCommand(args().slice(1));
      process.emit('SIGTERM', 'SIGTERM');
      assert.equal(await done, 0);
    } finally {
      console.error = error;
    }
    assert.equal(lines.at(-1), 'forward: stopped');
  });
});

it('any other command ends by a signal that came while its modules loaded, as any process does', { timeout: 180_000 }, async () => {
  const p = await signalWhileLoading(['statedb', 'inspect', store], 'SIGTERM');
  assert.equal(await p.exited, 'SIGTERM', p.output());
  assert.equal(p.output(), '');
});
