// The Parquet export read back by an independent reader (DuckDB) and compared with the dataset it came from: rows per
// table and per day, token and cost sums, every column of every row (fixtures) or of a sample (a generated store),
// the types DuckDB sees, nullability, row groups, the manifest; then incremental exports (a window, the next one, the
// first again: nothing twice, nothing missing), a window with no rows, and a day the dataset lost.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { copyFixture, FIXTURES, tempDir } from '../../../state-db/testing/fixtures.js';
import { generatedStore } from '../../../state-db/testing/generated.js';
import { openDatasetReadOnly } from '../../sinks/sqlite/dataset.js';
import { forwarderRig, type Rig } from '../../testing/index.js';
import { DATASET_TABLES, DATASET_VERSION, columnsVersion, type DatasetTable } from '../../dataset/columns.js';
import { EXPORTED_TABLES, exportParquet, PARTITIONED, readManifest, windowDays, type ExportRequest } from './index.js';
import { epochMicros, kindOf, TIME_COLUMNS } from './schema.js';
import { assertSameRow, duckTypes, expectedTypes, openDuck, plainColumns, source, type Duck } from './testing.js';

const NOW = Date.UTC(2026, 11, 2, 12); // the export's own time, written into each file
const DAY = 86400;

let duck: Duck;
let tmp: { dir: string; cleanup: () => void };
let fixtures: Rig;
let generated: Rig;

before(async () => {
  duck = await openDuck();
  tmp = tempDir('hermetic-parquet-');
  fixtures = forwarderRig(FIXTURES.map((name) => copyFixture(name, tmp.dir)), { dir: join(tmp.dir, 'fixtures'), timeZone: 'UTC' });
  fixtures.forwarder.backfill();
  // Six days of history, about 250 messages each, ending on a fixed day.
  const store = generatedStore({ out: join(tmp.dir, 'gen', 'state.db'), sessions: 40, messages: 1500, seed: 'parquet-export', end: Date.UTC(2026, 10, 20) / 1000, days: 6 });
  generated = forwarderRig([store.path], { dir: join(tmp.dir, 'gen'), timeZone: 'UTC' });
  generated.forwarder.backfill();
});

after(() => {
  duck?.close();
  fixtures?.cleanup();
  generated?.cleanup();
  tmp?.cleanup();
});

function run(rig: Rig, out: string, window: Partial<ExportRequest> = {}) {
  const db = openDatasetReadOnly(rig.home);
  try {
    return exportParquet(db, { out, since: null, until: null, now: NOW, ...window });
  } finally {
    db.close();
  }
}

const count = (rig: Rig, sql: string, ...params: unknown[]) => Number(Object.values(rig.query(sql, ...params)[0]!)[0]);
const keyOf = (table: DatasetTable, row: Record<string, unknown>, micros: boolean) =>
  JSON.stringify(table.primaryKey.map((k) => (micros && TIME_COLUMNS.has(k) ? String(Number(row[k]) / 1e6) : String(row[k]))));

/** Every row of the table (or every n-th by key) the same in the dataset and in the files. */
async function assertTableMatches(rig: Rig, out: string, table: DatasetTable, every = 1): Promise<number> {
  const order = table.primaryKey.map((k) => `"${k}"`).join(', ');
  const want = rig.query(`SELECT * FROM "${table.name}" ORDER BY ${order}`).filter((_, i) => i % every === 0);
  const got = new Map((await duck.all(`SELECT ${plainColumns(table)} FROM ${source(out, table.name)}`)).map((r) => [keyOf(table, r, true), r]));
  for (const row of want) {
    const key = keyOf(table, row, false);
    const parquet = got.get(key);
    assert.ok(parquet, `${table.name} ${key} is in the export`);
    assertSameRow(table, row, parquet, key);
  }
  return want.length;
}

async function duckCount(out: string, table: string, where = ''): Promise<number> {
  return Number((await duck.all(`SELECT count(*) AS n FROM ${source(out, table)} ${where}`))[0]!.n);
}

/** Rows whose key is in the folder more than once. */
async function duplicates(out: string, table: DatasetTable): Promise<number> {
  const key = table.primaryKey.map((k) => `"${k}"`).join(', ');
  return Number((await duck.all(`SELECT count(*) AS n FROM (SELECT ${key} FROM ${source(out, table.name)} GROUP BY ${key} HAVING count(*) > 1)`))[0]!.n);
}

