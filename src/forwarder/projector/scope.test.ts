// Which directory's usage policy governs a session (spec forwarding §2.7, §4, §6.1 item 9; checklist §5.2 #22–24).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AUTOMATION, INTERACTIVE, ownScope, scopesOf } from './scope.js';

const HOME = '/home/dev/.hermes';
const s = (fields: Record<string, unknown>) => ({ id: 'x', source: 'cli', cwd: null, handoff_platform: null, model_config: null, ...fields });

test('interactive surfaces are scoped by their recorded cwd, or have no scope (§5.2 #24)', () => {
  assert.deepEqual([...INTERACTIVE], ['cli', 'oneshot', 'tui', 'desktop', 'acp']);
  for (const source of INTERACTIVE) {
    assert.equal(ownScope(s({ source, cwd: '/home/dev/proj' }), HOME), '/home/dev/proj');
    assert.equal(ownScope(s({ source, cwd: null }), HOME), null);
  }
  assert.deepEqual(scopesOf(s({ source: 'cli', cwd: null }), [], HOME), []);
});

test('every messaging source is scoped under <hermes home>/channels/<source>, its cwd notwithstanding (§5.2 #22)', () => {
  const messaging = ['telegram', 'discord', 'slack', 'whatsapp', 'whatsapp_cloud', 'signal', 'matrix', 'mattermost', 'email', 'sms',
    'dingtalk', 'feishu', 'wecom', 'wecom_callback', 'weixin', 'bluebubbles', 'qqbot', 'yuanbao', 'homeassistant', 'webhook',
    'msgraph_webhook', 'irc', 'line'];
  for (const source of messaging) {
    assert.equal(ownScope(s({ source, cwd: '/home/dev/proj' }), HOME), `${HOME}/channels/${source}`, source);
  }
});

test('automation sources (cron, kanban, batch, tool, api_server, relay, unknown) are scoped under <hermes home>/sources/', () => {
  assert.deepEqual([...AUTOMATION], ['cron', 'kanban', 'batch', 'tool', 'api_server', 'api-server', 'relay', 'unknown', '_health_probe']);
  for (const source of AUTOMATION) assert.equal(ownScope(s({ source }), HOME), `${HOME}/sources/${source}`, source);
  assert.equal(ownScope(s({ source: null }), HOME), `${HOME}/sources/unknown`);
});

test('a trailing slash on the Hermes home is not doubled', () => {
  assert.equal(ownScope(s({ source: 'matrix' }), `${HOME}/`), `${HOME}/channels/matrix`);
});

test('a delegate has no scope of its own and inherits every scope of its parent chain', () => {
  const parent = s({ id: 'p', source: 'cli', cwd: '/home/dev/secret' });
  const grand = s({ id: 'g', source: 'telegram', handoff_platform: null });
  assert.equal(ownScope(s({ source: 'subagent', cwd: '/tmp/work' }), HOME), null);
  assert.deepEqual(scopesOf(s({ source: 'subagent', parent_session_id: 'p' }), [parent, grand], HOME), ['/home/dev/secret', `${HOME}/channels/telegram`]);
  // A delegate by marker keeps its own scope first and still inherits.
  assert.deepEqual(scopesOf(s({ source: 'cli', cwd: '/home/dev/open', model_config: '{"_delegate_from": "p"}' }), [parent], HOME), ['/home/dev/open', '/home/dev/secret']);
});

test('a delegate whose parents have no scope falls back to <hermes home>/sources/subagent', () => {
  assert.deepEqual(scopesOf(s({ source: 'subagent' }), [s({ id: 'p', source: 'cli', cwd: null })], HOME), [`${HOME}/sources/subagent`]);
  assert.deepEqual(scopesOf(s({ source: 'subagent' }), [], HOME), [`${HOME}/sources/subagent`]);
});

test('a handed-off session is governed by its cwd and by the channel it was handed to', () => {
  assert.deepEqual(scopesOf(s({ source: 'cli', cwd: '/home/dev/proj', handoff_platform: 'telegram' }), [], HOME), ['/home/dev/proj', `${HOME}/channels/telegram`]);
  // A delegate of a handed-off parent inherits the handoff channel too.
  assert.deepEqual(scopesOf(s({ source: 'subagent' }), [s({ id: 'p', cwd: '/home/dev/proj', handoff_platform: 'discord' })], HOME), ['/home/dev/proj', `${HOME}/channels/discord`]);
});

test('a non-delegate child with no scope of its own inherits its parents; one with a scope does not', () => {
  const parent = s({ id: 'p', source: 'cli', cwd: '/home/dev/proj' });
  assert.deepEqual(scopesOf(s({ source: 'cli', cwd: null, parent_session_id: 'p' }), [parent], HOME), ['/home/dev/proj']);
  assert.deepEqual(scopesOf(s({ source: 'cli', cwd: '/home/dev/other', parent_session_id: 'p' }), [parent], HOME), ['/home/dev/other']);
});
