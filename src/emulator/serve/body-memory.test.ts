// What bodies really hold in the heap, measured after a full collection (decision 0135): a parse never allocates
// more than parseCost reserved for it, and a keyed run waiting for its commit holds only what the run keeps of its
// body. It measures its own heap, so it runs in a process of its own (scripts/run-tests.mjs OWN).
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import Database from 'better-sqlite3';
import { parseCost, parsePyJson } from '../../shared/python/index.js';
import { waitFor } from '../../../test/support/wait.js';
import { BodyBudget } from './body-budget.js';
import { startServer } from './node.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heap = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const KEY = 'test-key-0123456789abcdef';

test('a parse allocates no more than parseCost reserved for it, whatever its values', () => {
  const list = (item: string, n = 200_000) => `[${Array(n).fill(item).join(',')}]`;
  const shapes = {
    dicts: list('{}'),
    lists: list('[1]'),
    'small ints': list('7'),
    'large ints': list('123456789012'),
    bigints: list('99999999999999999999'),
    floats: list('1.5'),
    literals: list('null'),
    'short strings': list('"ab"'),
    'wide strings': list('"\\u4e2dx"'),
    'long strings': list('"abcdefghijklmnopqrstuvwxyz"'),
    entries: list('{"a":1,"b":2,"c":3,"d":4,"e":5}', 50_000),
    keys: `{${Array.from({ length: 200_000 }, (_, i) => `"k${i}":0`).join(',')}}`,
    'one string': `"${'x'.repeat(2_000_000)}"`,
  };
  for (const [name, text] of Object.entries(shapes)) {
    const before = heap();
    const value = parsePyJson(text);
    const grown = heap() - before;
    assert.ok(value !== undefined);
    assert.ok(grown <= parseCost(text), `${name}: the parse holds ${grown} bytes, parseCost says ${parseCost(text)}`);
  }
});

test('a keyed run waiting for its commit holds only what the run keeps of its body', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'hermetic-body-memory-')), 'runs.db');
  const budget = new BodyBudget(1024 * 1024);
  // A lock held past the test's deadline: the run waits for its commit as long as the test looks.
  const server = await startServer({ port: 0, apiKey: KEY, db: file, lockTimeout: 120, bodyBudget: budget, frozen: true, time: 1789169800 });
  const other = new Database(file);
  const post = (body: string, key: string) =>
    fetch(`${server.url}/v1/runs`, { method: 'POST', headers: { Authorization: `Bearer ${KEY}`, 'Idempotency-Key': key }, body });
  try {
    assert.equal((await post('{"input":"open the store"}', 'k-0')).status, 202);
    const before = heap();
    other.exec('BEGIN IMMEDIATE');
    // 300,000 empty dicts besides the input: about 60 MB parsed, none of it the run's.
    const answer = post(`{"input":"hi","x":[${'{},'.repeat(300_000)}{}]}`, 'k-1');
    answer.catch(() => {});
    await waitFor(() => budget.peak > 60_000_000, 'the body parsed');
    await waitFor(() => heap() - before < 20_000_000, 'the parsed body let go while the commit waits');
    assert.ok(budget.used < 2 * 900_010, `the budget holds the text and the run's input only (${budget.used})`);
    other.exec('COMMIT');
    assert.equal((await answer).status, 202);
    assert.equal(budget.used, 0);
  } finally {
    if (other.inTransaction) other.exec('COMMIT');
    other.close();
    await server.close();
  }
});
