// hermetic query over results of any size (decision 0074), against a real PostgreSQL fleet store and a real dataset:
// 100,000 rows are printed a FETCH of at most 1,000 rows at a time, exactly as one read held in memory would print
// them; a reader that goes away (`| head`) stops the reading after a few batches, on the fleet and on the dataset; a
// failure after rows were printed says the output is incomplete, in one line with its code.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, test } from 'node:test';
import { BIN_ARGS } from '../../../test/support/process.js';
import { HermeticError } from '../../shared/errors.js';
import { printed } from '../../shared/testing/console.js';
import { sharedPostgres } from '../../shared/testing/postgres.js';
import { readFleet } from '../sinks/postgres/read.js';
import { oneMessageDataset } from '../testing/index.js';
import { HELD_ROWS, formatTable, newTrace, queryCommand } from './query.js';

const cluster = await sharedPostgres();
const url = cluster.createDatabase();
const dbName = new URL(url).pathname.slice(1);
// A role that may read one table and not another, and one whose statements time out.
cluster.psql(`
  CREATE TABLE open_rows (id int, note text); INSERT INTO open_rows VALUES (1, 'one');
  CREATE TABLE secret (id int);
  CREATE ROLE reader LOGIN PASSWORD 'reader-pw'; GRANT SELECT ON open_rows TO reader;
  CREATE ROLE hasty LOGIN PASSWORD 'hasty-pw'; ALTER ROLE hasty SET statement_timeout = '2s';`, dbName);
// (2 s: its query's first rows, and the statements around it, must come back well before it on a loaded machine.)
const as = (user: string) => url.replace(/\/\/[^@]+@/, `//${user}:${user}-pw@`);
const dataset = oneMessageDataset('hermetic-qstream-');
after(() => dataset.cleanup());

const TOTAL = 100_000;
const BIG = `SELECT g AS n, g::bigint * 3 AS tripled, repeat('w', g % 13) AS pad FROM generate_series(1, ${TOTAL}) g`;

/** The rows as the query before streaming read them: the whole result in one query, in a read-only transaction. */
const heldWhole = (sql: string) => readFleet(url, async (c) => {
  const r = await c.query(sql);
  return { columns: r.fields.map((f) => f.name), rows: r.rows as Record<string, unknown>[] };
}, { requireSchema: false });

test('--from --json: 100,000 rows print a FETCH of at most 1,000 rows at a time, the lines joined the one array printed before', async () => {
  const rows = Array.from({ length: TOTAL }, (_, i) => ({ n: i + 1, tripled: 3 * (i + 1), pad: 'w'.repeat((i + 1) % 13) }));
  const json = newTrace();
  const j = await printed(() => queryCommand(['--from', url, '--json', BIG], json));
  assert.equal(j.value, 0);
  assert.equal(j.out.length, TOTAL / 1000);
  assert.equal(j.out.join(''), JSON.stringify(rows));
  // One FETCH in hand and one line's thousand rows waiting, whatever the result's size.
  assert.deepEqual(json, { rows: TOTAL, fetches: TOTAL / 1000 + 1, largestFetch: 1000, mostHeld: 1000 });
});

test('--from: a table longer than it holds is measured, then read again in the same snapshot: at most HELD_ROWS + 1 rows held', async () => {
  const n = 2 * HELD_ROWS + 500;
  // The widest value comes last: the first read must measure every row.
  const sql = `SELECT g AS n, repeat('w', CASE WHEN g = ${n} THEN 50 ELSE g % 13 END) AS pad FROM generate_series(1, ${n}) g`;
  const whole = await heldWhole(sql);
  const table = newTrace();
  const t = await printed(() => queryCommand(['--from', url, sql], table));
  assert.equal(t.value, 0);
  assert.equal(t.out.join('\n'), formatTable(whole.columns, whole.rows));
  assert.deepEqual(table, { rows: 2 * n, fetches: 2 * Math.ceil(n / 1000), largestFetch: 1000, mostHeld: HELD_ROWS + 1 });
});

