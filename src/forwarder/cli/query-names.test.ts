// hermetic query on a name the dataset does not have: the names it most likely meant, from the dataset's own schema.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HermeticError } from '../../shared/errors.js';
import { oneMessageDataset } from '../testing/index.js';
import { namesHint } from './query-names.js';
import { queryCommand } from './query.js';

const NAMES = new Map<string, string[]>([
  ['sessions', ['session_id', 'title', 'model', 'estimated_cost_usd', 'actual_cost_usd', 'input_tokens']],
  ['usage_ledger', ['session_id', 'model', 'cost_usd', 'input_tokens']],
  ['parts', ['session_id', 'part_id', 'text']],
]);
const REF = '(docs/reference/dataset.md describes every table and column)';

test('a column: a slip (two letters swapped count as one), then the names that hold it, the tables the query names first', () => {
  assert.equal(namesHint('no such column: s.titel', NAMES, 'SELECT s.titel FROM sessions s'), `; did you mean title (sessions)? ${REF}`);
  assert.equal(namesHint('no such column: modle', NAMES, 'SELECT modle FROM usage_ledger'), `; did you mean model (usage_ledger, sessions)? ${REF}`);
  assert.equal(namesHint('no such column: cost_usd', NAMES, 'SELECT cost_usd FROM sessions'),
    `; did you mean actual_cost_usd (sessions), estimated_cost_usd (sessions) or cost_usd (usage_ledger)? ${REF}`);
  assert.equal(namesHint('no such column: input', NAMES, 'SELECT input FROM parts'), `; did you mean input_tokens (sessions, usage_ledger)? ${REF}`);
  // Not a slip for a short name, and nothing holds it: said so.
  assert.equal(namesHint('no such column: foo', NAMES, 'SELECT foo FROM sessions'), `; no table of the dataset has such a column ${REF}`);
  // A name far longer than any column is not measured against them (a long name costs what it is long).
  assert.equal(namesHint(`no such column: ${'x'.repeat(1_000_000)}`, NAMES), `; no table of the dataset has such a column ${REF}`);
});

test('a table: the closest one, else every table; any other message adds nothing', () => {
  assert.equal(namesHint('no such table: session', NAMES), `; did you mean sessions? ${REF}`);
  assert.equal(namesHint('no such table: main.usage_leger', NAMES), `; did you mean usage_ledger? ${REF}`);
  assert.equal(namesHint('no such table: nope', NAMES), `; the dataset's tables: sessions, usage_ledger, parts ${REF}`);
  assert.equal(namesHint('near "SELEC": syntax error', NAMES), null);
});

test('hermetic query says them from the dataset\'s own tables', async (t) => {
  const { home, cleanup } = oneMessageDataset('hermetic-query-names-');
  t.after(cleanup);
  await assert.rejects(queryCommand(['--home', home, 'SELECT cost_usd FROM sessions']), (e: unknown) => {
    assert.ok(e instanceof HermeticError && e.code === 'HERMETIC_QUERY_INVALID');
    assert.match(e.message, /^SQLite cannot run this query: no such column: cost_usd; did you mean actual_cost_usd \(sessions, .*estimated_cost_usd \(sessions, .*cost_usd \(usage_ledger.*\)\? \(docs\/reference\/dataset\.md describes every table and column\)\.$/);
    return true;
  });
  await assert.rejects(queryCommand(['--home', home, 'SELECT * FROM sesions']), /no such table: sesions; did you mean sessions\?/);
});
