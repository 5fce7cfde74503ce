// SessionDB scrubs lone UTF-16 surrogates before a row is bound (hermes_state_messages.py `_encode_content`,
// `_message_row_params`: content, tool_name, reasoning, reasoning_content, api_content, display_kind go through
// agent/message_sanitization.py `_sanitize_surrogates`, each lone surrogate → U+FFFD); tool_calls are json.dumps'd
// with ensure_ascii, so a surrogate there stays a `\udXXX` escape. Python's sqlite3 cannot bind one raw. Decision 0079.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createStore, LATEST_LEVEL } from '../schema/index.js';
import { StateDbWriter } from './index.js';
import { createIdSource } from '../../shared/ids.js';
import { displayIdentity } from '../display-identity.js';

test('lone surrogates are stored as U+FFFD (valid UTF-8), tool_calls keep the ensure_ascii escape, and display_identity hashes the stored text', () => {
  const db = createStore({ path: ':memory:', level: LATEST_LEVEL });
  const w = new StateDbWriter(db, { now: () => 1784024103.25, ids: createIdSource('sur') });
  w.createSession({ id: 's', source: 'api_server' });
  w.appendMessages('s', [
    { role: 'user', content: 'a\ud800b \ud83d\ude00 c\udc00' },
    { role: 'assistant', content: null, reasoning: 'r\udbff', reasoning_content: '\udfffx', finish_reason: 'tool_calls',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'terminal', arguments: '{"q":"\ud800"}' } }] },
    { role: 'tool', content: 'out\ud800', tool_call_id: 'call_1', tool_name: 'term\udc00' },
  ]);
  const rows = db.prepare('SELECT role, hex(content) AS hex, content, reasoning, reasoning_content, tool_calls, tool_call_id, tool_name, timestamp, display_identity FROM messages ORDER BY id').all() as Array<Record<string, never>>;
  assert.equal(rows[0]!.hex, Buffer.from('a\ufffdb \ud83d\ude00 c\ufffd', 'utf8').toString('hex').toUpperCase());
  assert.equal(rows[1]!.reasoning, 'r\ufffd');
  assert.equal(rows[1]!.reasoning_content, '\ufffdx');
  assert.equal(rows[1]!.tool_calls, '[{"id": "call_1", "type": "function", "function": {"name": "terminal", "arguments": "{\\"q\\":\\"\\ud800\\"}"}}]');
  assert.equal(rows[2]!.content, 'out\ufffd');
  assert.equal(rows[2]!.tool_name, 'term\ufffd');
  const bytes = db.prepare("SELECT count(*) FROM messages WHERE CAST(content AS BLOB) LIKE '%' || x'EDA0' || '%' OR CAST(tool_name AS BLOB) LIKE '%' || x'EDB0' || '%'").pluck().get();
  assert.equal(bytes, 0, 'no CESU-8 surrogate bytes reach the file');
  for (const r of rows) {
    const expected = displayIdentity({ role: r.role, content: r.content, timestamp: r.timestamp, tool_call_id: r.tool_call_id, tool_calls: r.tool_calls, tool_name: r.tool_name });
    assert.ok(expected.equals(r.display_identity), `display_identity of the ${r.role} row is the hash of what is stored`);
  }
});
