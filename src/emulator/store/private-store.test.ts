// What clients send is kept on disk, not in the process (decision 0136): a namespace's runs and sessions (and the
// default namespace's without --db) are in SQLite's private store, whose pages past a small cache spill to a deleted
// temporary file. Measured in a process of its own: 150 runs of a 1 MB input, each stopped, in a namespace.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { cliBuild } from '../../../test/support/cli-build.js';

test('150 runs of a 1 MB input in a namespace do not grow the process by what an in-memory store held', () => {
  const script = `
    import { createEmulator } from ${JSON.stringify(pathToFileURL(join(cliBuild(), 'dist', 'index.js')).href)};
    const h = createEmulator({ maxConcurrentRuns: 0 });
    const headers = { 'content-type': 'application/json', 'x-hermetic-namespace': 'big' };
    const submit = async (input) => {
      const answer = await h.fetch('/v1/runs', { method: 'POST', headers, body: JSON.stringify({ input }) });
      const { run_id } = await answer.json();
      await (await h.fetch('/v1/runs/' + run_id + '/stop', { method: 'POST', headers, body: '{}' })).text();
    };
    await submit('warm');
    globalThis.gc();
    const before = process.memoryUsage().rss;
    for (let i = 0; i < 150; i++) await submit(String(i).padEnd(1_000_000, 'A'));
    // A session route first commits the turns waiting (which this loop, never turning the event loop, left waiting).
    const sessions = await (await h.fetch('/api/sessions?limit=200', { headers })).json();
    globalThis.gc();
    console.log(JSON.stringify({ grown: process.memoryUsage().rss - before, sessions: sessions.data.length }));
    await h.close();`;
  const child = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(child.status, 0, child.stderr);
  const { grown, sessions } = JSON.parse(child.stdout) as { grown: number; sessions: number };
  assert.equal(sessions, 151, 'every run made its session');
  // In SQLite's in-memory store they grew it by 344 MB; in its private store by 14–37 MB since the session recorder
  // stopped holding the inputs in V8's heap while its timer waited (186–191 MB before; decision 0137).
  assert.ok(grown < 230 * 1048576, `the process grew by ${(grown / 1048576).toFixed(0)} MB`);
});
