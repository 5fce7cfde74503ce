// docs/reference/errors.md lists exactly the codes of the catalogue, with the same status and summary.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ERROR_CODES } from '../../src/shared/errors.js';

test('the errors reference and the catalogue agree', () => {
  const doc = readFileSync('docs/reference/errors.md', 'utf8');
  const rows = [...doc.matchAll(/^\| `(HERMETIC_[A-Z_]+)` \| (\d+) \| (.+) \|$/gm)].map((m) => [m[1], Number(m[2]), m[3]]);
  const catalogue = Object.entries(ERROR_CODES).map(([code, { status, summary }]) => [code, status, summary]);
  assert.deepEqual(rows.sort(), catalogue.sort());
});
