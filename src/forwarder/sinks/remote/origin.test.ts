// The machine id: made once per home, kept, and agreed on by forwarders that start on a new home at the same moment.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createIdSource, type IdSource } from '../../../shared/ids.js';
import { MACHINE_ID_FILE, machineOrigin } from './origin.js';
import { pathToFileURL } from 'node:url';
import { builtModule } from '../../../../test/support/cli-build.js';

const root = mkdtempSync(join(tmpdir(), 'hermetic-origin-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshHome = () => join(root, `home-${n++}`);

test('a new home gets an id, kept in its folder and the same on every later call', () => {
  const home = freshHome();
  const first = machineOrigin(home, { ids: createIdSource('origin-1'), hostname: 'h' });
  assert.match(first.machineId, /^[0-9a-f]{32}$/);
  assert.deepEqual(first, { machineId: first.machineId, hostname: 'h' });
  assert.equal(readFileSync(join(home, MACHINE_ID_FILE), 'utf8'), `${first.machineId}\n`);
  assert.equal(statSync(join(home, MACHINE_ID_FILE)).mode & 0o777, 0o644);
  assert.equal(machineOrigin(home, { ids: createIdSource('origin-2') }).machineId, first.machineId);
  assert.deepEqual(readdirSync(home), [MACHINE_ID_FILE]);
});

test('another process that writes the id between our look and our write wins, and we take its id', () => {
  const home = freshHome();
  const theirs = createIdSource('theirs').uuid4Hex();
  const mine = createIdSource('mine');
  // The other forwarder creates the file while this one draws its id: after this one saw no file.
  const racing: IdSource = { ...mine, uuid4Hex: () => {
    writeFileSync(join(home, MACHINE_ID_FILE), `${theirs}\n`);
    return mine.uuid4Hex();
  } };
  assert.equal(machineOrigin(home, { ids: racing }).machineId, theirs);
  assert.equal(readFileSync(join(home, MACHINE_ID_FILE), 'utf8'), `${theirs}\n`);
  assert.deepEqual(readdirSync(home), [MACHINE_ID_FILE], 'nothing is left beside it');
});

test('a file that holds no id is replaced by a new one', () => {
  const home = freshHome();
  machineOrigin(home, { ids: createIdSource('x') });
  for (const garbage of ['', 'not-an-id\n', 'ABCDEF0123456789ABCDEF0123456789\n']) {
    writeFileSync(join(home, MACHINE_ID_FILE), garbage);
    const { machineId } = machineOrigin(home, { ids: createIdSource(`garbage-${garbage.length}`) });
    assert.match(machineId, /^[0-9a-f]{32}$/);
    assert.equal(readFileSync(join(home, MACHINE_ID_FILE), 'utf8'), `${machineId}\n`);
    assert.deepEqual(readdirSync(home), [MACHINE_ID_FILE]);
  }
});

test('processes started on a new home at the same moment all get the same id', async () => {
  const home = freshHome();
  const url = pathToFileURL(builtModule(new URL('./origin.ts', import.meta.url))).href;
  // A barrier: each child, once loaded, leaves a mark and waits until all four have, then claims: as close to
  // simultaneous as separate processes get, however slowly each starts (whichever order they come in, they must agree).
  const barrier = mkdtempSync(join(tmpdir(), 'hermetic-origin-barrier-'));
  const script = `const { machineOrigin } = await import(${JSON.stringify(url)});
    const { readdirSync, writeFileSync } = await import('node:fs');
    writeFileSync(${JSON.stringify(barrier)} + '/' + process.pid, '');
    while (readdirSync(${JSON.stringify(barrier)}).length < 4) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    process.stdout.write(machineOrigin(${JSON.stringify(home)}).machineId);`;
  const ids = await Promise.all(Array.from({ length: 4 }, () => new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`child exited ${code}`))));
  })));
  rmSync(barrier, { recursive: true, force: true });
  const written = readFileSync(join(home, MACHINE_ID_FILE), 'utf8').trim();
  assert.deepEqual(ids, ids.map(() => written));
  assert.deepEqual(readdirSync(home), [MACHINE_ID_FILE]);
});
