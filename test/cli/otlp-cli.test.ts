// An OTLP sink as a person gives it (decision 0035, 0039): `backfill --sink otlp+http://… --sink-header K=V` sends one
// trace per forwarded session to a real OTLP/HTTP receiver (decoded by an independent protobuf schema), with the
// header, without message text; a tick with nothing new sends nothing; --otlp-content sends the text.
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startReceiver, type Receiver } from '../../src/forwarder/sinks/otlp/testing/receiver.js';
import { copyFixture } from '../../src/state-db/testing/fixtures.js';
import { runMain } from '../support/process.js';

let dir: string;
let store: string;
let receiver: Receiver;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hermetic-otlp-cli-'));
  mkdirSync(join(dir, 'fx'));
  store = copyFixture('basic', join(dir, 'fx'));
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The attributes that carry what was said (decision 0039): only with --otlp-content. */
const TEXT = ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result', 'gen_ai.system_instructions', 'hermes.session.title'];
const hasText = (a: Record<string, unknown>) => TEXT.some((k) => k in a);

const fullSessions = (home: string) => {
  const db = new Database(join(home, 'hermetic.db'), { readonly: true });
  try {
    return db.prepare("SELECT session_id FROM sessions WHERE policy = 'full' ORDER BY session_id").pluck().all() as string[];
  } finally {
    db.close();
  }
};

test('backfill --sink otlp+http:// sends a trace per session with the header and no text; an unchanged tick sends nothing', async () => {
  const home = join(dir, 'h1');
  const r = await runMain(['backfill', '--state-db', store, '--home', home, '--sink', receiver.sinkUrl(), '--sink-header', 'x-team=ml']);
  assert.equal(r.status, 0, r.stderr);
  const roots = receiver.spans().filter((s) => s.parentSpanId === null);
  assert.deepEqual(roots.map((s) => s.attributes['gen_ai.conversation.id']).sort(), fullSessions(home));
  assert.equal(new Set(roots.map((s) => s.traceId)).size, roots.length, 'one trace per session');
  assert.ok(receiver.requests.length > 0 && receiver.requests.every((q) => q.headers['x-team'] === 'ml'), 'the header on every request');
  assert.ok(receiver.spans().every((s) => !hasText(s.attributes)), 'no message text by default');
  const before = receiver.requests.length;
  const once = await runMain(['forward', '--once', '--state-db', store, '--home', home, '--sink', receiver.sinkUrl()]);
  assert.equal(once.status, 0, once.stderr);
  assert.equal(receiver.requests.length, before, 'nothing new, nothing sent');
});

test('--otlp-content sends the text; JSON encoding too', async () => {
  receiver.clear();
  const home = join(dir, 'h2');
  const r = await runMain(['backfill', '--state-db', store, '--home', home, '--sink', receiver.sinkUrl('json'), '--otlp-content']);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(receiver.requests.length > 0 && receiver.requests.every((q) => q.encoding === 'json'));
  const withText = receiver.spans().filter((s) => hasText(s.attributes));
  assert.ok(withText.length > 0, 'message text is on the chat spans');
});
