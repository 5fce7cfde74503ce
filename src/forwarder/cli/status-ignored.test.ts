// Decision 0144: sessions forwarded before their folder became `ignore` stay in the dataset until `hermetic forget`
// (decision 0063); `status` says how many and why, in words and in its JSON, and says nothing when there are none.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { forwarderRig, hermesStore } from '../testing/index.js';
import { statusCommand } from './status.js';
import { statusReport } from './status-report.js';

/** What `hermetic status` prints, its lines. */
async function statusLines(home: string, stateDb: string): Promise<string[]> {
  const out: string[] = [];
  const log = console.log;
  console.log = (...a: unknown[]) => void out.push(a.join(' '));
  try {
    assert.equal(await statusCommand(['--home', home, '--state-db', stateDb]), 0);
  } finally {
    console.log = log;
  }
  return out.join('\n').split('\n');
}

test('status counts the sessions forwarded before their folder became ignore, and says forget removes them', async () => {
  const { dir, cleanup, path, db, w } = hermesStore('hermetic-status-ignored-', 'ignored');
  const telegram = [w.createSession({ source: 'telegram' }), w.createSession({ source: 'telegram' })];
  const cron = w.createSession({ source: 'cron' });
  for (const id of [...telegram, cron]) w.appendMessages(id, [{ role: 'user', content: 'hi' }]);
  db.close();
  const rig = forwarderRig([path], { dir });
  const channel = join(dir, 'hermes', 'channels', 'telegram');
  try {
    rig.forwarder.backfill();
    const before = await statusReport(rig.home, [path]);
    assert.deepEqual(before.report.stores.map((s) => s.ignored_in_dataset), [{ sessions: 0, why: null }]);
    assert.equal((await statusLines(rig.home, path)).filter((l) => l.includes('ignored now')).length, 0, 'nothing said when none');

    mkdirSync(channel, { recursive: true });
    writeFileSync(join(channel, '.hypignore'), 'ignore\n');
    const after = await statusReport(rig.home, [path]);
    const [kept] = after.report.stores.map((s) => s.ignored_in_dataset);
    assert.equal(kept!.sessions, 2);
    assert.match(kept!.why!, /\.hypignore/);
    const line = (await statusLines(rig.home, path)).find((l) => l.includes('ignored now'));
    assert.equal(line, `  ignored now: 2 sessions forwarded before the usage policy ignored their folder (${kept!.why}); they stay until hermetic forget --scope DIR removes them`);
    // Still in the dataset: status only says it.
    assert.equal(rig.query<{ n: number }>("SELECT COUNT(*) AS n FROM sessions")[0]!.n, 3);
  } finally {
    rig.cleanup();
    cleanup();
  }
});