async function perDay(out: string, table: string): Promise<Record<string, number>> {
  const rows = await duck.all(`SELECT strftime(day, '%Y-%m-%d') AS day, count(*) AS n FROM ${source(out, table)} GROUP BY ALL ORDER BY 1`);
  return Object.fromEntries(rows.map((r) => [r.day as string, Number(r.n)]));
}

function datasetPerDay(rig: Rig, table: string, where = ''): Record<string, number> {
  const rows = rig.query<{ day: string; n: number }>(`SELECT date(floor(created_at), 'unixepoch') AS day, count(*) AS n FROM "${table}" ${where} GROUP BY 1 ORDER BY 1`);
  return Object.fromEntries(rows.map((r) => [r.day, r.n]));
}

test('every exported column is typed from columns.ts: times (the columns meaning epoch seconds) as TIMESTAMP, days as DATE, integers as BIGINT, costs as DOUBLE, text and JSON as VARCHAR', () => {
  assert.deepEqual(EXPORTED_TABLES.map((t) => t.name), DATASET_TABLES.filter((t) => !t.internal).map((t) => t.name));
  for (const table of EXPORTED_TABLES) {
    for (const c of table.columns) {
      const kind = kindOf(c);
      const meansTime = /epoch seconds|^Latest of/i.test(c.doc) || c.name === 'at';
      assert.equal(kind === 'timestamp', meansTime, `${table.name}.${c.name}: a time exactly when its meaning says epoch seconds`);
      if (c.type === 'REAL' && kind !== 'timestamp') assert.match(c.name, /_usd$|^duration_seconds$/, `${table.name}.${c.name}: the other REAL columns are costs and durations`);
      if (kind === 'date') assert.equal(c.type, 'TEXT');
    }
  }
});

test('epoch seconds become the nearest microsecond, whole seconds and fraction apart (no rounding of x·1e6 moves it)', () => {
  assert.equal(epochMicros(1700000000.1234564), 1700000000123456n);
  assert.equal(epochMicros(1700000000.1234566), 1700000000123457n);
  assert.equal(epochMicros(1780300333.842298), 1780300333842298n);
  assert.equal(epochMicros(0), 0n);
  assert.equal(epochMicros(-1.5), -1500000n);
  assert.equal(epochMicros(1800000000), 1800000000000000n);
});

test('a window covers whole UTC days: until is exclusive, a midnight ends the day before it', () => {
  const d = Date.UTC(2026, 10, 18) / 1000;
  assert.deepEqual(windowDays(d, d + DAY), { first: '2026-11-18', last: '2026-11-18' });
  assert.deepEqual(windowDays(d + 3600, d + DAY + 1), { first: '2026-11-18', last: '2026-11-19' });
  assert.deepEqual(windowDays(null, null), { first: null, last: null });
});

test('the fixture stores: every table, every row and column as DuckDB reads it, its types, nullability, rows per day and the manifest', async () => {
  const out = join(tmp.dir, 'out-fixtures');
  const summary = run(fixtures, out);
  assert.equal(summary.datasetVersion, DATASET_VERSION);
  for (const table of EXPORTED_TABLES) {
    const rows = count(fixtures, `SELECT count(*) FROM "${table.name}"`);
    assert.equal(summary.tables.find((t) => t.table === table.name)!.rows, rows, `${table.name}: rows written`);
    if (rows === 0 && PARTITIONED.has(table.name)) continue;
    assert.equal(await duckCount(out, table.name), rows, `${table.name}: rows DuckDB reads`);
    assert.deepEqual(await duckTypes(duck, out, table.name), expectedTypes(table), `${table.name}: types`);
    assert.equal(await assertTableMatches(fixtures, out, table), rows);
  }
  // NULL only where the dataset allows it: the Parquet columns say REQUIRED for the NOT NULL ones.
  const schema = await duck.all(`SELECT name, repetition_type FROM parquet_schema('${join(out, 'sessions', 'data.parquet')}') WHERE num_children IS NULL`);
  assert.deepEqual(schema.map((r) => [r.name, r.repetition_type]), EXPORTED_TABLES[0]!.columns.map((c) => [c.name, c.notNull ? 'REQUIRED' : 'OPTIONAL']));
  assert.ok(count(fixtures, 'SELECT count(*) FROM sessions WHERE ended_at IS NULL') > 0, 'the fixtures have open sessions (a NULL time)');
  for (const table of ['messages', 'parts']) assert.deepEqual(await perDay(out, table), datasetPerDay(fixtures, table));
  // The manifest: every table, its files and rows, as the folder holds them.
  const manifest = readManifest(out)!;
  assert.equal(manifest.dataset_version, DATASET_VERSION);
  assert.equal(manifest.ledger_time_zone, 'UTC');
  for (const table of EXPORTED_TABLES) {
    const m = manifest.tables[table.name]!;
    assert.equal(m.rows, count(fixtures, `SELECT count(*) FROM "${table.name}"`), `${table.name}: manifest rows`);
    assert.equal(m.partitioned_by, PARTITIONED.has(table.name) ? 'day' : null);
    assert.deepEqual(m.schema.map((c) => c.name), table.columns.map((c) => c.name));
    for (const f of m.files) {
      assert.ok(existsSync(join(out, f.path)), f.path);
      assert.equal(f.written_at, new Date(NOW).toISOString());
      assert.deepEqual(f.window, { since: null, until: null });
    }
  }
  assert.deepEqual(manifest.tables.messages!.files.map((f) => f.day), Object.keys(datasetPerDay(fixtures, 'messages')));
});

