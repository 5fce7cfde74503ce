// A scrape stays small however many namespaces there are (decision 0028): the default namespace and the 20 most active
// have series of their own, the rest are summed under namespace="_other", and every total still adds up.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEmulator } from '../index.js';
import { OTHER_NAMESPACES, TOP_NAMESPACES } from './metrics.js';

test('the default and the 20 most active namespaces have series; the others are summed as _other', async () => {
  const hermes = createEmulator({ time: 1_800_000_000, frozen: true });
  try {
    // Namespace w<i> answers i + 1 requests: the most active are w39 … w20.
    let total = 0;
    for (let i = 0; i < 40; i++) {
      for (let n = 0; n <= i; n++) {
        const answer = await hermes.handle({ method: 'GET', path: `/ns/w${i}/v1/runs/run_x`, query: '', header: () => undefined, readBody: async () => new Uint8Array() });
        assert.equal(answer.status, 404);
        total++;
      }
    }
    const text = await hermes.admin.metrics();
    const requests = [...text.matchAll(/^hermetic_requests_total\{namespace="([^"]+)",operation="get",status="404"\} (\d+)$/gm)];
    const byNamespace = new Map(requests.map((m) => [m[1]!, Number(m[2])]));
    const top = Array.from({ length: TOP_NAMESPACES }, (_, k) => `w${39 - k}`);
    assert.deepEqual([...byNamespace.keys()].sort(), [...top, OTHER_NAMESPACES].sort());
    for (const name of top) assert.equal(byNamespace.get(name), Number(name.slice(1)) + 1);
    assert.equal(byNamespace.get(OTHER_NAMESPACES), (20 * 21) / 2, 'w0 … w19 summed');
    assert.equal([...byNamespace.values()].reduce((a, b) => a + b, 0), total);
    assert.match(text, /^hermetic_namespaces 41$/m);
    assert.match(text, /^hermetic_journal_entries\{namespace="_other"\} 210$/m);
    const labels = new Set([...text.matchAll(/namespace="([^"]+)"/g)].map((m) => m[1]));
    assert.ok(labels.size <= TOP_NAMESPACES + 2, `${labels.size} namespace labels`);
  } finally {
    await hermes.close();
  }
});