test('--from: values of every kind print as before, and as JSON by the dataset\'s rules; EXPLAIN and SHOW, which no cursor holds, still run', async () => {
  const sql = `SELECT 1::int2 AS a, 2::bigint AS b, 1.50::numeric AS c, 'x'::bytea AS d, NULL AS e, true AS f, '{"k":[1]}'::jsonb AS g,
    '2026-01-02T03:04:05Z'::timestamptz AS h, 'a'||chr(10)||'b' AS i, ARRAY[1,2] AS j, 'Infinity'::float8 AS k, 'NaN'::float8 AS l`;
  const whole = await heldWhole(sql);
  const t = await printed(() => queryCommand(['--from', url, sql]));
  assert.equal(t.out.join('\n'), formatTable(whole.columns, whole.rows));
  const j = await printed(() => queryCommand(['--from', url, '--json', sql]));
  // As the dataset's --json writes them: bytea in hex (not Buffer's toJSON), infinities and NaN as text (not null).
  assert.deepEqual(j.out, ['[{"a":1,"b":2,"c":1.5,"d":"78","e":null,"f":true,"g":{"k":[1]},"h":"2026-01-02T03:04:05.000Z","i":"a\\nb","j":[1,2],"k":"Infinity","l":"NaN"}]']);
  const plan = await printed(() => queryCommand(['--from', url, 'EXPLAIN SELECT 1']));
  assert.match(plan.out.join('\n'), /^QUERY PLAN\n-+\nResult {2}\(cost=.*\n\(1 row\)$/);
  const show = await printed(() => queryCommand(['--from', url, '--json', 'SHOW search_path']));
  assert.deepEqual(JSON.parse(show.out.join('')), [{ search_path: 'hermetic, public' }]);
  const empty = await printed(() => queryCommand(['--from', url, 'SELECT 1 AS one WHERE false']));
  assert.deepEqual(empty.out, ['one', '---', '(0 rows)']);
});

/** Asserts `run` fails with `code` and exactly `message`. */
const failsWith = (run: () => Promise<unknown>, code: string, message: string | RegExp) => assert.rejects(run, (e) => {
  assert.ok(e instanceof HermeticError, String(e));
  assert.equal(e.code, code);
  if (typeof message === 'string') assert.equal(e.message, message);
  else assert.match(e.message, message);
  return true;
});

test('--from: a write, several statements, a syntax error and a permission denied are refused before any row, nothing said incomplete', async () => {
  await failsWith(() => queryCommand(['--from', url, 'DELETE FROM open_rows']), 'HERMETIC_QUERY_READ_ONLY', 'hermetic query --from reads the fleet store in a read-only transaction; PostgreSQL refused this statement because it would write. Use a SELECT (or WITH … SELECT) statement.');
  await failsWith(() => queryCommand(['--from', url, 'WITH d AS (DELETE FROM open_rows RETURNING id) SELECT * FROM d']), 'HERMETIC_QUERY_READ_ONLY', /read-only transaction/);
  await failsWith(() => queryCommand(['--from', url, 'SELECT 1; SELECT 2']), 'HERMETIC_QUERY_INVALID', 'PostgreSQL cannot run this query: cannot insert multiple commands into a prepared statement.');
  await failsWith(() => queryCommand(['--from', url, 'SELEC 1']), 'HERMETIC_QUERY_INVALID', 'PostgreSQL cannot run this query: syntax error at or near "SELEC".');
  // PostgreSQL's hint is said with its message.
  await failsWith(() => queryCommand(['--from', url, 'SELECT nte FROM open_rows']), 'HERMETIC_QUERY_INVALID', 'PostgreSQL cannot run this query: column "nte" does not exist (Perhaps you meant to reference the column "open_rows.note").');
  await failsWith(() => queryCommand(['--from', as('reader'), 'SELECT * FROM secret']), 'HERMETIC_QUERY_INVALID', 'PostgreSQL cannot run this query: permission denied for table secret.');
  const r = await printed(() => queryCommand(['--from', as('reader'), '--json', 'SELECT * FROM open_rows']));
  assert.deepEqual(r.out, ['[{"id":1,"note":"one"}]']);
  assert.equal(cluster.psql('SELECT COUNT(*) FROM open_rows', dbName).trim(), '1');
});

test('--from: a failure after rows were printed (a division by zero, a statement timeout) says the output stops there', async () => {
  const zero = await printed(() => queryCommand(['--from', url, '--json', 'SELECT 1 / (g - 2500) AS q FROM generate_series(1, 5000) g']).catch((e: unknown) => e));
  assert.equal(zero.out.length, 1);
  assert.ok(zero.value instanceof HermeticError);
  assert.equal(zero.value.code, 'HERMETIC_QUERY_INVALID');
  assert.equal(zero.value.message, 'PostgreSQL cannot run this query: division by zero. The output above is incomplete: it stops after 1000 rows.');
  const slow = await printed(() => queryCommand(['--from', as('hasty'), '--json', 'SELECT g, CASE WHEN g = 2500 THEN pg_sleep(30) END AS s FROM generate_series(1, 5000) g']).catch((e: unknown) => e));
  assert.ok(slow.value instanceof HermeticError);
  assert.equal(slow.value.code, 'HERMETIC_QUERY_CANCELLED');
  assert.equal(slow.value.message, 'PostgreSQL cancelled the query: canceling statement due to statement timeout. The output above is incomplete: it stops after 1000 rows.');
  assert.equal(slow.out.length, 1);
});

/**
 * `hermetic ...args | head -n lines` in bash: what head printed, and the bin's stderr and exit status. In the POSIX
 * locale, which every system has: bash warns on stderr at its start when the user's locale is not installed here (an
 * ssh session's LC_ALL from another machine), and the bin's output reads the same in any locale.
 */
function piped(args: string[], lines: number, env: NodeJS.ProcessEnv = {}): Promise<{ out: string; err: string; status: number }> {
  const child = spawn('bash', ['-c', `"$@" | head -n ${lines}; echo "exit \${PIPESTATUS[0]}" >&2`, 'bash', process.execPath, ...BIN_ARGS, ...args], {
    env: { ...process.env, LC_ALL: 'C', HERMETIC_QUERY_TRACE: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
  return new Promise((resolve) => child.on('close', () => {
    const status = Number(/^exit (\d+)$/m.exec(err)?.[1]);
    resolve({ out, err: err.replace(/^exit \d+\n/m, ''), status });
  }));
}

/** The trace the bin printed at exit. */
const traced = (err: string) => JSON.parse(/^hermetic query trace: (.*)$/m.exec(err)![1]!) as ReturnType<typeof newTrace>;

test('| head: the reader gone, the fleet query and the dataset query stop reading after a few batches of 100,000 rows and exit 0 quietly', async () => {
  const fleet = await piped(['query', '--from', url, '--json', BIG], 2);
  assert.equal(fleet.status, 0, fleet.err);
  assert.equal(fleet.out.split('\n').length, 3);
  assert.match(fleet.err, /^hermetic query trace: \{.*\}\n$/);
  // What the pipe holds (64 KiB, a few lines of a thousand rows) is all that was read beyond the lines head took.
  const read = traced(fleet.err);
  assert.ok(read.rows <= 20_000 && read.largestFetch === 1000, JSON.stringify(read));
  const local = await piped(['query', '--home', dataset.home, '--json', `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT ${TOTAL}) SELECT x, 'ssssssssss' AS s FROM c`], 2);
  assert.equal(local.status, 0, local.err);
  assert.equal(local.out.split('\n').length, 3);
  const localRead = traced(local.err);
  assert.ok(localRead.rows <= 20_000, JSON.stringify(localRead));
});

test('the connection lost mid-result: one line on stderr, HERMETIC_FLEET_UNAVAILABLE, exit 1, the rows printed whole and said incomplete', async () => {
  // The backend ends its own connection at row 2,500: a line of a thousand rows was printed by then.
  const sql = 'SELECT g, CASE WHEN g = 2500 THEN pg_terminate_backend(pg_backend_pid()) END AS t FROM generate_series(1, 5000) g';
  const r = await piped(['query', '--from', url, '--json', sql], 100, { HERMETIC_QUERY_TRACE: '' });
  assert.equal(r.status, 1);
  const lines = r.out.split('\n');
  assert.equal(lines.pop(), '');
  assert.ok(lines.length >= 1 && lines.every((l) => /^\[?\{.*\},$/.test(l)), `${lines.length} ${r.out.slice(-200)} ${r.err}`);
  assert.match(r.err, /^hermetic: PostgreSQL (could not be reached or dropped the connection|is shutting down, starting, out of connections or resources, or cancelled the statement) \(postgres:\/\/hermetic:\*\*\*@127\.0\.0\.1:\d+\/\w+\): [^\n]*; try again when it answers\. The output above is incomplete: it stops after (\d+) rows\. \[HERMETIC_FLEET_UNAVAILABLE\]\n$/);
  assert.equal(Number(/stops after (\d+) rows/.exec(r.err)![1]), lines.length * 1000);
});
