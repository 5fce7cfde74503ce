// Decision 0134: the state.db file `--state-db` records into is the one Hermes's SessionDB would open — made with a
// minted generation token and the application_id derived from it, owner-only with its -wal and -shm — and a seeded
// emulator makes the same file without its own ids moving.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { createEmulator } from '../index.js';
import { applicationIdFor, createStore, LATEST_LEVEL } from '../../state-db/schema/index.js';
import { tempDir } from '../../state-db/testing/fixtures.js';

const mode = (path: string) => statSync(path).mode & 0o777;

function identity(path: string): { generation: string; applicationId: number } {
  const db = new Database(path, { readonly: true });
  try {
    return {
      generation: db.prepare("SELECT value FROM state_meta WHERE key = 'db_file_generation'").pluck().get() as string,
      applicationId: Number(db.pragma('application_id', { simple: true })),
    };
  } finally {
    db.close();
  }
}

/** An emulator recording into `stateDb`: the id of the run it admits, and the file's identity and modes while open. */
async function record(stateDb: string, seed?: string) {
  const hermes = createEmulator({ stateDb, time: 1_800_000_000, frozen: true, ...(seed === undefined ? {} : { seed }) });
  try {
    const reply = await hermes.fetch(new Request('http://h/v1/runs', { method: 'POST', body: '{"input":"x","session_id":"s"}' }));
    const { run_id: runId } = (await reply.json()) as { run_id: string };
    await hermes.admin.complete(runId, { output: 'done' });
    await hermes.admin.runs();
    const modes = [stateDb, `${stateDb}-wal`, `${stateDb}-shm`].filter(existsSync).map(mode);
    return { runId, modes, ...identity(stateDb) };
  } finally {
    await hermes.close();
  }
}

test('a new --state-db file gets a uuid4 generation and Hermes\'s application_id, 0600 with its -wal and -shm', async () => {
  const { dir, cleanup } = tempDir('hermetic-statedb-file-');
  const umask = process.umask(0o022);
  try {
    const made = await record(join(dir, 'state.db'));
    assert.match(made.generation, /^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/, 'uuid.uuid4().hex');
    assert.equal(made.applicationId, applicationIdFor(made.generation));
    assert.deepEqual(made.modes, [0o600, 0o600, 0o600], 'state.db, -wal and -shm');
    assert.equal(mode(join(dir, 'state.db')), 0o600);
    assert.notEqual((await record(join(dir, 'other.db'))).generation, made.generation, 'unseeded: a new token each file');
  } finally {
    process.umask(umask);
    cleanup();
  }
});

test('a seeded emulator makes the same file identity each time, and recording moves none of its other ids', async () => {
  const { dir, cleanup } = tempDir('hermetic-statedb-file-');
  try {
    const a = await record(join(dir, 'a.db'), 'seed-1');
    const b = await record(join(dir, 'b.db'), 'seed-1');
    assert.deepEqual([b.generation, b.applicationId], [a.generation, a.applicationId]);
    assert.notEqual((await record(join(dir, 'c.db'), 'seed-2')).generation, a.generation);
    const hermes = createEmulator({ time: 1_800_000_000, frozen: true, seed: 'seed-1' });
    try {
      const reply = await hermes.fetch(new Request('http://h/v1/runs', { method: 'POST', body: '{"input":"x","session_id":"s"}' }));
      assert.equal(((await reply.json()) as { run_id: string }).run_id, a.runId, 'the same run id without --state-db');
    } finally {
      await hermes.close();
    }
  } finally {
    cleanup();
  }
});

test('an existing store is tightened to 0600 when the recorder opens it, and keeps its identity', async () => {
  const { dir, cleanup } = tempDir('hermetic-statedb-file-');
  try {
    const path = join(dir, 'state.db');
    createStore({ path, level: LATEST_LEVEL, journal: 'wal', generation: '5eed0000000000000000000000000001' }).close();
    chmodSync(path, 0o644);
    const kept = await record(path);
    assert.deepEqual([kept.generation, kept.applicationId], ['5eed0000000000000000000000000001', 0x5eed0000]);
    assert.deepEqual(kept.modes, [0o600, 0o600, 0o600]);
  } finally {
    cleanup();
  }
});
