// hermetic query's table (issue 16 §5): on a terminal the table fits its width, wide text cut with a hint to use
// --json; BLOBs print as hex; line breaks do not break the table. A fleet store nobody answers at is the fleet's error.
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { test } from 'node:test';
import { exitCode } from '../../cli/main.js';
import { HermeticError } from '../../shared/errors.js';
import { CUT_HINT, formatTable, queryCommand } from './query.js';
import { reportCommand } from './report.js';

test('on a terminal of 40 columns the widest column gives way, each cut value ends in … and the table says --json shows them whole', () => {
  const rows = [{ id: 1, content: 'The quick brown fox jumps over the lazy dog, twice over and again.', kind: 'message' }];
  const out = formatTable(['id', 'content', 'kind'], rows, 40).split('\n');
  assert.ok(out.slice(0, -1).every((l) => l.length <= 40), out.join('\n'));
  assert.deepEqual(out, [
    'id  content                      kind',
    '--  ---------------------------  -------',
    '1   The quick brown fox jumps…   message',
    '(1 row)',
    CUT_HINT,
  ]);
});

test('a BLOB prints as hex the way SQLite writes one; NULL as NULL; a line break as ⏎; nothing cut says nothing', () => {
  const out = formatTable(['b', 'n', 't'], [{ b: Buffer.from([0xde, 0xad, 0x01]), n: null, t: 'two\nlines' }], 80);
  assert.deepEqual(out.split('\n'), ["b          n     t", '---------  ----  ---------', "x'dead01'  NULL  two⏎lines", '(1 row)']);
});

test('piped (no terminal width) a value is cut at 60 characters, and the hint is there too', () => {
  const out = formatTable(['v'], [{ v: 'x'.repeat(100) }]).split('\n');
  assert.deepEqual([out[2], out.at(-1)], [`${'x'.repeat(59)}…`, CUT_HINT]);
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
