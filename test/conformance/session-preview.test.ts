// Decision 0134: a listed session's `preview` is what Hermes lists — the first user message read by
// _PREVIEW_RAW_SELECT (63 characters, or the 400/800-character window of an expanded /skill turn), then
// _shape_preview. Each vector's expected value came from Hermes's own Python. Over both transports.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { PREVIEW_VECTORS } from '../../src/emulator/sessions/testing/preview-vectors.js';
import { describeTransports } from '../support/harness.js';
import { submit } from '../support/runs.js';
import { createSession } from '../support/sessions.js';

describeTransports('session list: preview (decision 0134)', (open) => {
  it('each first user message lists the preview Hermes gives it', async () => {
    const h = await open();
    for (const [i, [, content]] of PREVIEW_VECTORS.entries()) {
      const run = await submit(h, JSON.stringify({ input: content, session_id: `p${i}` }));
      await h.admin.complete(run, { output: 'ok' });
    }
    const listed = (await h.request('GET', '/api/sessions?limit=200')).json().data as Array<{ id: string; preview: string }>;
    const previews = new Map(listed.map((s) => [s.id, s.preview]));
    for (const [i, [what, , preview]] of PREVIEW_VECTORS.entries()) assert.equal(previews.get(`p${i}`), preview, what);
  });

  it('the first user message counts, not a later one; a session without one previews ""', async () => {
    const h = await open();
    await createSession(h, '{"id": "empty"}');
    for (const input of ['first\x1esecond', '[IMPORTANT: The user has invoked the "work" skill, later']) {
      const run = await submit(h, JSON.stringify({ input, session_id: 'two' }));
      await h.admin.complete(run, { output: 'ok' });
    }
    const listed = (await h.request('GET', '/api/sessions')).json().data as Array<{ id: string; preview: string }>;
    assert.deepEqual(listed.map((s) => [s.id, s.preview]), [['two', 'first'], ['empty', '']]);
  });

  it('a pinned session back-filled past the page is shaped the same', async () => {
    const h = await open();
    const run = await submit(h, JSON.stringify({ input: 'old\x1ebody', session_id: 'pinned' }));
    await h.admin.complete(run, { output: 'ok' });
    await h.request('PATCH', '/api/sessions/pinned', { body: '{"pinned": true}' });
    await h.admin.clock({ advance: 10 });
    await createSession(h, '{"id": "newer"}');
    const listed = (await h.request('GET', '/api/sessions?limit=1')).json().data as Array<{ id: string; preview: string }>;
    assert.deepEqual(listed.map((s) => [s.id, s.preview]), [['newer', ''], ['pinned', 'old']]);
  });
});
