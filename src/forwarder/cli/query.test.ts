// hermetic query's table (issue 16 §5): on a terminal the table fits its width, wide text cut with a hint to use
// --json; BLOBs print as hex; line breaks do not break the table. A fleet store nobody answers at is the fleet's error.
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { test } from 'node:test';
import { exitCode } from '../../cli/main.js';
import { HermeticError } from '../../shared/errors.js';
import { displayWidth } from '../report/wrap.js';
import { printed } from '../../shared/testing/console.js';
import { oneMessageDataset } from '../testing/index.js';
import { CUT_HINT, HELD_ROWS, formatTable, jsonLines, queryCommand, queryJson } from './query.js';
import { reportCommand } from './report.js';

test('on a terminal of 40 columns the widest column gives way, each cut value ends in … and the table says (within 40 columns) --json shows them whole', () => {
  const rows = [{ id: 1, content: 'The quick brown fox jumps over the lazy dog, twice over and again.', kind: 'message' }];
  const out = formatTable(['id', 'content', 'kind'], rows, 40).split('\n');
  assert.ok(out.every((l) => l.length <= 40), out.join('\n'));
  assert.deepEqual(out, [
    'id  content                      kind',
    '--  ---------------------------  -------',
    '1   The quick brown fox jumps…   message',
    '(1 row)',
    '(values cut to fit are marked …;',
    'hermetic query --json shows them whole)',
  ]);
  assert.equal(out.slice(-2).join(' '), CUT_HINT);
});

test('a BLOB prints as hex the way SQLite writes one; NULL as NULL; a line break as ⏎; nothing cut says nothing', () => {
  const out = formatTable(['b', 'n', 't'], [{ b: Buffer.from([0xde, 0xad, 0x01]), n: null, t: 'two\nlines' }], 80);
  assert.deepEqual(out.split('\n'), ["b          n     t", '---------  ----  ---------', "x'dead01'  NULL  two⏎lines", '(1 row)']);
});

test('--json: an integer past 2^53 keeps every digit, a safe one and a REAL are plain numbers, a BLOB is hex, text that looks like a mark stays text', () => {
  const rows = [{ big: 9007199254740993n, neg: -123456789012345678901n, one: 1n, f: 1.5, b: new Uint8Array([0, 255]), t: 'big:1', n: null }];
  assert.equal(queryJson(rows), '[{"big":9007199254740993,"neg":-123456789012345678901,"one":1,"f":1.5,"b":"00ff","t":"big:1","n":null}]');
  assert.equal(formatTable(['big'], [{ big: 9007199254740993n }]).split('\n')[2], '9007199254740993');
  // A REAL past the double range (SELECT 1e308*10) is infinity, which JSON cannot hold: said as text, not null.
  assert.equal(queryJson([{ up: Infinity, down: -Infinity }]), '[{"up":"Infinity","down":"-Infinity"}]');
});

test('piped (no terminal width) a value is cut at 60 characters, and the hint is there too', () => {
  const out = formatTable(['v'], [{ v: 'x'.repeat(100) }]).split('\n');
  assert.deepEqual([out[2], out.at(-1)], [`${'x'.repeat(59)}…`, CUT_HINT]);
});

test('ESC, TAB, DEL and C1 controls in a value (or a column name) show visibly (␛, a space, ␡, \\xNN), never reach the terminal, and the row fits', () => {
  const title = '\x1b[31mRED\x1b[0m title\twith tab';
  const out = formatTable(['id', 'title\x1b[2J'], [{ id: 1, 'title\x1b[2J': title }, { id: 2, 'title\x1b[2J': 'bell\x07 del\x7f csi\x9b c1\x85 cr\r lf\n' }], 80);
  assert.deepEqual(out.split('\n'), [
    'id  title␛[2J',
    '--  ---------------------------------',
    '1   ␛[31mRED␛[0m title with tab',
    '2   bell␇ del␡ csi\\x9b c1\\x85 cr␍ lf⏎',
    '(2 rows)',
  ]);
  assert.doesNotMatch(out.replace(/\n/g, ''), /[\x00-\x1f\x7f-\x9f]/);
  // Cut to a narrow terminal, still harmless and within it.
  const narrow = formatTable(['id', 'title'], [{ id: 1, title: `${title} and more words than fit` }], 24).split('\n');
  assert.ok(narrow.every((l) => displayWidth(l) <= 24), narrow.join('\n'));
  assert.equal(narrow[2], '1   ␛[31mRED␛[0m title…');
});

test('a table of more rows than a call takes arguments is printed, as wide as its widest value', () => {
  const rows = Array.from({ length: 200_000 }, (_, i) => ({ n: i }));
  const out = formatTable(['n'], rows).split('\n');
  assert.deepEqual([out[0], out[1], out[2], out.at(-2), out.at(-1)], ['n', '------', '0', '199999', '(200000 rows)']);
});

