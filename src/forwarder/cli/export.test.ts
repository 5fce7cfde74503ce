// `hermetic export parquet` on the command line: its summary and --json, --help, and each refusal or failure as one
// line with its HERMETIC_* code and exit status (no dataset, a bad window, an unwritable --out, a busy folder, a
// value that does not fit), losing nothing: what a failed export did not finish leaves the folder as it was.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { main } from '../../cli/main.js';
import { copyFixture, tempDir } from '../../state-db/testing/fixtures.js';
import { forwarderRig, type Rig } from '../testing/index.js';
import { EXPORT_HELP } from './help.js';
import { DATASET_VERSION } from '../dataset/columns.js';
import { printed } from '../../shared/testing/console.js';


let tmp: { dir: string; cleanup: () => void };
let rig: Rig;

before(() => {
  tmp = tempDir('hermetic-export-cli-');
  rig = forwarderRig([copyFixture('basic', tmp.dir), copyFixture('usage', tmp.dir)], { dir: tmp.dir, timeZone: 'UTC' });
  rig.forwarder.backfill();
});

after(() => {
  rig?.cleanup();
  tmp?.cleanup();
});

/** Runs `hermetic …` in this process and returns its exit code and what it printed. */
async function hermetic(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const { value, out, err } = await printed(() => main(argv));
  return { code: value, out: out.join('\n'), err: err.join('\n') };
}

const refused = (message: string, code: string) => `hermetic: ${message} [${code}]\nRun "hermetic export --help" for the options.`;

test('--help shows the export help; the top-level help lists the command', async () => {
  assert.deepEqual(await hermetic('export', '--help'), { code: 0, out: EXPORT_HELP, err: '' });
  assert.match((await hermetic('--help')).out, /^ {2}export {5}the dataset as Parquet files/m);
});

test('the summary names each table with its rows and files; --json gives the same as an object', async () => {
  const out = join(tmp.dir, 'out-cli');
  const text = await hermetic('export', 'parquet', '--out', out, '--home', rig.home);
  assert.equal(text.code, 0, text.err);
  const lines = text.out.split('\n');
  assert.equal(lines[0], `Exported the whole dataset from dataset version ${DATASET_VERSION} to ${out}:`);
  const messages = rig.query<{ n: number; days: number }>("SELECT count(*) AS n, count(DISTINCT date(floor(created_at), 'unixepoch')) AS days FROM messages")[0]!;
  assert.match(text.out, new RegExp(`^ {2}messages +${messages.n} rows +${messages.days} files +[\\d.]+ kB  ${messages.days} days written$`, 'm'));
  assert.match(lines.at(-1)!, new RegExp(`^Wrote \\d+ files, [\\d,]+ rows, [\\d.]+ kB in [\\d.]+ s\\. Manifest: ${out}/manifest\\.json$`));

  const json = await hermetic('export', 'parquet', '--out', out, '--home', rig.home, '--since', '2026-05-30', '--until', '2026-05-30', '--json');
  assert.equal(json.code, 0, json.err);
  const summary = JSON.parse(json.out);
  assert.deepEqual(summary.window, { since: '2026-05-30T00:00:00.000Z', until: '2026-05-31T00:00:00.000Z', firstDay: '2026-05-30', lastDay: '2026-05-30' });
  const written = summary.tables.find((t: { table: string }) => t.table === 'messages');
  assert.deepEqual(written.days, rig.query<{ d: string }>("SELECT DISTINCT date(floor(created_at), 'unixepoch') AS d FROM messages WHERE d = '2026-05-30'").map((r) => r.d));
  assert.equal(written.rows, rig.query<{ n: number }>("SELECT count(*) AS n FROM messages WHERE date(floor(created_at), 'unixepoch') = '2026-05-30'")[0]!.n);
  assert.deepEqual(Object.keys(summary), ['out', 'manifest', 'window', 'datasetVersion', 'localOnly', 'tables', 'totals']);
  assert.deepEqual(summary.localOnly, { sessions: 0, exported: false });
});

