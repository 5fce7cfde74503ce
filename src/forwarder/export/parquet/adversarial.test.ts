// An adversarial pass over the Parquet export (decision 0077): things in the way in --out (a file where a folder goes,
// a folder where a file goes), a full disk and a read-only file system (each a real tmpfs, when this process may
// mount one), odd values read back by DuckDB, and days before the year 100.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { HermeticError } from '../../../shared/errors.js';
import { copyFixture, tempDir } from '../../../state-db/testing/fixtures.js';
import { openDatasetReadOnly } from '../../sinks/sqlite/dataset.js';
import { forwarderRig, type Rig } from '../../testing/index.js';
import type { DatasetTable } from '../../dataset/columns.js';
import { exportParquet } from './index.js';
import { epochDays, exportColumns } from './schema.js';
import { openDuck, type Duck } from './testing.js';
import { writeParquetFile } from './write-file.js';

const NOW = Date.UTC(2026, 11, 5, 12);
let tmp: { dir: string; cleanup: () => void };
let rig: Rig;
let duck: Duck;

before(async () => {
  tmp = tempDir('hermetic-parquet-adv-');
  rig = forwarderRig([copyFixture('basic', tmp.dir)], { dir: join(tmp.dir, 'rig'), timeZone: 'UTC' });
  rig.forwarder.backfill();
  duck = await openDuck();
});
after(() => {
  duck?.close();
  rig?.cleanup();
  tmp?.cleanup();
});

function run(out: string) {
  const db = openDatasetReadOnly(rig.home);
  try {
    return exportParquet(db, { out, since: null, until: null, now: NOW });
  } finally {
    db.close();
  }
}

function refusal(f: () => unknown): HermeticError {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof HermeticError, `a HermeticError, not ${String((e as Error)?.stack ?? e)}`);
    return e;
  }
  assert.fail('the export should have failed');
}

/** Every file under `dir` (recursively), and that none is a temporary one. */
function files(dir: string): string[] {
  const all = (readdirSync(dir, { recursive: true }) as string[]).sort();
  assert.deepEqual(all.filter((f) => f.endsWith('.tmp')), [], 'no temporary file left');
  return all;
}

test('a file where a folder of the export goes, or a folder where a file goes: HERMETIC_EXPORT_OUT, nothing half written', () => {
  const first = run(join(tmp.dir, 'reference'));
  const day = first.tables.find((t) => t.table === 'messages')!.days![0]!;
  const cases: Array<[string, (out: string) => void, RegExp]> = [
    ['a file named like a table folder', (out) => writeFileSync(join(out, 'sessions'), 'mine'), /a file is in the way of a folder/],
    ['a file named like the messages folder', (out) => writeFileSync(join(out, 'messages'), 'mine'), /a file is in the way of a folder/],
    ['a file named like a day folder', (out) => (mkdirSync(join(out, 'messages')), writeFileSync(join(out, 'messages', `day=${day}`), 'mine')), /a file is in the way of a folder/],
    ['a folder named like a table file', (out) => mkdirSync(join(out, 'sessions', 'data.parquet'), { recursive: true }), /a folder is in the way of a file/],
    ['a folder named like the manifest', (out) => mkdirSync(join(out, 'manifest.json')), /a folder is in the way of a file/],
  ];
  for (const [what, obstruct, why] of cases) {
    const out = join(tmp.dir, `obstacle-${cases.findIndex((c) => c[0] === what)}`);
    mkdirSync(out);
    obstruct(out);
    const e = refusal(() => run(out));
    assert.equal(e.code, 'HERMETIC_EXPORT_OUT', what);
    assert.match(e.message, why, what);
    files(out);
  }
});

