// What backfill and forward say of the sessions the usage policy ignores: each by name when there are a few, else one
// stderr line with the count, the first ids, why, and where to look (a line per session buried the summary).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createIdSource } from '../../shared/ids.js';
import { createStore } from '../../state-db/schema/create.js';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { StateDbWriter } from '../../state-db/writer/index.js';
import type { PolicyDrop } from '../pipeline/step.js';
import { backfillCommand } from './backfill.js';
import { policyDropLines } from './common.js';
import { forwardCommand } from './forward.js';
import { runMain } from '../../../test/support/process.js';
import { printed } from '../../shared/testing/console.js';

const drop = (id: string, dir = '/home/u/secret'): PolicyDrop => ({ sessionId: id, scope: `${dir}/proj`, reason: `${dir}/.hypignore says ignore` });

describe('policyDropLines', () => {
  it('up to three sessions: one line each, with its reason', () => {
    assert.deepEqual(policyDropLines([]), []);
    assert.deepEqual(policyDropLines([drop('a'), drop('b', '/srv/x'), drop('c')]), [
      'hermetic: session a not recorded: /home/u/secret/.hypignore says ignore',
      'hermetic: session b not recorded: /srv/x/.hypignore says ignore',
      'hermetic: session c not recorded: /home/u/secret/.hypignore says ignore',
    ]);
  });

  it('an id or folder from the store with terminal escapes or a bidi override is shown harmless (decision 0075)', () => {
    const lines = [...policyDropLines([drop('\x1b[2Ja\u202e', '/w/\x9b31m')]), ...policyDropLines(Array.from({ length: 4 }, () => drop('\x1b]0;t\x07', '/w\u2066')))];
    assert.deepEqual(lines, [
      'hermetic: session ␛[2Ja\\u202e not recorded: /w/\\x9b31m/.hypignore says ignore',
      'hermetic: 4 sessions not recorded, ignored by the usage policy: ␛]0;t␇, ␛]0;t␇, ␛]0;t␇ and 1 more (all because /w\\u2066/.hypignore says ignore; "hermetic policy check DIR" explains a folder)',
    ]);
  });

  it('more: one line with the count, the first three ids, the one reason, and hermetic policy check', () => {
    const drops = Array.from({ length: 1204 }, (_, i) => drop(`s${i}`));
    assert.deepEqual(policyDropLines(drops), [
      'hermetic: 1,204 sessions not recorded, ignored by the usage policy: s0, s1, s2 and 1,201 more (all because /home/u/secret/.hypignore says ignore; "hermetic policy check DIR" explains a folder)',
    ]);
  });

  it('a session the dataset held: its rows removed are said, one by one and in the sum (decision 0143)', () => {
    assert.deepEqual(policyDropLines([{ ...drop('a'), removed: true }, drop('b')]), [
      'hermetic: session a not recorded, and its rows forwarded before removed from the dataset: /home/u/secret/.hypignore says ignore',
      'hermetic: session b not recorded: /home/u/secret/.hypignore says ignore',
    ]);
    const drops = [...Array.from({ length: 2 }, (_, i) => ({ ...drop(`r${i}`), removed: true as const })), drop('n0'), drop('n1')];
    assert.deepEqual(policyDropLines(drops), [
      'hermetic: 4 sessions not recorded (2 of them forwarded before: their rows removed from the dataset), ignored by the usage policy: r0, r1, n0 and 1 more (all because /home/u/secret/.hypignore says ignore; "hermetic policy check DIR" explains a folder)',
    ]);
  });

  it('several reasons: how many folders instead', () => {
    const drops = [drop('a'), drop('b', '/srv/x'), drop('c'), drop('d', '/srv/y')];
    assert.deepEqual(policyDropLines(drops), [
      'hermetic: 4 sessions not recorded, ignored by the usage policy: a, b, c and 1 more (under 3 folders; "hermetic policy check DIR" explains a folder)',
    ]);
  });
});

/** Runs a command in this process and returns its code and stderr lines. */
async function stderrOf(run: () => Promise<number>): Promise<{ code: number; err: string[] }> {
  const { value, err } = await printed(run);
  return { code: value, err };
}