test('a --since or --until that names no real date or time is refused (exit 2), never rolled over; a leap day is a day', async () => {
  const out = join(tmp.dir, 'out-impossible');
  const home = ['--home', rig.home];
  const impossible = [
    ['--since', '2026-02-30', '"2026-02-30" is not a real date: days of February 2026 run from 01 to 28'],
    ['--since', '2026-04-31', '"2026-04-31" is not a real date: days of April 2026 run from 01 to 30'],
    ['--since', '2026-02-29', '"2026-02-29" is not a real date: days of February 2026 run from 01 to 28'],
    ['--since', '2026-02-30T25:00', '"2026-02-30T25:00" is not a real date: days of February 2026 run from 01 to 28'],
    ['--until', '2026-05-31T24:00', '"2026-05-31T24:00" is not a real time: hours run from 00 to 23 (the end of a day is the next day\'s 00:00)'],
  ] as const;
  for (const [flag, value, why] of impossible) {
    assert.deepEqual(await hermetic('export', 'parquet', '--out', out, flag, value, ...home), { code: 2, out: '', err: refused(`${flag} ${why}.`, 'HERMETIC_CLI_USAGE') });
  }
  // export has no --period: what reaches back past 1970 says to leave the flag out.
  for (const value of ['1969-12-31', '99999d']) {
    const why = value === '99999d' ? 'reaches back more than 100 years' : 'is before 1970, when no usage can have been recorded';
    assert.deepEqual(await hermetic('export', 'parquet', '--out', out, '--since', value, ...home), { code: 2, out: '', err: refused(`--since ${value} ${why}; leave --since out for everything.`, 'HERMETIC_CLI_USAGE') });
  }
  assert.ok(!existsSync(out), 'nothing written');
  const leap = await hermetic('export', 'parquet', '--out', join(tmp.dir, 'out-leap'), '--since', '2028-02-29', '--until', '2028-02-29', '--json', ...home);
  assert.equal(leap.code, 0, leap.err);
  assert.deepEqual(JSON.parse(leap.out).window, { since: '2028-02-29T00:00:00.000Z', until: '2028-03-01T00:00:00.000Z', firstDay: '2028-02-29', lastDay: '2028-02-29' });
});

test('no dataset: HERMETIC_DATASET_OPEN, exit 1', async () => {
  const home = join(tmp.dir, 'no-home');
  assert.deepEqual(await hermetic('export', 'parquet', '--out', join(tmp.dir, 'never'), '--home', home), {
    code: 1, out: '', err: `hermetic: There is no dataset at ${join(home, 'hermetic.db')} yet; run "hermetic backfill" first. [HERMETIC_DATASET_OPEN]`,
  });
  assert.ok(!existsSync(join(tmp.dir, 'never')), 'no folder made for nothing');
});

