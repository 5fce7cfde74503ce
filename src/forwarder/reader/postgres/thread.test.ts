// The mirror thread's end is told while a synchronous pass waits for its answer, within a second where its task can be
// looked for (Linux), not after the whole timeout as PostgreSQL's silence (decision 0129).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HermeticError } from '../../../shared/errors.js';
import { mirrorThreadModule, refreshMirrorSync } from './thread.js';

const module = (source: string) => ({ entry: `data:text/javascript,${encodeURIComponent(source)}`, tsx: null });
const JOB = { url: 'postgres://nowhere/db', schema: 'public', identity: 'x', display: 'nowhere/db', file: '/nonexistent/mirror.db' } as unknown as Parameters<typeof refreshMirrorSync>[0];

test('a mirror thread that ends before it answers (out of memory, a crash) is said as itself, not as a PostgreSQL that gave no answer', { skip: process.platform !== 'linux' && 'a thread\'s end is told by /proc' }, () => {
  // The module is the process's: given back before the test ends (a file-level after() would run only when every file
  // sharing this process has run, and their synchronous passes would meet the fake thread).
  try {
    // It takes the job and exits; the wait would otherwise last the whole timeout and blame PostgreSQL.
    mirrorThreadModule(module("export function serveMirrorJobs(port) { port.on('message', () => process.exit(7)); }"));
    assert.throws(() => refreshMirrorSync(JOB, 30_000), (e: HermeticError) => {
      assert.equal(e.code, 'HERMETIC_INTERNAL');
      assert.equal(e.message, 'The PostgreSQL mirror thread stopped while it read nowhere/db (schema public): its thread ended: out of memory, or a crash; nothing was read this time, and the next pass tries again.');
      return true;
    });
    // The next refresh starts another thread, which answers.
    mirrorThreadModule(module(`export function serveMirrorJobs(port) {
    port.on('message', ({ flag }) => {
      port.postMessage({ kind: 'ok', result: { changed: false, edited: [] } });
      const v = new Int32Array(flag); Atomics.store(v, 0, 1); Atomics.notify(v, 0);
    });
  }`));
    assert.deepEqual(refreshMirrorSync(JOB, 30_000), { changed: false, edited: [] });
  } finally {
    mirrorThreadModule(null);
  }
});
