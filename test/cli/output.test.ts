// A command whose output cannot be written says so in one line (a full disk under a redirection), or ends quietly when
// its reader went away (a pipe into head): never Node's unhandled 'error' with its stack.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { test } from 'node:test';
import { oneMessageDataset } from '../../src/forwarder/testing/index.js';
import { BIN_ARGS } from '../support/process.js';

test('output into a full disk is one line with HERMETIC_CLI_OUTPUT and exit 1', () => {
  const full = openSync('/dev/full', 'w');
  try {
    const r = spawnSync(process.execPath, [...BIN_ARGS, '--help'], { stdio: ['ignore', full, 'pipe'], encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.stderr, 'hermetic: Cannot write the output: the disk is full; what was printed is incomplete. [HERMETIC_CLI_OUTPUT]\n');
    assert.equal(r.status, 1);
  } finally {
    closeSync(full);
  }
});

test('output whose reader went away ends the command quietly, with exit 0', async (t) => {
  const { home, cleanup } = oneMessageDataset('hermetic-output-');
  t.after(cleanup);
  // About a megabyte: more than a pipe holds, so most of it is written after the reader left.
  const sql = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 100000) SELECT x FROM c';
  const child = spawn(process.execPath, [...BIN_ARGS, 'query', '--json', '--home', home, sql], { stdio: ['ignore', 'pipe', 'pipe'] });
  // The reader goes away after its first bytes, as head does.
  child.stdout.once('data', () => child.stdout.destroy());
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const status = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  assert.equal(stderr, '');
  assert.equal(status, 0);
});