const canMount = (() => {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  try {
    execFileSync('mount', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** Runs `f` with a tmpfs mounted on `dir`; false (nothing run) where mounting is not allowed (no CAP_SYS_ADMIN). */
async function mounted(dir: string, options: string, f: () => unknown): Promise<boolean> {
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    return false;
  }
  try {
    await f();
  } finally {
    execFileSync('umount', [dir]);
  }
  return true;
}

test('a full disk and a read-only file system (real tmpfs mounts): HERMETIC_EXPORT_OUT, every file there whole', { skip: canMount ? false : 'needs root on Linux to mount a tmpfs' }, async (t) => {
  const full = join(tmp.dir, 'full');
  const ran = await mounted(full, 'size=48k', async () => {
    const e = refusal(() => run(full));
    assert.equal(e.code, 'HERMETIC_EXPORT_OUT');
    assert.match(e.message, /the disk is full/);
    const parquet = files(full).filter((f) => f.endsWith('.parquet'));
    assert.ok(parquet.length > 0, 'some files were written before the disk filled');
    for (const f of parquet) await duck.all(`SELECT count(*) FROM read_parquet('${join(full, f)}')`); // each one readable
    assert.ok(!existsSync(join(full, 'manifest.json')));
  });
  // Said as skipped, not passed, where the container may not mount.
  if (!ran) return t.skip('mounting a tmpfs is not allowed here (no CAP_SYS_ADMIN)');
  const readOnly = join(tmp.dir, 'read-only');
  await mounted(readOnly, 'size=1m,ro', () => {
    const e = refusal(() => run(readOnly));
    assert.equal(e.code, 'HERMETIC_EXPORT_OUT');
    assert.match(e.message, /the file system is read-only/);
  });
});

test('odd values as DuckDB reads them: long text, a lone surrogate, NUL, the largest exact integers, ±0 and ∞, a time before 1970, NULL everywhere', async () => {
  const table = { name: 't', primaryKey: ['created_at'], columns: [
    { name: 'created_at', type: 'REAL', notNull: true }, { name: 'day', type: 'TEXT' }, { name: 'n', type: 'INTEGER' },
    { name: 'usd', type: 'REAL' }, { name: 's', type: 'TEXT' },
  ] } as unknown as DatasetTable;
  const long = `${'é'.repeat(1_000_000)}!`;
  const rows = [
    [1780000606.510776, '2026-12-05', 2 ** 53 - 1, 0.1, 'lone \ud800 surrogate'],
    [-0.5, '1969-12-31', -(2 ** 53 - 1), Infinity, long],
    [1, '2000-02-29', 0, -0, 'nul \u0000 and \uffff'],
    [2, null, null, null, null],
  ];
  const path = join(tmp.dir, 'odd.parquet');
  writeParquetFile(path, exportColumns(table), rows, {}, (r) => String(r[0]));
  const got = await duck.all(`SELECT epoch_us(created_at) AS us, strftime(day, '%Y-%m-%d') AS day, n, usd, s FROM read_parquet('${path}') ORDER BY created_at`);
  assert.deepEqual(got.map((r) => r.us), [-500000n, 1000000n, 2000000n, 1780000606510776n]);
  assert.deepEqual(got.map((r) => r.day), ['1969-12-31', '2000-02-29', null, '2026-12-05']);
  assert.deepEqual(got.map((r) => r.n), [-(2n ** 53n - 1n), 0n, null, 2n ** 53n - 1n]);
  assert.ok(Object.is(got[0]!.usd, Infinity) && Object.is(got[1]!.usd, -0) && got[2]!.usd === null && got[3]!.usd === 0.1);
  assert.equal(got[0]!.s, long);
  assert.equal(got[1]!.s, 'nul \u0000 and \uffff');
  assert.equal(got[2]!.s, null);
  assert.equal(got[3]!.s, 'lone \ufffd surrogate', 'a lone surrogate cannot be UTF-8: it is written as U+FFFD');
});

test('days of the first centuries are days (Date.UTC reads the years 0-99 as 1900-1999)', () => {
  assert.equal(epochDays('1970-01-01'), 0);
  assert.equal(epochDays('0001-01-01'), -719162);
  assert.equal(epochDays('0099-12-31'), -683004);
  assert.equal(epochDays('0100-01-01'), -683003);
  assert.throws(() => epochDays('0099-02-29'), /not a calendar day/);
});

