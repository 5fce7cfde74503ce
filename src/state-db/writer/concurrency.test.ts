import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createStore, LATEST_LEVEL } from '../schema/index.js';
import { StateDbWriter } from './index.js';
import { createIdSource } from '../../shared/ids.js';
import { tempDir } from '../testing/fixtures.js';

const READER = fileURLToPath(new URL('../testing/wal-reader.mjs', import.meta.url));

test('a reader in another process polling a WAL store while the writer appends never sees an error', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'state.db');
    const db = createStore({ path, level: LATEST_LEVEL, journal: 'wal' });
    db.pragma('wal_autocheckpoint = 20');
    let t = 1784024103;
    const w = new StateDbWriter(db, { now: () => (t += 0.25), ids: createIdSource('wal') });
    const id = w.createSession({ source: 'cli', model: 'gpt-5' });
    const child = spawn(process.execPath, [READER, path, id], { cwd: fileURLToPath(new URL('../../..', import.meta.url)) });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    const reading = new Promise<void>((resolve) => child.stderr.on('data', (d) => {
      err += d;
      if (err.includes('reading\n')) resolve();
    }));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // The writes begin once the reader is reading, however long its start-up takes on this machine.
    await Promise.race([reading, exited]);
    for (let i = 0; i < 150; i++) {
      w.appendMessages(id, [
        { role: 'user', content: `question ${i}` },
        { role: 'assistant', content: `answer ${i}`, finish_reason: 'stop' },
      ]);
      w.updateTokenCounts(id, { input_tokens: 100, output_tokens: 10, model: 'gpt-5' });
      if (i % 10 === 0) await sleep(2);
    }
    w.endSession(id, 'user_exit');
    assert.equal(await exited, 0, out + err);
    const report = JSON.parse(out.trim()) as { reads: number; errors: string[]; last: number; monotonic: boolean };
    assert.deepEqual(report.errors, []);
    assert.equal(report.last, 300);
    assert.equal(report.monotonic, true);
    assert.ok(report.reads > 1);
    db.close();
  } finally {
    cleanup();
  }
});
