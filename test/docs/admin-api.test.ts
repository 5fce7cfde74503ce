// docs/reference/admin-api.md documents every control route: each row of the admin route table has its own row there.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ADMIN_PREFIX, ADMIN_ROUTES } from '../../src/emulator/admin/routes.js';

test('every control route of the table is documented in admin-api.md', () => {
  const doc = readFileSync('docs/reference/admin-api.md', 'utf8');
  // A parameter may be named differently in prose ({checkpoint_id} for {id}); the method and the path's shape may not.
  const shape = (s: string) => s.replace(/\{[^}]*\}/g, '{}');
  const rows = new Set([...doc.matchAll(/^\| `([A-Z]+ \/__admin(?:\/[^`]*)?)` \|/gm)].map((m) => shape(m[1]!)));
  const missing = ADMIN_ROUTES.map((r) => `${r.method} ${ADMIN_PREFIX}${r.path}`).filter((route) => !rows.has(shape(route)));
  assert.deepEqual(missing, [], `docs/reference/admin-api.md has no row for: ${missing.join(', ')}`);
});
