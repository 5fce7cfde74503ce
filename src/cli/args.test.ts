// The flag parser every command shares: its refusals, and the flag it names for a stray word.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { looksLikeHost, looksLikePath, looksLikePort, looksLikeWhen, parseFlags, type FlagSpec } from './args.js';
import { isHermeticError } from '../shared/errors.js';

const SPEC = {
  'state-db': { type: 'string', multiple: true, lone: looksLikePath },
  since: { type: 'string', lone: looksLikeWhen },
  out: { type: 'string', lone: looksLikePath },
  json: { type: 'boolean' },
} as const;

/** The sentence a command line is refused with (HERMETIC_CLI_USAGE), or null when it parses. */
function refusal(argv: string[], max = 0, spec: Record<string, FlagSpec> = SPEC): string | null {
  try {
    parseFlags(argv, spec, max);
    return null;
  } catch (e) {
    assert.ok(isHermeticError(e) && e.code === 'HERMETIC_CLI_USAGE', String(e));
    return e.message;
  }
}

describe('parseFlags', () => {
  it('names the flag a stray word was likely meant for, and the first such flag not given yet', () => {
    assert.equal(refusal(['/home/me/.hermes/state.db']), 'Unexpected argument "/home/me/.hermes/state.db"; did you mean "--state-db /home/me/.hermes/state.db"?');
    assert.equal(refusal(['7d']), 'Unexpected argument "7d"; did you mean "--since 7d"?');
    assert.equal(refusal(['2026-11-01']), 'Unexpected argument "2026-11-01"; did you mean "--since 2026-11-01"?');
    // A repeatable flag is named again; one given already is not, the next that fits is.
    assert.equal(refusal(['--state-db', 'a.db', 'b.db']), 'Unexpected argument "b.db"; did you mean "--state-db b.db"?');
    assert.equal(refusal(['--since', '1d', '3d']), 'Unexpected argument "3d".');
    const two = { out: SPEC.out, into: { type: 'string', lone: looksLikePath } } as const;
    assert.equal(refusal(['--out', 'x', 'y/z'], 0, two), 'Unexpected argument "y/z"; did you mean "--into y/z"?');
    // A word no flag takes is said as before.
    assert.equal(refusal(['banana']), 'Unexpected argument "banana".');
    // Words allowed as positionals are not refused at all.
    assert.equal(refusal(['7d'], 1), null);
  });

  it('what looks like a path or a time', () => {
    for (const w of ['state.db', './x', '/tmp', '.', '..', 'C:\\hermes', 'a.sqlite3']) assert.equal(looksLikePath(w), true, w);
    for (const w of ['parquet', '7d', 'db']) assert.equal(looksLikePath(w), false, w);
    for (const w of ['7d', '12h', '30m', '2026-11-01', '2026-11-01T10:00']) assert.equal(looksLikeWhen(w), true, w);
    for (const w of ['week', 'd7', 'x2026']) assert.equal(looksLikeWhen(w), false, w);
    for (const w of ['0', '8642', '65535']) assert.equal(looksLikePort(w), true, w);
    for (const w of ['123456', '80a', '-1', '']) assert.equal(looksLikePort(w), false, w);
    for (const w of ['localhost', '0.0.0.0', '127.0.0.1', '::', '::1', 'fe80::1']) assert.equal(looksLikeHost(w), true, w);
    for (const w of ['8642', '1.2.3', 'example', '10:30']) assert.equal(looksLikeHost(w), false, w);
  });

  it('keeps its other refusals', () => {
    assert.equal(refusal(['--sine', '7d']), 'Unknown option "--sine"; did you mean "--since"?');
    assert.equal(refusal(['--since']), '--since needs a value.');
    assert.equal(refusal(['--since', '1d', '--since', '2d']), '--since is given more than once.');
    assert.equal(refusal(['--json=1']), '--json takes no value.');
    assert.equal(refusal(['--out', '']), '--out must not be empty.');
    assert.deepEqual(parseFlags(['--state-db', 'a', '--state-db=b', '--', '--x'], SPEC, 1), { values: { 'state-db': ['a', 'b'] }, positionals: ['--x'] });
  });

  it('takes a word whose name part holds white space as an argument: SQL that opens with a comment', () => {
    const sql = '-- spend by model\nSELECT model, SUM(cost_usd) AS usd FROM usage_ledger WHERE day >= \'2026-11-01\' GROUP BY model';
    assert.deepEqual(parseFlags([sql, '--json'], SPEC, 1), { values: { json: true }, positionals: [sql] });
    assert.deepEqual(parseFlags(['--json', '-1 AS x'], SPEC, 1), { values: { json: true }, positionals: ['-1 AS x'] });
    // A flag's value may hold spaces after its `=`; a name without any is still checked.
    assert.deepEqual(parseFlags(['--out=my folder/x'], SPEC), { values: { out: 'my folder/x' }, positionals: [] });
    assert.equal(refusal(['--jsn', 'SELECT 1'], 1), 'Unknown option "--jsn"; did you mean "--json"?');
    assert.equal(refusal(['-- c\nSELECT 1']), 'Unexpected argument "-- c\\nSELECT 1".');
  });
});