test('the command line refused (exit 2): no format, another format, no --out, a window that does not parse, ends before it starts or starts after now, a window into an export of another dataset version', async () => {
  const out = join(tmp.dir, 'out-refused');
  const home = ['--home', rig.home];
  assert.deepEqual(await hermetic('export', '--out', out, ...home), { code: 2, out: '', err: refused('Name the format: hermetic export parquet --out DIR.', 'HERMETIC_CLI_USAGE') });
  assert.deepEqual(await hermetic('export', 'csv', '--out', out, ...home), { code: 2, out: '', err: refused('Unknown export format "csv"; the format Hermetic exports is parquet.', 'HERMETIC_EXPORT_INVALID') });
  assert.deepEqual(await hermetic('export', 'parquet', ...home), { code: 2, out: '', err: refused('--out DIR is required: the folder the Parquet files go to.', 'HERMETIC_CLI_USAGE') });
  assert.deepEqual(await hermetic('export', 'parquet', '--out', out, '--since', 'yesterday', ...home), {
    code: 2, out: '', err: refused('--since must be a duration such as 7d, 4w or 12h, or an ISO date such as 2026-07-01 (or 2026-07-01T09:00); got "yesterday".', 'HERMETIC_CLI_USAGE'),
  });
  assert.deepEqual(await hermetic('export', 'parquet', '--out', out, '--since', '2026-06-01', '--until', '2026-05-01', ...home), {
    code: 2, out: '', err: refused('The window starts (2026-06-01T00:00:00.000Z) after it ends (2026-05-02T00:00:00.000Z); swap --since and --until.', 'HERMETIC_EXPORT_INVALID'),
  });
  // A start after now, with no end, holds nothing: refused as report refuses it (not an export of no day).
  for (const since of ['9999-12-31', '0d']) {
    assert.deepEqual(await hermetic('export', 'parquet', '--out', out, '--since', since, ...home), {
      code: 2, out: '', err: refused(`--since ${since} is after now: nothing can have been recorded yet.`, 'HERMETIC_EXPORT_INVALID'),
    });
  }
  assert.deepEqual(await hermetic('export', 'parquet', '--out', out, '--unti', '1d', ...home), { code: 2, out: '', err: refused('Unknown option "--unti"; did you mean "--until"?', 'HERMETIC_CLI_USAGE') });
  assert.ok(!existsSync(out), 'nothing written');
  // A window into a folder exported from another dataset version: its days would mix two schemas.
  const older = join(tmp.dir, 'out-older');
  mkdirSync(older);
  writeFileSync(join(older, 'manifest.json'), JSON.stringify({ format: 'hermetic-parquet-export', format_version: 1, dataset_version: 2, tables: {} }));
  assert.deepEqual(await hermetic('export', 'parquet', '--out', older, '--since', '7d', ...home), {
    code: 2, out: '', err: refused(`${older} was exported from dataset version 2 and this dataset is at version ${DATASET_VERSION}, so its tables differ; export without --since/--until once to rewrite it whole.`, 'HERMETIC_EXPORT_INVALID'),
  });
  assert.equal((await hermetic('export', 'parquet', '--out', older, ...home)).code, 0, 'a whole export rewrites it');
  assert.equal(JSON.parse(readFileSync(join(older, 'manifest.json'), 'utf8')).dataset_version, DATASET_VERSION);
});

test('an --out that is the root, the dataset\'s own home, or another dataset\'s export is refused (exit 2), writing nothing', async () => {
  const home = ['--home', rig.home];
  assert.deepEqual(await hermetic('export', 'parquet', '--out', '/', ...home), {
    code: 2, out: '', err: refused('--out / is the root of the file system; give the export a folder of its own (for example --out ./hermetic-export).', 'HERMETIC_EXPORT_INVALID'),
  });
  assert.deepEqual(await hermetic('export', 'parquet', '--out', rig.home, ...home), {
    code: 2, out: '', err: refused(`--out ${rig.home} is the dataset's own home; give the export a folder of its own (for example --out ./hermetic-export).`, 'HERMETIC_EXPORT_INVALID'),
  });
  assert.ok(!existsSync(join(rig.home, 'sessions')) && !existsSync('/sessions'), 'nothing written');
  // A folder holding another dataset's export: replacing it is the user's call, said by removing its manifest.
  const out = join(tmp.dir, 'out-shared');
  assert.equal((await hermetic('export', 'parquet', '--out', out, ...home)).code, 0);
  const manifest = join(out, 'manifest.json');
  const mine = readFileSync(manifest, 'utf8');
  assert.equal(JSON.parse(mine).dataset, realpathSync(join(rig.home, 'hermetic.db')), 'the manifest names the dataset it came from');
  assert.equal((await hermetic('export', 'parquet', '--out', out, '--since', '7d', ...home)).code, 0, 'the same dataset exports into it again');
  const other = JSON.stringify({ ...JSON.parse(mine), dataset: '/elsewhere/.hermetic/hermetic.db' });
  writeFileSync(manifest, other);
  assert.deepEqual(await hermetic('export', 'parquet', '--out', out, ...home), {
    code: 2, out: '', err: refused(`${out} holds an export of another dataset (/elsewhere/.hermetic/hermetic.db); choose another --out, or remove ${manifest} to replace that export with this one.`, 'HERMETIC_EXPORT_INVALID'),
  });
  assert.equal(readFileSync(manifest, 'utf8'), other, 'left as it was');
  // A manifest from before it named its dataset is taken as this dataset's.
  const { dataset: _, ...unnamed } = JSON.parse(mine) as Record<string, unknown>;
  writeFileSync(manifest, JSON.stringify(unnamed));
  assert.equal((await hermetic('export', 'parquet', '--out', out, ...home)).code, 0);
});

