// docs/reference/dataset.md is generated from the dataset's definition and must not drift from it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { datasetReference } from '../../src/forwarder/dataset/reference.js';

test('the dataset reference is the one generated from columns.ts (npm run docs:dataset)', () => {
  assert.equal(readFileSync('docs/reference/dataset.md', 'utf8'), datasetReference());
});
