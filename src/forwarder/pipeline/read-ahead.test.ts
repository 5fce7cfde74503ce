// Which file the read worker's thread loads from a build: the bundle beside the CLI when it was made from that build,
// else the build's own module (decision 0128). The bundled worker reading a real backfill is test/cli/forwarder-cli.test.ts.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { bundledWorker, WORKER_BOOT, workerEntry } from './read-ahead.js';

test('from a build, the bundled worker when it is as new as the build, else the build\'s module; none, the build\'s', () => {
  const dist = mkdtempSync(join(tmpdir(), 'hermetic-worker-entry-'));
  try {
    mkdirSync(join(dist, 'forwarder', 'pipeline'), { recursive: true });
    const perFile = join(dist, 'forwarder', 'pipeline', 'read-worker.js');
    writeFileSync(perFile, '');
    const url = pathToFileURL(perFile);
    assert.equal(bundledWorker(url).href, url.href, 'no bundle: the build\'s module');
    mkdirSync(join(dist, 'bundle'));
    const bundled = join(dist, 'bundle', 'read-worker.js');
    writeFileSync(bundled, '');
    utimesSync(perFile, 1_000, 1_000);
    utimesSync(bundled, 2_000, 2_000);
    assert.equal(bundledWorker(url).href, pathToFileURL(bundled).href, 'a bundle made after the build');
    utimesSync(bundled, 1_000, 1_000);
    assert.equal(bundledWorker(url).href, pathToFileURL(bundled).href, 'made in the same moment');
    utimesSync(perFile, 3_000, 3_000);
    assert.equal(bundledWorker(url).href, url.href, 'a build made again after its bundle (tsc alone): the bundle is stale');
  } finally {
    rmSync(dist, { recursive: true, force: true });
  }
});

test('from the sources, the TypeScript module beside this one, through tsx', () => {
  const where = workerEntry();
  assert.ok(where);
  assert.match(where.entry, /\/src\/forwarder\/pipeline\/read-worker\.ts$/);
  assert.ok(where.tsx, 'tsx\'s loader');
});

/** What a thread started with WORKER_BOOT on `entry` posts first. */
async function bootOn(entry: string): Promise<unknown> {
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(WORKER_BOOT, { eval: true, workerData: { port: port2, entry, tsx: null }, transferList: [port2] });
  try {
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    const first = new Promise((resolve) => port1.once('message', resolve));
    return await Promise.race([first, exited.then(() => receiveMessageOnPort(port1)?.message ?? 'exited without a word')]);
  } finally {
    port1.close();
    await worker.terminate();
  }
}

test('a worker module that cannot serve (a broken bundle) or cannot load says so; the pass is not left waiting for it', async () => {
  assert.deepEqual(await bootOn('data:text/javascript,export const other = 1;'), {
    kind: 'boot-failed', job: 0, message: 'm.serveReadJobs is not a function',
  });
  const missing = await bootOn('file:///nonexistent/read-worker.js') as { kind: string; message: string };
  assert.equal(missing.kind, 'boot-failed');
  assert.match(missing.message, /Cannot find module/);
});