test('CJK and emoji are measured in terminal columns: a 60-character CJK value fits 80 columns, cut between whole characters', () => {
  const cjk = '数据分析与报告生成系统的长期维护和性能优化以及用户界面改进工作计划'.repeat(2).slice(0, 60);
  const out = formatTable(['id', 'title', 'kind'], [{ id: 1, title: cjk, kind: 'message' }, { id: 2, title: '😀 e\u0301 ok', kind: 'tool' }], 80).split('\n');
  assert.deepEqual(out.filter((l) => displayWidth(l) > 80), [], out.join('\n'));
  // The kind column starts at the same terminal column on every row: wide values were padded by their width.
  const kindAt = (l: string) => displayWidth(l.slice(0, l.lastIndexOf('  ') + 2));
  assert.equal(new Set(out.slice(0, 4).map(kindAt)).size, 1, out.join('\n'));
  assert.equal(out[2], `1   ${cjk.slice(0, 33)}…  message`);
  assert.match(out[3]!, /^2 {3}😀 e\u0301 ok {62}tool$/);
  // Piped, the 60-column cap counts columns too: 29 CJK characters and the … (a 30th would not fit), not 59.
  const piped = formatTable(['t'], [{ t: cjk }]).split('\n');
  assert.equal(displayWidth(piped[2]!), 59);
  assert.equal(piped[2], `${cjk.slice(0, 29)}…`);
  // A surrogate pair is never cut in half.
  const emoji = formatTable(['e', 'n'], [{ e: '😀'.repeat(20), n: 'x'.repeat(30) }], 30).split('\n')[2]!;
  assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])/.test(emoji), emoji);
  assert.ok(displayWidth(emoji) <= 30, emoji);
});

test('query and report --from a fleet store nobody answers at: HERMETIC_FLEET_UNAVAILABLE (exit 1), the password never shown', async () => {
  // A port that was free a moment ago: nothing listens on it.
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = s.address() as AddressInfo;
      s.close(() => resolve(free));
    });
  });
  const url = `postgres://fleet:hunter2-secret@127.0.0.1:${port}/fleet`;
  const unavailable = (e: unknown) => {
    assert.ok(e instanceof HermeticError, String(e));
    assert.equal(e.code, 'HERMETIC_FLEET_UNAVAILABLE');
    assert.equal(exitCode(e), 1);
    assert.match(e.message, new RegExp(`^PostgreSQL could not be reached or dropped the connection \\(postgres://fleet:\\*\\*\\*@127\\.0\\.0\\.1:${port}/fleet\\): .*ECONNREFUSED.*; nothing was read; try again when it answers\\.$`));
    assert.ok(!e.message.includes('hunter2'));
    return true;
  };
  await assert.rejects(queryCommand(['--from', url, 'SELECT 1']), unavailable);
  await assert.rejects(reportCommand(['--from', url, '--period', 'all']), unavailable);
});

test('--json lines: a thousand rows a line, each line ending after a comma, together the one array queryJson writes', () => {
  for (const n of [0, 1, 999, 1000, 1001, 2500]) {
    const rows = Array.from({ length: n }, (_, i) => ({ i: BigInt(i), t: `r${i}` }));
    const lines = [...jsonLines(rows)];
    assert.equal(lines.join(''), queryJson(rows), `${n} rows`);
    assert.equal(lines.length, Math.max(1, Math.ceil(n / 1000)), `${n} rows`);
    assert.ok(lines.slice(0, -1).every((l) => l.endsWith('},')), `${n} rows`);
  }
});

test('a result longer than a table holds is measured, then read again: it prints what one read held in memory would, and --json the same rows', async (t) => {
  const { home, cleanup } = oneMessageDataset('hermetic-query-');
  t.after(cleanup);
  // More rows than the table holds, the widest value among the last ones (the first read must measure them all).
  const n = HELD_ROWS + 5;
  const sql = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT ${n}) SELECT x, substr(replace(hex(zeroblob(40)), '0', 'y'), 1, CASE WHEN x > ${n - 3} THEN 80 ELSE x % 7 END) AS pad FROM c`;
  const rows = Array.from({ length: n }, (_, i) => ({ x: i + 1, pad: 'y'.repeat(i + 1 > n - 3 ? 80 : (i + 1) % 7) }));
  const table = await printed(() => queryCommand(['--home', home, sql]));
  assert.equal(table.value, 0);
  assert.equal(table.out.join('\n'), formatTable(['x', 'pad'], rows));
  const json = await printed(() => queryCommand(['--home', home, '--json', sql]));
  assert.equal(json.out.length, Math.ceil(n / 1000));
  assert.deepEqual(JSON.parse(json.out.join('\n')), rows);
});
