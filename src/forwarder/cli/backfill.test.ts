// `hermetic backfill`'s window, refused before anything is created: a --since or --until that names no real date or
// time (never rolled over into the next month or day), and a --since after --until (as report refuses it).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { copyFixture, tempDir } from '../../state-db/testing/fixtures.js';
import { backfillCommand } from './backfill.js';
import { printed } from '../../shared/testing/console.js';

let tmp: { dir: string; cleanup: () => void };
let store: string;

before(() => {
  tmp = tempDir('hermetic-backfill-window-');
  store = copyFixture('basic', tmp.dir);
});

after(() => tmp?.cleanup());

/** backfillCommand in this process, quiet; a refusal comes back as the error main() turns into its line. */
async function backfill(argv: string[]): Promise<number> {
  return (await printed(() => backfillCommand(argv))).value;
}

const refused = async (home: string, window: string[], message: string) => {
  await assert.rejects(backfill(['--state-db', store, '--home', home, ...window]), (e: { code: string; message: string }) => {
    assert.deepEqual([e.code, e.message], ['HERMETIC_CLI_USAGE', message]);
    return true;
  });
  assert.equal(existsSync(join(home, 'hermetic.db')), false, `${window.join(' ')} created the dataset`);
};

describe('backfill --since/--until', () => {
  it('refuses an impossible date or time with exit 2 and HERMETIC_CLI_USAGE, and creates no dataset', async () => {
    const home = join(tmp.dir, 'impossible');
    await refused(home, ['--since', '2026-02-30'], '--since "2026-02-30" is not a real date: days of February 2026 run from 01 to 28.');
    await refused(home, ['--since', '2026-04-31'], '--since "2026-04-31" is not a real date: days of April 2026 run from 01 to 30.');
    await refused(home, ['--since', '2026-02-29'], '--since "2026-02-29" is not a real date: days of February 2026 run from 01 to 28.');
    await refused(home, ['--since', '2026-02-30T25:00'], '--since "2026-02-30T25:00" is not a real date: days of February 2026 run from 01 to 28.');
    await refused(home, ['--until', '2026-03-01T24:00'], '--until "2026-03-01T24:00" is not a real time: hours run from 00 to 23 (the end of a day is the next day\'s 00:00).');
    await refused(home, ['--until', '2026-03-01T23:60'], '--until "2026-03-01T23:60" is not a real time: minutes run from 00 to 59.');
  });

  it('refuses --since after --until (swap them), or after now, before the dataset is created', async () => {
    await refused(join(tmp.dir, 'swapped'), ['--since', '2026-12-01', '--until', '2026-11-01'], '--since 2026-12-01 starts after --until 2026-11-01 ends; swap them.');
    await refused(join(tmp.dir, 'future'), ['--since', '2099-01-01'], '--since 2099-01-01 is after now: nothing can have been recorded yet.');
  });

  it('reads a date as report does: --until DAY includes that whole day, in the ledger\'s zone (HERMETIC_TZ)', async () => {
    // The basic fixture's sessions are all active on 2026-05-28 between 20:36 and 23:59 UTC.
    const count = (home: string) => {
      const db = new Database(join(home, 'hermetic.db'), { readonly: true });
      try {
        return (db.prepare('SELECT COUNT(*) AS n FROM sessions').get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    const hermes = new Database(store, { readonly: true });
    const all = (hermes.prepare('SELECT COUNT(*) AS n FROM sessions').get() as { n: number }).n;
    hermes.close();
    const zone = process.env.HERMETIC_TZ;
    try {
      process.env.HERMETIC_TZ = 'UTC';
      const day = join(tmp.dir, 'day-utc');
      assert.equal(await backfill(['--state-db', store, '--home', day, '--since', '2026-05-28', '--until', '2026-05-28']), 0);
      assert.equal(count(day), all, 'the whole of 2026-05-28 in UTC');
      // In Tokyo (UTC+9) that activity is on 2026-05-29, and the 28th holds none of it.
      process.env.HERMETIC_TZ = 'Asia/Tokyo';
      const before = join(tmp.dir, 'day-tokyo');
      assert.equal(await backfill(['--state-db', store, '--home', before, '--since', '2026-05-29', '--until', '2026-05-29']), 0);
      assert.equal(count(before), all, 'the whole of 2026-05-29 in Tokyo');
      const none = join(tmp.dir, 'day-tokyo-28');
      assert.equal(await backfill(['--state-db', store, '--home', none, '--since', '2026-05-28', '--until', '2026-05-28']), 0);
      assert.equal(existsSync(join(none, 'hermetic.db')) ? count(none) : 0, 0, 'no session on 2026-05-28 in Tokyo');
    } finally {
      if (zone === undefined) delete process.env.HERMETIC_TZ;
      else process.env.HERMETIC_TZ = zone;
    }
  });

  it('says how many sessions the window left unread, and what reads them', async () => {
    // The basic fixture's sessions are all active on 2026-05-28: a window from the 29th leaves every one of them.
    const { value, out: lines } = await printed(() => backfillCommand(['--state-db', store, '--home', join(tmp.dir, 'left'), '--since', '2026-05-29T12:00:00Z', '--until', '2026-05-30']));
    assert.equal(value, 0);
    const hermes = new Database(store, { readonly: true });
    const all = (hermes.prepare('SELECT COUNT(*) AS n FROM sessions').get() as { n: number }).n;
    hermes.close();
    assert.ok(lines.includes(`backfill: ${all} sessions outside the window were not read (hermetic status counts them as pending, and a report over their days says they are missing; a backfill without --since, or hermetic forward, reads them).`), lines.join('\n'));
  });

  it('takes a leap day (2024-02-29) as the day it is', async () => {
    const home = join(tmp.dir, 'leap');
    assert.equal(await backfill(['--state-db', store, '--home', home, '--since', '2024-02-29', '--until', '2024-02-29T23:59:59Z']), 0);
    assert.equal(existsSync(join(home, 'hermetic.db')), true);
  });
});
