// A fleet against a real PostgreSQL server, each forwarder a process of its own (one cluster for the file): three
// forwarders on three stores shipping at once → the database equals the union of their datasets, row for row; the
// server crashed and started again in the middle of a run → the forwarder retries and catches up, nothing lost.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tempDir } from '../../../state-db/testing/fixtures.js';
import { generatedStore } from '../../../state-db/testing/generated.js';
import { sharedPostgres, type PgCluster } from '../../../shared/testing/postgres.js';
import { assertFleetHolds, runChild, startChild } from '../../../../test/support/postgres-fleet.js';
import { SHIPPED_TABLES } from './schema.js';

let pg: PgCluster;
let dir: string;
let cleanup: () => void;

before(async () => {
  pg = await sharedPostgres();
  ({ dir, cleanup } = tempDir('hermetic-fleet-'));
});
after(() => cleanup());

const store = (name: string, sessions: number, messages: number) =>
  generatedStore({ out: join(dir, name, 'hermes', 'state.db'), sessions, messages, seed: `fleet-${name}` }).path;

describe('a fleet of forwarders', () => {
  it('three forwarders on three stores writing at once: the database is the union of their datasets, row for row', async () => {
    const url = pg.createDatabase();
    const homes = ['one', 'two', 'three'].map((n) => ({ name: n, home: join(dir, n, 'home'), stateDb: store(n, 25, 500) }));
    const outputs = await Promise.all(homes.map((h) => runChild({ home: h.home, dir: join(dir, h.name), stateDb: h.stateDb, url, rows: 150, backfill: true })));
    for (const out of outputs) assert.ok((out.match(/^WROTE /gm) ?? []).length >= 3, 'several batches each');
    let rows = 0;
    for (const h of homes) rows += await assertFleetHolds(url, h.home);
    const db = url.split('/').pop()!;
    assert.equal(pg.psql('SELECT COUNT(DISTINCT machine_id) FROM hermetic.sessions', db).trim(), '3');
    assert.ok(Number(pg.psql('SELECT COUNT(*) FROM hermetic.delegations', db).trim()) > 0, 'the generated stores\' delegations are there');
    const total = SHIPPED_TABLES.map((t) => t.name)
      .map((t) => Number(pg.psql(`SELECT COUNT(*) FROM hermetic.${t}`, db).trim())).reduce((a, b) => a + b, 0);
    assert.equal(total, rows, 'nothing else in the database');
  });

  it('the server crashes mid-run and starts again: the forwarder retries, then catches up; nothing lost or doubled', async () => {
    const url = pg.createDatabase();
    const home = join(dir, 'restart', 'home');
    const child = startChild({ home, dir: join(dir, 'restart'), stateDb: store('restart', 30, 900), url, rows: 60, backfill: true });
    try {
      await child.said('WROTE ', 2);
      pg.stop('immediate');
      await child.said('RETRYING');
      pg.start();
      assert.equal(await child.exited, 0, child.output());
      assert.match(child.output(), /^DONE$/m);
      assert.match(child.output(), /HERMETIC_SINK_UNAVAILABLE/);
    } finally {
      child.process.kill('SIGKILL');
    }
    await assertFleetHolds(url, home);
  });
});
