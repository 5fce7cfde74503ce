// One async_delegations row → its record: where the goal, summary and error come from in each shape Hermes writes
// (a single task, a batch, a recovered row with only an event), what attributes keep and leave out, and the issues.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { projectDelegation } from './delegation.js';

const row = (over: Record<string, unknown> = {}) => ({
  delegation_id: 'deleg_1', parent_session_id: 'p1', origin_ui_session_id: '', state: 'completed', delivery_state: 'pending',
  delivery_attempts: 0, dispatched_at: 1784000000.5, completed_at: 1784000042.25, updated_at: 1784000042.25, delivered_at: null,
  task_json: null, event_json: null, result_json: null, ...over,
});
const project = (over: Record<string, unknown> = {}, text = (t: string | null) => t) => projectDelegation({ store: '/s/state.db', row: row(over), text, origin: 'forward' });

test('a batch: its goals one per line, its children\'s summaries and errors a blank line apart, their numbers kept per child', () => {
  const children = [
    { task_index: 0, status: 'completed', summary: 'A done', error: null, api_calls: 2, duration_seconds: 1.5, exit_reason: 'completed', orphaned_processes: [{ command: 'curl -H "Authorization: x"' }] },
    { task_index: 1, status: 'error', summary: null, error: 'B failed', api_calls: 1, duration_seconds: 2, summary_truncated: true, diagnostic_path: '/home/u/.hermes/x' },
  ];
  const { record, issues } = project({
    task_json: JSON.stringify({ goal: '2 tasks', goals: ['A', 'B'], context: 'ctx', toolsets: ['web'], role: 'leaf', model: null, is_batch: true }),
    event_json: JSON.stringify({ type: 'async_delegation', session_key: 'agent:main:telegram:dm:42:42', user_id: '42', status: 'completed', is_batch: true, results: children }),
    result_json: JSON.stringify({ results: children, total_duration_seconds: 3.5 }),
  });
  assert.deepEqual([record.goal, record.summary, record.error, record.duration_seconds, record.origin_ui_session_id], ['A\nB', 'A done', 'B failed', 41.75, null]);
  assert.deepEqual(JSON.parse(record.attributes as string), {
    context: 'ctx', toolsets: ['web'], role: 'leaf', is_batch: true, total_duration_seconds: 3.5,
    results: [
      { task_index: 0, status: 'completed', exit_reason: 'completed', api_calls: 2, duration_seconds: 1.5 },
      { task_index: 1, status: 'error', api_calls: 1, duration_seconds: 2, summary_truncated: true },
    ],
  });
  assert.deepEqual(issues, []);
  // Who the chat and the user are, the processes' commands and local paths stay in the store.
  for (const gone of ['agent:main', 'user_id', 'Authorization', '.hermes']) assert.ok(!JSON.stringify(record).includes(gone), gone);
});

test('a recovered row has only an event: its goal and error come from it; a running row has no summary and no duration', () => {
  const recovered = project({ state: 'unknown', event_json: JSON.stringify({ goal: 'g', status: 'unknown', summary: null, error: 'owner exited' }) }).record;
  assert.deepEqual([recovered.goal, recovered.summary, recovered.error], ['g', null, 'owner exited']);
  const running = project({ state: 'running', completed_at: null, task_json: JSON.stringify({ goal: 'go', goals: ['go'] }) }).record;
  assert.deepEqual([running.goal, running.summary, running.duration_seconds, running.attributes], ['go', null, null, null]);
});

test('texts go through the dataset\'s redaction; JSON that is no object is said and left out; times out of order give no duration', () => {
  const { record, issues } = project({
    completed_at: 1784000000, task_json: JSON.stringify({ goal: 'secret goal', context: 'secret context' }), event_json: '[1, 2]',
    result_json: JSON.stringify({ summary: 'secret summary' }),
  }, (t) => (t === null ? null : t.replace('secret', '***')));
  assert.deepEqual([record.goal, record.summary, JSON.parse(record.attributes as string).context, record.duration_seconds], ['*** goal', '*** summary', '*** context', null]);
  assert.deepEqual(issues.map((i) => [i.session_id, i.message_id, i.field, i.problem]), [
    ['deleg_1', 0, 'async_delegations.completed_at', 'completed_at is 0.5 s before dispatched_at; duration_seconds is NULL'],
    ['deleg_1', 0, 'async_delegations.event_json', 'event_json is JSON but not an object; what it holds is left out'],
  ]);
});
