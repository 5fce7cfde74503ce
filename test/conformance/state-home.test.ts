// Decision 0140: `stateHome` records into a Hermes home as Hermes keeps one — the default profile's runs and sessions
// in `<home>/state.db`, each /p/<name>/ profile's in `<home>/profiles/<name>/state.db` — so the forwarder, reading
// that home, tells the profiles apart as it does on a real machine.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import Database from 'better-sqlite3';
import { createEmulator } from '../../src/emulator/index.js';
import { createForwarder } from '../../src/forwarder/index.js';
import { isHermeticError } from '../../src/shared/errors.js';
import { describeTransports } from '../support/harness.js';
import { submit } from '../support/runs.js';

const WORK = { Authorization: 'Bearer work-key-0123456789abcdef' };

/** Every session row of a store: id, source, message count, title, the profile Hermes names. */
function sessionsIn(path: string): Array<{ id: string; source: string; message_count: number; title: string | null; profile_name: string | null }> {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare('SELECT id, source, message_count, title, profile_name FROM sessions ORDER BY id').all() as never;
  } finally {
    db.close();
  }
}

describeTransports('state home recording', (open) => {
  it('each profile\'s runs and API sessions go to its own state.db; the forwarder reads the home as profiles', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hermetic-state-home-'));
    const home = join(dir, 'hermes');
    mkdirSync(home);
    const h = await open({ stateHome: home, profiles: { work: { apiKey: WORK.Authorization.slice(7) } } });

    // The same session id in both profiles: two sessions, one in each store.
    const mine = await submit(h, '{"input":"hello","session_id":"shared"}');
    await h.admin.complete(mine, { output: 'hi', usage: { input_tokens: 10, output_tokens: 2 } });
    const theirs = await h.request('POST', '/p/work/v1/runs', { headers: WORK, body: '{"input":"plan the week","session_id":"shared"}' });
    assert.equal(theirs.status, 202, theirs.text);
    await h.admin.event(theirs.json().run_id, { event: 'tool.started', tool: 'todo', arguments: { items: 3 } });
    await h.admin.event(theirs.json().run_id, { event: 'tool.completed', tool: 'todo', result: 'ok' });
    await h.admin.complete(theirs.json().run_id, { output: 'Planned.', usage: { input_tokens: 40, output_tokens: 9 } });
    // Sessions made, renamed and deleted through /api/sessions land in the profile's own store.
    const made = await h.request('POST', '/p/work/api/sessions', { headers: WORK, body: '{"title":"Standup"}' });
    assert.equal(made.status, 201, made.text);
    const id = made.json().session.id as string;
    assert.equal((await h.request('PATCH', `/p/work/api/sessions/${id}`, { headers: WORK, body: '{"title":"Daily standup"}' })).status, 200);
    const gone = await h.request('POST', '/api/sessions', { body: '{"title":"Scratch"}' });
    assert.equal((await h.request('DELETE', `/api/sessions/${gone.json().session.id}`)).status, 200);
    await h.close();

    assert.deepEqual(sessionsIn(join(home, 'state.db')).map((s) => [s.id, s.source, s.message_count, s.profile_name]), [
      ['shared', 'api_server', 2, 'default'],
    ]);
    const work = join(home, 'profiles', 'work', 'state.db');
    assert.deepEqual(sessionsIn(work).map((s) => [s.id, s.source, s.message_count, s.title, s.profile_name]), [
      [id, 'api_server', 0, 'Daily standup', null],
      ['shared', 'api_server', 4, null, 'work'],
    ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))));
    for (const folder of [join(home, 'profiles'), join(home, 'profiles', 'work')]) assert.equal(statSync(folder).mode & 0o777, 0o700, folder);
    assert.equal(statSync(work).mode & 0o777, 0o600);

    // Backfilled from the home (as HERMES_HOME), each session is its profile's, and the same id is two sessions.
    const forwarder = createForwarder({ home: join(dir, 'hermetic'), userHome: dir, hermesHome: home });
    let rows: unknown[];
    try {
      assert.deepEqual(forwarder.backfill().map((r) => [r.profile, r.error]), [['default', null], ['work', null]]);
      const dataset = new Database(join(dir, 'hermetic', 'hermetic.db'), { readonly: true });
      try {
        rows = dataset.prepare('SELECT profile, session_id, input_tokens FROM sessions ORDER BY profile, session_id').raw().all();
      } finally {
        dataset.close();
      }
    } finally {
      forwarder.close();
    }
    assert.deepEqual(rows, [
      ['default', 'shared', 10],
      ...[[id, 0], ['shared', 40]].sort((a, b) => String(a[0]).localeCompare(String(b[0]))).map(([s, n]) => ['work', s, n]),
    ]);
  });

  it('a profile that never ran has no folder, and the default profile\'s store is made at the start', async () => {
    const home = mkdtempSync(join(tmpdir(), 'hermetic-state-home-'));
    const h = await open({ stateHome: home, profiles: { idle: { apiKey: 'idle-key-0123456789abcdef' } } });
    assert.ok(existsSync(join(home, 'state.db')), 'opened with the default namespace');
    await submit(h, '{"input":"hello"}');
    await h.close();
    assert.equal(existsSync(join(home, 'profiles')), false);
  });
});

it('stateHome refuses a second recording and profile names Hermes would not give a folder', () => {
  const refused = (options: Parameters<typeof createEmulator>[0], pattern: RegExp) => {
    assert.throws(() => createEmulator(options), (e: unknown) => isHermeticError(e) && e.code === 'HERMETIC_OPTIONS_INVALID' && pattern.test(e.message));
  };
  const home = mkdtempSync(join(tmpdir(), 'hermetic-state-home-'));
  refused({ stateHome: home, stateDb: join(home, 'x.db') }, /"stateDb" and "stateHome"/);
  for (const name of ['..', '.', 'Work', '_x', 'a.b', 'x'.repeat(65)]) refused({ stateHome: home, profiles: { [name]: { apiKey: 'k' } } }, /cannot have a folder/);
  assert.equal(existsSync(join(home, 'state.db')), false, 'nothing made by a refused emulator');
});