/** A store with 12 sessions under a folder whose .hypignore says ignore, and one elsewhere; `dir` is removed by cleanup. */
function ignoredStore(prefix: string) {
  const { dir, cleanup } = tempDir(prefix);
  const secret = join(dir, 'secret');
  mkdirSync(secret);
  writeFileSync(join(secret, '.hypignore'), 'ignore\n');
  const path = join(dir, 'hermes', 'state.db');
  mkdirSync(join(dir, 'hermes'));
  const db = createStore({ path, level: 31, journal: 'wal', fts: false, generation: 'gen-a' });
  let t = 1784000000;
  const w = new StateDbWriter(db, { now: () => t, ids: createIdSource('policy-drops') });
  const hidden = Array.from({ length: 12 }, (_, i) => `hidden-${String(i).padStart(2, '0')}`);
  for (const id of [...hidden, 'open']) {
    w.createSession({ id, source: 'cli', cwd: id === 'open' ? dir : join(secret, id), started_at: t });
    w.appendMessages(id, [{ role: 'user', content: `in ${id}` }]);
    t += 60;
  }
  return { dir, cleanup, secret, path, db, w, hidden };
}

it('backfill and forward --once say 12 ignored sessions in one line, the other session written', async () => {
  const { dir, cleanup, secret, path, db, w, hidden } = ignoredStore('hermetic-policy-drops-');
  try {
    const home = join(dir, 'home');
    const ignored = (err: string[]) => {
      const lines = err.filter((l) => l.includes('not recorded'));
      assert.equal(lines.length, 1, err.join('\n'));
      assert.match(lines[0]!, new RegExp(`^hermetic: 12 sessions not recorded, ignored by the usage policy: hidden-\\d\\d, hidden-\\d\\d, hidden-\\d\\d and 9 more \\(all because ${join(secret, '.hypignore').replace(/[.]/g, '\\.')} says ignore; "hermetic policy check DIR" explains a folder\\)$`));
    };
    const backfill = await stderrOf(() => backfillCommand(['--state-db', path, '--home', home]));
    assert.equal(backfill.code, 0, backfill.err.join('\n'));
    ignored(backfill.err);
    // Changed sessions are judged again on the next pass, and said the same way.
    for (const id of hidden) w.appendMessages(id, [{ role: 'assistant', content: 'more' }]);
    db.close();
    const forward = await stderrOf(() => forwardCommand(['--once', '--state-db', path, '--home', home]));
    assert.equal(forward.code, 0, forward.err.join('\n'));
    ignored(forward.err);
  } finally {
    cleanup();
  }
});

it('--json: backfill counts the 12 ignored sessions as skipped; forward says each as plugin.hermes.usage_policy_drop (decision 0052)', async () => {
  const { dir, cleanup, secret, path, db, w, hidden } = ignoredStore('hermetic-policy-drops-json-');
  try {
    const home = join(dir, 'home');
    const backfill = await runMain(['backfill', '--json', '--state-db', path, '--home', home]);
    assert.equal(backfill.status, 0, backfill.stderr);
    const s = JSON.parse(backfill.stdout) as Record<string, unknown>;
    assert.deepEqual([s.event, s.sessions_seen, s.sessions_skipped_window, s.sessions_skipped, s.sessions_projected, s.messages_projected, (s.skipped as Record<string, number>).ignored_by_policy],
      ['hermes.backfill.scan_complete', 13, 0, 12, 1, 1, 12]);
    for (const id of hidden) w.appendMessages(id, [{ role: 'assistant', content: 'more' }]);
    db.close();
    const forward = await runMain(['forward', '--once', '--json', '--state-db', path, '--home', home]);
    assert.equal(forward.status, 0, forward.stderr);
    const lines = forward.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(lines.map((l) => l.event), ['hermes.poll_tick', ...hidden.map(() => 'plugin.hermes.usage_policy_drop')]);
    const reason = `${join(secret, '.hypignore')} says ignore`;
    assert.deepEqual(lines.slice(1).map((l): Record<string, unknown> => ({ ...l, at: null })).sort((a, b) => String(a.session_id).localeCompare(String(b.session_id))),
      hidden.map((id) => ({ event: 'plugin.hermes.usage_policy_drop', at: null, store: path, profile: 'default', session_id: id, scope: join(secret, id), reason, removed_from_dataset: false })));
  } finally {
    cleanup();
  }
});