test('an --out that cannot be a folder: HERMETIC_EXPORT_OUT, exit 1', async () => {
  const file = join(tmp.dir, 'a-file');
  writeFileSync(file, 'mine');
  for (const out of [file, join(file, 'below')]) {
    assert.deepEqual(await hermetic('export', 'parquet', '--out', out, '--home', rig.home), {
      code: 1, out: '', err: `hermetic: Cannot write the export to ${out}: a file is in the way of a folder. Nothing there was changed but the files already replaced, each whole. [HERMETIC_EXPORT_OUT]`,
    });
  }
  assert.equal(readFileSync(file, 'utf8'), 'mine');
});

test('a folder another export is writing to: HERMETIC_EXPORT_BUSY, from a process of its own; once it is killed, the next export runs', async () => {
  const out = join(tmp.dir, 'out-busy');
  mkdirSync(out);
  const lock = join(out, '.hermetic-export.lock');
  // Another process holds the folder's lock as an export does (SQLite's write lock on the lock file), then is killed.
  const holder = spawn(process.execPath, ['--input-type=module', '-e', `
    import Database from 'better-sqlite3';
    import { closeSync, openSync } from 'node:fs';
    closeSync(openSync(${JSON.stringify(lock)}, 'a'));
    const db = new Database(${JSON.stringify(lock)}, { timeout: 0 });
    db.exec('BEGIN IMMEDIATE');
    console.log('held');
    setInterval(() => {}, 1000);
  `], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const [line] = (await once(holder.stdout!, 'data')) as [Buffer];
    assert.equal(String(line).trim(), 'held');
    assert.deepEqual(await hermetic('export', 'parquet', '--out', out, '--home', rig.home), {
      // Not a mistake in the command line: exit 1, without the pointer to --help.
      code: 1, out: '', err: `hermetic: Another export is writing to ${out} now (it holds .hermetic-export.lock); wait for it to finish, or choose another --out. [HERMETIC_EXPORT_BUSY]`,
    });
  } finally {
    holder.kill('SIGKILL');
    await once(holder, 'exit');
  }
  const done = await hermetic('export', 'parquet', '--out', out, '--home', rig.home, '--json');
  assert.equal(done.code, 0, done.err);
});

test('a lock file naming a process that is alive but exports nothing (a pid reused after a kill -9) does not stop the next export', async () => {
  const out = join(tmp.dir, 'out-reused');
  mkdirSync(out);
  // What an export killed mid-write used to leave: its pid, now another process's (here: the test runner's).
  writeFileSync(join(out, '.hermetic-export.lock'), String(process.ppid));
  const done = await hermetic('export', 'parquet', '--out', out, '--home', rig.home, '--json');
  assert.equal(done.code, 0, done.err);
  // The lock is released: another export runs at once.
  assert.equal((await hermetic('export', 'parquet', '--out', out, '--home', rig.home, '--json')).code, 0);
});

test('a value that does not fit its column stops the export with HERMETIC_EXPORT_VALUE; the files it would have replaced are as they were', async () => {
  const dir = join(tmp.dir, 'damaged');
  mkdirSync(dir);
  const source = new Database(join(rig.home, 'hermetic.db'), { readonly: true });
  source.exec(`VACUUM INTO '${join(dir, 'hermetic.db')}'`);
  source.close();
  const out = join(tmp.dir, 'out-damaged');
  assert.equal((await hermetic('export', 'parquet', '--out', out, '--home', dir)).code, 0);
  const manifest = readFileSync(join(out, 'manifest.json'), 'utf8');
  const sessions = statSync(join(out, 'sessions', 'data.parquet')).mtimeMs;
  const db = new Database(join(dir, 'hermetic.db'));
  const victim = db.prepare('SELECT store, session_id FROM sessions ORDER BY store, session_id LIMIT 1').get() as { store: string; session_id: string };
  db.prepare("UPDATE sessions SET input_tokens = 'lots' WHERE store = ? AND session_id = ?").run(victim.store, victim.session_id);
  db.close();
  assert.deepEqual(await hermetic('export', 'parquet', '--out', out, '--home', dir), {
    code: 1, out: '',
    err: `hermetic: Cannot export sessions.input_tokens of the row (store=${JSON.stringify(victim.store)}, session_id=${JSON.stringify(victim.session_id)}): the text "lots" is not a whole number. ${join(out, 'sessions', 'data.parquet')} was left as it was; check the row with "hermetic query" (a bug in the dataset or in Hermetic). [HERMETIC_EXPORT_VALUE]`,
  });
  assert.equal(readFileSync(join(out, 'manifest.json'), 'utf8'), manifest);
  assert.equal(statSync(join(out, 'sessions', 'data.parquet')).mtimeMs, sessions);
});

