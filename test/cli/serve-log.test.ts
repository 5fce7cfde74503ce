// `hermetic serve` prints one line per answered request (unless --quiet), from the journal's metadata only;
// --journal-size reaches the emulator.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { serveOptions } from '../../src/emulator/serve/cli.js';
import { HermeticError } from '../../src/shared/errors.js';
import { spawnServe, type ServeProcess } from '../support/process.js';
import { waitFor } from '../support/wait.js';

const SECRET = 'sk-secret-0123456789abcdef';

/** Resolves once the server's output has `n` request lines (lines after the banner's `try:` line). */
async function requestLines(server: ServeProcess, n: number): Promise<string[]> {
  return waitFor(() => {
    const lines = server.output().split('\n');
    const after = lines.slice(lines.findIndex((l) => l.includes('try: ')) + 1).filter(Boolean);
    return after.length >= n ? after : null;
  }, `${n} request lines; output: ${server.output()}`);
}

it('serve prints a line per request: method, path, status, duration, namespace, operation; never query, body or headers', async () => {
  const server = await spawnServe(['--port', '0', '--seed', 'log', '--journal-size', '2']);
  try {
    const post = () =>
      fetch(`${server.url}/v1/runs?token=${SECRET}`, { method: 'POST', headers: { 'Idempotency-Key': 'k', 'X-Token': SECRET }, body: JSON.stringify({ input: SECRET }) });
    const runId = ((await (await post()).json()) as { run_id: string }).run_id;
    await post();
    await fetch(`${server.url}/ns/w1/v1/runs/run_missing`, { headers: { Authorization: `Bearer ${SECRET}` } });
    const journal = (await (await fetch(`${server.url}/__admin/requests`)).json()) as { capacity: number };
    assert.equal(journal.capacity, 2);
    const lines = await requestLines(server, 4);
    const pattern = (s: string) => new RegExp(`^${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace('DURATION', '\\d+(\\.\\d)?ms')}$`);
    assert.match(lines[0]!, pattern(`POST /v1/runs 202 DURATION ns=default op=submit run=${runId}`));
    assert.match(lines[1]!, pattern(`POST /v1/runs 202 DURATION ns=default op=submit run=${runId} replayed`));
    assert.match(lines[2]!, pattern('GET /v1/runs/run_missing 404 DURATION ns=w1 op=get'));
    assert.match(lines[3]!, pattern('GET /__admin/requests 200 DURATION ns=default op=admin'));
    assert.doesNotMatch(server.output(), /secret/i);
  } finally {
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
  }
});

it('--quiet prints the banner and nothing per request', async () => {
  const server = await spawnServe(['--port', '0', '--quiet']);
  try {
    await fetch(`${server.url}/health`);
    await fetch(`${server.url}/__admin/requests`);
  } finally {
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
  }
  // Everything it ever printed, read to the end: the banner, then only the last line.
  const lines = server.output().trimEnd().split('\n');
  assert.match(lines.at(-2)!, /^ {2}try: /);
  assert.equal(lines.at(-1), 'hermetic: stopped');
  const serve = serveOptions(['--quiet', '--journal-size', '0'], {});
  assert.ok(serve !== 'help');
  assert.deepEqual([serve.quiet, serve.journalSize], [true, 0]);
});

it('--journal-size must be a whole number from 0 to 10000000', () => {
  for (const [value, message] of [
    ['-1', '--journal-size must be between 0 and 10000000; got -1.'],
    ['lots', '--journal-size must be a whole number; got "lots".'],
    ['10000001', '--journal-size must be between 0 and 10000000; got 10000001.'],
  ] as const) {
    assert.throws(() => serveOptions(['--journal-size', value], {}), (e: HermeticError) => {
      assert.deepEqual([e.code, e.message], ['HERMETIC_CLI_USAGE', message]);
      return true;
    });
  }
});