test('a generated store: rows per table and per day, token and cost sums, a sample of rows field by field, in row groups of a budget', async () => {
  const out = join(tmp.dir, 'out-generated');
  run(generated, out, { budget: { rows: 128, bytes: 1 << 30 } });
  for (const table of EXPORTED_TABLES) {
    const rows = count(generated, `SELECT count(*) FROM "${table.name}"`);
    if (rows === 0) continue;
    assert.equal(await duckCount(out, table.name), rows, `${table.name}: rows`);
    assert.deepEqual(await duckTypes(duck, out, table.name), expectedTypes(table), `${table.name}: types`);
    await assertTableMatches(generated, out, table, PARTITIONED.has(table.name) ? 7 : 3);
  }
  assert.ok(count(generated, 'SELECT count(*) FROM messages') >= 1200);
  for (const table of ['messages', 'parts']) {
    const days = datasetPerDay(generated, table);
    assert.ok(Object.keys(days).length >= 5, `${table}: several days`);
    assert.deepEqual(await perDay(out, table), days);
  }
  // Sums: tokens exactly, costs to the last bits a different summing order can move.
  const counters = ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens'];
  for (const table of ['sessions', 'model_usage', 'usage_events', 'daily_usage', 'usage_ledger']) {
    const sums = counters.map((c) => `sum("${c}") AS "${c}"`).join(', ');
    const want = generated.query(`SELECT ${sums}, total(estimated_cost_usd) AS est, total(actual_cost_usd) AS act FROM "${table}"`)[0]!;
    const got = (await duck.all(`SELECT ${sums}, coalesce(sum(estimated_cost_usd), 0) AS est, coalesce(sum(actual_cost_usd), 0) AS act FROM ${source(out, table)}`))[0]!;
    for (const c of counters) assert.equal(Number(got[c]), want[c], `${table}.${c}`);
    assert.ok(Number(want.est) > 0 || table === 'daily_usage', `${table}: has costs`);
    for (const c of ['est', 'act']) assert.ok(Math.abs(Number(got[c]) - Number(want[c])) <= 1e-9 * Math.max(1, Math.abs(Number(want[c]))), `${table}.${c}: ${got[c]} vs ${want[c]}`);
  }
  // The ledger's totals through DuckDB equal the report's own aggregation.
  const ledger = generated.query<{ cost: number; tokens: number }>('SELECT total(cost_usd) AS cost, sum(input_tokens + output_tokens) AS tokens FROM usage_ledger')[0]!;
  const fromParquet = (await duck.all(`SELECT sum(cost_usd) AS cost, sum(input_tokens + output_tokens) AS tokens FROM ${source(out, 'usage_ledger')}`))[0]!;
  assert.equal(Number(fromParquet.tokens), ledger.tokens);
  assert.ok(Math.abs(Number(fromParquet.cost) - ledger.cost) <= 1e-9 * Math.max(1, ledger.cost));
  // Row groups of at most 128 rows: DuckDB read them all above; the manifest counts them.
  const manifest = readManifest(out)!;
  const messages = manifest.tables.messages!;
  assert.ok(messages.files.every((f) => f.row_groups === Math.ceil(f.rows / 128)), 'a row group per 128 rows');
  const meta = await duck.all(`SELECT max(row_group_num_rows) AS most FROM parquet_metadata('${join(out, 'parts', '**', '*.parquet')}')`);
  assert.equal(Number(meta[0]!.most), 128);
});

test('a byte budget cuts row groups too: long texts do not make one huge group', () => {
  const out = join(tmp.dir, 'out-bytes');
  const first = generated.query<{ t: number }>('SELECT min(created_at) AS t FROM messages')[0]!.t;
  run(generated, out, { budget: { rows: 1_000_000, bytes: 20_000 }, since: first, until: first + DAY });
  const files = readManifest(out)!.tables.messages!.files;
  assert.ok(files.every((f) => f.row_groups > 1), files.map((f) => `${f.day}: ${f.rows} rows in ${f.row_groups} groups`).join(', '));
});