test('local-only sessions are left out of every table unless --include-local-only; the summary says which', async () => {
  const dir = join(tmp.dir, 'local-only');
  mkdirSync(dir);
  const source = new Database(join(rig.home, 'hermetic.db'), { readonly: true });
  source.exec(`VACUUM INTO '${join(dir, 'hermetic.db')}'`);
  source.close();
  const db = new Database(join(dir, 'hermetic.db'));
  // The session with the most messages becomes local-only (as a .hypignore saying local-only would make it).
  const victim = db.prepare('SELECT store, session_id FROM messages GROUP BY 1, 2 ORDER BY count(*) DESC LIMIT 1').get() as { store: string; session_id: string };
  db.prepare("UPDATE sessions SET policy = 'local-only' WHERE store = ? AND session_id = ?").run(victim.store, victim.session_id);
  const tables = ['sessions', 'messages', 'parts', 'model_usage', 'usage_events', 'usage_ledger'];
  const counts = (where: string) => tables.map((t) => db.prepare(`SELECT count(*) FROM ${t} ${where}`).pluck().get() as number);
  const all = counts('');
  const without = counts('WHERE NOT (store = ? AND session_id = ?)'.replace('?', `'${victim.store.replaceAll("'", "''")}'`).replace('?', `'${victim.session_id}'`));
  db.close();
  assert.ok(all.every((n, i) => n > without[i]!), `the session has rows in every table: ${all} vs ${without}`);
  const rowsOf = (summary: { tables: { table: string; rows: number }[] }) => tables.map((t) => summary.tables.find((x) => x.table === t)!.rows);

  const left = await hermetic('export', 'parquet', '--out', join(tmp.dir, 'out-local'), '--home', dir);
  assert.equal(left.code, 0, left.err);
  assert.match(left.out, /^1 local-only session left out, in every table \(--include-local-only exports them\)\.$/m);
  const leftJson = JSON.parse((await hermetic('export', 'parquet', '--out', join(tmp.dir, 'out-local'), '--home', dir, '--json')).out);
  assert.deepEqual(rowsOf(leftJson), without);
  assert.deepEqual(leftJson.localOnly, { sessions: 1, exported: false });
  assert.equal(JSON.parse(readFileSync(join(tmp.dir, 'out-local', 'manifest.json'), 'utf8')).local_only_sessions, 'left out');

  const kept = JSON.parse((await hermetic('export', 'parquet', '--out', join(tmp.dir, 'out-local-kept'), '--home', dir, '--include-local-only', '--json')).out);
  assert.deepEqual(rowsOf(kept), all);
  assert.deepEqual(kept.localOnly, { sessions: 1, exported: true });
  // A later windowed export that leaves them out takes them out of the days outside its window too (their files no
  // longer match what would be exported).
  const later = JSON.parse((await hermetic('export', 'parquet', '--out', join(tmp.dir, 'out-local-kept'), '--home', dir, '--since', '2001-01-01', '--until', '2001-01-02', '--json')).out);
  assert.ok(later.tables.find((t: { table: string }) => t.table === 'messages').repairedDays.length > 0);
  const manifest = JSON.parse(readFileSync(join(tmp.dir, 'out-local-kept', 'manifest.json'), 'utf8'));
  assert.deepEqual(tables.map((t) => manifest.tables[t].rows), without);
});
