// The fleet store's read (read.ts): a read that makes its own temporary tables (`scratch`, decision 0159) ends without
// waiting on a synchronous standby, as a read-only one does; a connection lost while it makes them fails the read with
// the server's own cause, and the pool's next read is served. A cluster of its own: it replicates synchronously.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startPostgres, type PgCluster } from '../../../shared/testing/postgres.js';
import { openFleet } from './read.js';

let cluster: PgCluster;
let url: string;

before(async () => {
  // WAL a standby could read, and no wal_senders refused: a synchronous standby can be named.
  cluster = await startPostgres(['wal_level=replica', 'max_wal_senders=2']);
  url = cluster.createDatabase();
  cluster.psql('CREATE SCHEMA hermetic; CREATE TABLE hermetic.usage_ledger (x int)', url.split('/').pop()!);
});
after(() => cluster?.destroy());

const TABLE = () => ['CREATE TEMPORARY TABLE t ON COMMIT DROP AS SELECT 1 AS x'];

/** `p`'s value, or 'waiting' when it has not settled within a while (a COMMIT held for a standby never does). */
const settled = <T>(p: Promise<T>): Promise<T | 'waiting'> =>
  Promise.race([p, new Promise<'waiting'>((r) => setTimeout(() => r('waiting'), 15_000).unref())]);

test('a read that made its own tables does not wait for a synchronous standby that does not answer', async () => {
  // Synchronous replication to a standby that never connects: every commit that wrote WAL waits for it.
  cluster.psql("ALTER SYSTEM SET synchronous_standby_names = 'nobody'");
  cluster.psql('SELECT pg_reload_conf()');
  const fleets = [openFleet(url), openFleet(url)];
  try {
    assert.deepEqual(await settled(fleets[0]!.read(async (c) => (await c.query('SELECT 1 AS one')).rows)), [{ one: 1 }], 'a read-only read');
    const made = fleets[1]!.read(async (c) => (await c.query(`SELECT count(*)::int AS n, current_setting('transaction_read_only') AS ro FROM pg_temp.t`)).rows, { scratch: TABLE });
    assert.deepEqual(await settled(made), [{ n: 1, ro: 'on' }], 'a read with its own table ends too');
    // And its table is gone after.
    assert.equal(await settled(fleets[1]!.read(async (c) => (await c.query(`SELECT to_regclass('pg_temp.t') AS t`)).rows[0].t)), null);
  } finally {
    cluster.psql('ALTER SYSTEM RESET synchronous_standby_names');
    cluster.psql('SELECT pg_reload_conf()');
    await Promise.all(fleets.map((f) => f.close()));
  }
});

test('a connection ended while the read makes its tables fails the read with the server\'s cause; the next read is served', async () => {
  const fleet = openFleet(url);
  try {
    await assert.rejects(fleet.read(async () => 1, { scratch: () => ['SELECT pg_terminate_backend(pg_backend_pid())'] }),
      (e: any) => e.code === 'HERMETIC_FLEET_UNAVAILABLE' && /terminating connection due to administrator command \[57P01\]/.test(e.message));
    // A refused statement is no failure: the read goes on, read-only, without the table.
    assert.deepEqual(await fleet.read(async (c) => (await c.query(`SELECT current_setting('transaction_read_only') AS ro, to_regclass('pg_temp.t') AS t`)).rows,
      { scratch: () => ['CREATE TEMPORARY TABLE t ON COMMIT DROP AS SELECT * FROM nowhere'] }), [{ ro: 'on', t: null }]);
  } finally {
    await fleet.close();
  }
});