test('incremental: a window, the next window, the first again: each day rewritten whole, no row twice, none missing; then a window with no rows, a day the dataset lost, and rows that changed day outside the window', async () => {
  const out = join(tmp.dir, 'out-incremental');
  const days = Object.keys(datasetPerDay(generated, 'messages'));
  const start = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;
  const a = { since: start(days[0]!), until: start(days[2]!) }; // the first two days
  const b = { since: start(days[2]!), until: start(days[4]!) }; // the next two
  const first = run(generated, out, a);
  assert.deepEqual(first.tables.find((t) => t.table === 'messages')!.days, days.slice(0, 2));
  const second = run(generated, out, b);
  assert.deepEqual(second.tables.find((t) => t.table === 'messages')!.days, days.slice(2, 4));
  run(generated, out, a);
  const covered = `WHERE created_at < ${start(days[4]!)}`;
  for (const name of ['messages', 'parts']) {
    const table = EXPORTED_TABLES.find((t) => t.name === name)!;
    assert.equal(await duplicates(out, table), 0, `${name}: no row twice`);
    assert.deepEqual(await perDay(out, name), datasetPerDay(generated, name, covered), `${name}: every row of the four days`);
  }
  // The whole tables are rewritten by each export: the latest snapshot, once.
  for (const table of EXPORTED_TABLES.filter((t) => !PARTITIONED.has(t.name))) {
    assert.equal(await duckCount(out, table.name), count(generated, `SELECT count(*) FROM "${table.name}"`), table.name);
    assert.equal(await duplicates(out, table), 0, table.name);
  }
  const manifest = readManifest(out)!;
  assert.deepEqual(manifest.tables.messages!.files.map((f) => f.day), days.slice(0, 4));
  assert.equal(manifest.tables.messages!.files[2]!.window.since, new Date(b.since * 1000).toISOString(), 'each file says the window that wrote it');
  const before = manifest.tables.messages!.files.map((f) => [f.path, f.written_at, f.rows]);

  // A window with no rows: nothing written for messages and parts, nothing of theirs touched.
  const empty = run(generated, out, { since: Date.UTC(2001, 0, 1) / 1000, until: Date.UTC(2001, 0, 3) / 1000, now: NOW + 60_000 });
  for (const name of ['messages', 'parts']) assert.deepEqual(empty.tables.find((t) => t.table === name), { table: name, rows: 0, files: 0, bytes: 0, days: [], repairedDays: [], removedDays: [] });
  assert.deepEqual(readManifest(out)!.tables.messages!.files.map((f) => [f.path, f.written_at, f.rows]), before);

  // The rest, whole: the folder equals the dataset.
  run(generated, out);
  for (const name of ['messages', 'parts']) {
    assert.deepEqual(await perDay(out, name), datasetPerDay(generated, name));
    assert.equal(await duplicates(out, EXPORTED_TABLES.find((t) => t.name === name)!), 0);
  }

  // A day the dataset no longer has (rows removed, as a /retry or forget removes them): its window's export removes
  // its files, and leaves the other days as they were.
  const lost = days[1]!;
  const rw = new Database(join(generated.home, 'hermetic.db'));
  try {
    for (const name of ['parts', 'messages']) rw.prepare(`DELETE FROM ${name} WHERE created_at >= ? AND created_at < ?`).run(start(lost), start(lost) + DAY);
  } finally {
    rw.close();
  }
  const again = run(generated, out, a);
  assert.deepEqual(again.tables.find((t) => t.table === 'messages')!.removedDays, [lost]);
  assert.deepEqual(again.tables.find((t) => t.table === 'messages')!.days, [days[0]]);
  assert.ok(!existsSync(join(out, 'messages', `day=${lost}`)), 'the empty day has no folder');
  for (const name of ['messages', 'parts']) assert.deepEqual(await perDay(out, name), datasetPerDay(generated, name));

  // Rows that changed day outside the window (a row moved from one day to the next, as a /retry the next day reuses
  // a seq; a session's rows of another day forgotten): those days are rewritten too, so no row is in two files.
  const moved = generated.query<{ store: string; session_id: string; seq: number }>('SELECT store, session_id, seq FROM messages WHERE created_at >= ? AND created_at < ? ORDER BY store, session_id, seq LIMIT 1', start(days[4]!), start(days[4]!) + DAY)[0]!;
  const forgotten = generated.query<{ session_id: string }>('SELECT session_id FROM messages WHERE created_at >= ? AND created_at < ? ORDER BY session_id LIMIT 1', start(days[3]!), start(days[3]!) + DAY)[0]!;
  const rw2 = new Database(join(generated.home, 'hermetic.db'));
  try {
    rw2.prepare('UPDATE messages SET created_at = ? WHERE store = ? AND session_id = ? AND seq = ?').run(start(days[5]!) + 60.5, moved.store, moved.session_id, moved.seq);
    for (const name of ['parts', 'messages']) rw2.prepare(`DELETE FROM ${name} WHERE session_id = ? AND created_at >= ? AND created_at < ?`).run(forgotten.session_id, start(days[3]!), start(days[3]!) + DAY);
  } finally {
    rw2.close();
  }
  const repaired = run(generated, out, a);
  assert.deepEqual(repaired.tables.find((t) => t.table === 'messages')!.repairedDays, [days[3], days[4], days[5]]);
  assert.deepEqual(repaired.tables.find((t) => t.table === 'parts')!.repairedDays, [days[3]]);
  assert.deepEqual(readManifest(out)!.last_export.repaired_days, { messages: [days[3], days[4], days[5]], parts: [days[3]] });
  for (const name of ['messages', 'parts']) {
    assert.equal(await duplicates(out, EXPORTED_TABLES.find((t) => t.name === name)!), 0, `${name}: no row twice`);
    assert.deepEqual(await perDay(out, name), datasetPerDay(generated, name));
  }
  await assertTableMatches(generated, out, EXPORTED_TABLES.find((t) => t.name === 'messages')!, 5);
  // Nothing changed since: the same window rewrites its own days only.
  assert.deepEqual(run(generated, out, a).tables.find((t) => t.table === 'messages')!.repairedDays, []);
  // No temporary files are left, and only our names are in the folder (the lock's empty file stays: decision 0084).
  const names = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? names(join(dir, e.name)).map((n) => `${e.name}/${n}`) : [e.name]));
  assert.deepEqual(names(out).filter((n) => !/^(manifest\.json|\.hermetic-export\.lock|[a-z_]+\/data\.parquet|(messages|parts)\/day=\d{4}-\d{2}-\d{2}\/data\.parquet)$/.test(n)), []);
});

