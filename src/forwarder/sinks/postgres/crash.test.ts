// kill -9 of a forwarder mid-flush, twenty times (each a process of its own, against a real PostgreSQL server): between
// kills Hermes writes more and the forwarder reads it, so each run ships log batches; each run is killed after its
// 1st, 2nd or 3rd acknowledged batch, wherever it then is (inside the next transaction, between the write and the
// local acknowledgement, …). A last run catches up; the database then equals the dataset row for row.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sharedPostgres, type PgCluster } from '../../../shared/testing/postgres.js';
import { createWorld, type World } from '../remote/testing/world.js';
import { assertFleetHolds, runChild, startChild } from '../../../../test/support/postgres-fleet.js';

const KILLS = 20;
let pg: PgCluster;
let world: World;

before(async () => {
  pg = await sharedPostgres();
  world = createWorld('hermetic-pgcrash-');
});
after(() => world.cleanup());

it(`kill -9 of a forwarder mid-flush ×${KILLS}: nothing lost, nothing duplicated`, async (t) => {
  const url = pg.createDatabase();
  const options = { home: world.home, dir: world.dir, stateDb: world.stateDb, url, rows: 4, backfill: false };
  let killed = 0;
  for (let i = 0; i < KILLS; i++) {
    // Hermes goes on: a new session each round and more turns in the main one.
    const s = world.w.createSession({ source: 'cli', model: 'gpt-5', started_at: 1784000000 + 100 * (i + 1) });
    world.w.appendMessages(s, [{ role: 'user', content: `round ${i}` }, { role: 'assistant', content: `answer ${i}`, finish_reason: 'stop' }]);
    world.w.appendMessages(world.sessions.main, [{ role: 'user', content: `more ${i}` }, { role: 'assistant', content: `reply ${i}`, finish_reason: 'stop' }]);
    world.tick();
    const child = startChild(options);
    try {
      await child.said('WROTE ', 1 + (i % 3));
      child.process.kill('SIGKILL');
      const how = await child.exited;
      if (how === 'SIGKILL') killed++;
    } finally {
      child.process.kill('SIGKILL');
    }
  }
  assert.ok(killed >= KILLS - 2, `${killed} of ${KILLS} runs were killed before they finished`);
  await runChild(options);
  const rows = await assertFleetHolds(url, world.home);
  assert.ok(rows > 80, `${rows} rows`);
  t.diagnostic(`${killed} of ${KILLS} runs killed after their 1st to 3rd acknowledged batch; after one more run the database holds ${rows} rows, the dataset's row for row`);
  const db = url.split('/').pop()!;
  assert.equal(pg.psql("SELECT COUNT(*) FROM hermetic.messages WHERE content LIKE 'round %'", db).trim(), String(KILLS));
});