test('a window continues an export made at a version that differs only in storage (decision 0172), not at one whose columns differ', () => {
  const out = join(tmp.dir, 'out-versions');
  const days = Object.keys(datasetPerDay(generated, 'messages'));
  const window = { since: Date.parse(`${days[0]}T00:00:00Z`) / 1000, until: Date.parse(`${days[1]}T00:00:00Z`) / 1000 };
  run(generated, out, window);
  const madeAt = (version: number) => writeFileSync(join(out, 'manifest.json'), JSON.stringify({ ...readManifest(out)!, dataset_version: version }));
  // The oldest version with this version's columns (15 while 16 only stored two tables differently), and the one before.
  const same = columnsVersion(DATASET_VERSION);
  madeAt(same);
  assert.equal(run(generated, out, window).datasetVersion, DATASET_VERSION);
  madeAt(same - 1);
  assert.throws(() => run(generated, out, window), (e: Error & { code?: string }) =>
    e.code === 'HERMETIC_EXPORT_INVALID' && e.message.includes(`exported from dataset version ${same - 1}`) && e.message.includes('without --since/--until'));
  assert.equal(run(generated, out).datasetVersion, DATASET_VERSION, 'a whole export rewrites it');
});

test('the manifest is rebuilt from the files themselves, and temporary files an interrupted export left are removed', async () => {
  const out = join(tmp.dir, 'out-fixtures-again');
  run(fixtures, out);
  const before = readManifest(out)!;
  const day = before.tables.messages!.files[0]!.day!;
  const leftover = join(out, 'messages', `day=${day}`, '.data.parquet.999999-1.tmp');
  writeFileSync(leftover, 'half a file');
  rmSync(join(out, 'manifest.json'));
  run(fixtures, out, { since: Date.UTC(2001, 0, 1) / 1000, until: Date.UTC(2001, 0, 2) / 1000 });
  assert.ok(!existsSync(leftover), 'the leftover is gone');
  const after = readManifest(out)!;
  assert.deepEqual(after.tables.messages, before.tables.messages, 'the days, read back from their footers');
  assert.equal(after.tables.sessions!.rows, before.tables.sessions!.rows);
  assert.deepEqual(after.last_export.days, { messages: [], parts: [] });
});
