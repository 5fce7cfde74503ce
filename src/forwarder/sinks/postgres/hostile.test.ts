// The PostgreSQL sink under hostile but ordinary conditions (decision 0082), against a real server: a connection the
// server ends in the middle of a batch, a role's lock_timeout, a server that takes no writes (a standby), and keys
// PostgreSQL cannot tell apart. Each is retried or lands; none stops the sink for good or leaves part of a batch.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { before, describe, it, test } from 'node:test';
import { sharedPostgres, type PgCluster } from '../../../shared/testing/postgres.js';
import { SinkError, type DeltaBatch, type Origin, type ShippedTable } from '../remote/contract.js';
import type { RecordOf } from '../../dataset/columns.js';
import { oneMessageDataset } from '../../testing/index.js';
import { openDataset } from '../sqlite/dataset.js';
import { Shipper } from '../remote/shipper.js';
import { sinkStatus } from '../remote/status.js';
import { toSinkError } from './errors.js';
import { createPool } from './pool.js';
import { SHIPPED } from './schema.js';
import { createPostgresSink, postgresTarget } from './index.js';

let pg: PgCluster;
before(async () => { pg = await sharedPostgres(); });
const A: Origin = { machineId: 'a'.repeat(32), hostname: 'laptop-a' };

/** A row of `table` with every column set (0 or 'z'), then `values`. */
function row(table: ShippedTable, values: RecordOf): RecordOf {
  const out: RecordOf = {};
  for (const c of SHIPPED.get(table)!.columns) out[c.name] = c.type === 'INTEGER' || c.type === 'REAL' ? 0 : 'z';
  return { ...out, ...values };
}

/** A log batch (from, to] of three sessions and their first messages. */
function batch(to: number, title = `t${to}`): DeltaBatch {
  const ids = ['s1', 's2', 's3'];
  return {
    origin: A, fromSeq: to - 1, toSeq: to, deletes: [],
    upserts: [
      { table: 'sessions', rows: ids.map((id) => row('sessions', { store: '/s', session_id: id, title })) },
      { table: 'messages', rows: ids.map((id) => row('messages', { store: '/s', session_id: id, seq: to, content: title })) },
    ],
  };
}

const dbOf = (url: string) => url.split('/').pop()!;
const count = (url: string, table: string) => Number(pg.psql(`SELECT count(*) FROM hermetic.${table}`, dbOf(url)).trim());

/**
 * Waits (the event loop free in between) until the sink's connection sits idle inside its batch's transaction, and
 * returns its pid; '' when the write ended first (a server timeout can end it while psql, slow on a loaded machine, runs).
 */
async function idleInBatch(url: string, settled: () => boolean): Promise<string> {
  for (const until = Date.now() + 60_000; Date.now() < until && !settled();) {
    // psql runs synchronously: while it does, this process reads no answer, so the batch stands between statements.
    const pid = pg.psql(`SELECT pid FROM pg_stat_activity WHERE datname = '${dbOf(url)}' AND application_name = 'hermetic' AND state = 'idle in transaction'`, dbOf(url)).trim();
    if (pid !== '') return pid;
    await sleep(1);
  }
  if (settled()) return '';
  throw new Error('the batch never stood idle in its transaction');
}

describe('a connection the server ends in the middle of a batch', () => {
  for (const [name, end] of [
    ['the backend terminated (a restart, a failover, pg_terminate_backend)', (_url: string, pid: string) => pg.psql(`SELECT pg_terminate_backend(${pid})`)],
    ['idle_in_transaction_session_timeout', () => pg.psql('SELECT pg_sleep(1.5)')],
  ] as const) {
    it(`${name}: retriable (HERMETIC_SINK_UNAVAILABLE), nothing of the batch applied, and it lands when sent again`, async () => {
      const url = pg.createDatabase();
      const first = createPostgresSink(url);
      await first.open();
      await first.write(batch(1));
      await first.close();
      if (name.startsWith('idle')) pg.psql(`ALTER DATABASE "${dbOf(url)}" SET idle_in_transaction_session_timeout = '1s'`);
      const sink = createPostgresSink(url);
      try {
        let settled = false;
        const outcome = sink.write(batch(2)).then(() => null, (e: unknown) => e).finally(() => { settled = true; });
        const pid = await idleInBatch(url, () => settled);
        if (pid !== '') end(url, pid);
        const e = await outcome;
        assert.ok(e instanceof SinkError, String(e));
        assert.equal(e.code, 'HERMETIC_SINK_UNAVAILABLE', e.message);
        assert.equal(e.retriable, true);
        assert.equal((await sink.applied(A))?.seq, 1, 'nothing of the cut batch was applied');
        assert.equal(pg.psql("SELECT count(*) FROM hermetic.sessions WHERE title = 't2'", dbOf(url)).trim(), '0');
        pg.psql(`ALTER DATABASE "${dbOf(url)}" RESET idle_in_transaction_session_timeout`);
        const again = createPostgresSink(url);
        await again.write(batch(2));
        await again.close();
        assert.equal(pg.psql("SELECT count(*) FROM hermetic.sessions WHERE title = 't2'", dbOf(url)).trim(), '3');
        assert.equal(count(url, 'messages'), 6);
      } finally {
        await sink.close();
      }
    });
  }
});

describe('waits PostgreSQL gives up', () => {
  it('a lock_timeout while another writer holds the machine\'s progress row: retriable (HERMETIC_SINK_CONFLICT), nothing applied', async () => {
    const url = pg.createDatabase();
    const sink = createPostgresSink(url);
    await sink.open();
    await sink.write(batch(1));
    await sink.close();
    pg.psql(`ALTER DATABASE "${dbOf(url)}" SET lock_timeout = '200ms'`);
    const holder = createPool(postgresTarget(url));
    const held = await holder.connect();
    const waiting = createPostgresSink(url);
    try {
      await held.query('BEGIN');
      await held.query('SELECT applied_seq FROM hermetic.progress WHERE machine_id = $1 FOR UPDATE', [A.machineId]);
      const e = await waiting.write(batch(2)).then(() => null, (x: unknown) => x);
      assert.ok(e instanceof SinkError, String(e));
      assert.equal(e.code, 'HERMETIC_SINK_CONFLICT', e.message);
      assert.equal(e.retriable, true);
      assert.match(e.message, /lock timeout/);
      await held.query('ROLLBACK');
      await waiting.write(batch(2));
      assert.equal((await waiting.applied(A))?.seq, 2);
    } finally {
      held.release();
      await holder.end();
      await waiting.close();
    }
  });

  it('a server that takes no writes (default_transaction_read_only, as on a standby): retriable, said so; the batch lands once it takes writes', async () => {
    const url = pg.createDatabase();
    const sink = createPostgresSink(url);
    await sink.open();
    await sink.close();
    pg.psql(`ALTER DATABASE "${dbOf(url)}" SET default_transaction_read_only = on`);
    const standby = createPostgresSink(url);
    try {
      const e = await standby.write(batch(1)).then(() => null, (x: unknown) => x);
      assert.ok(e instanceof SinkError, String(e));
      assert.equal(e.code, 'HERMETIC_SINK_UNAVAILABLE', e.message);
      assert.equal(e.retriable, true);
      assert.match(e.message, /takes no writes/);
      // A new schema on such a server: the same.
      const fresh = pg.createDatabase();
      pg.psql(`ALTER DATABASE "${dbOf(fresh)}" SET default_transaction_read_only = on`);
      const other = createPostgresSink(fresh);
      await assert.rejects(other.open(), (x: SinkError) => x.code === 'HERMETIC_SINK_UNAVAILABLE' && x.retriable && /takes no writes/.test(x.message));
      await other.close();
      pg.psql(`ALTER DATABASE "${dbOf(url)}" RESET default_transaction_read_only`);
      const promoted = createPostgresSink(url);
      await promoted.write(batch(1));
      await promoted.close();
      assert.equal(count(url, 'sessions'), 3);
    } finally {
      await standby.close();
    }
  });
});

describe('keys PostgreSQL holds alike', () => {
  // PostgreSQL text cannot hold U+0000: it is shipped as U+FFFD (decision 0036), so "a\0b" and "a\uFFFDb" are one key.
  for (const strategy of ['copy', 'unnest', 'values'] as const) {
    it(`${strategy}: two rows whose keys differ only by U+0000 against U+FFFD land as one row, the later winning, not a batch refused for good`, async () => {
      const url = pg.createDatabase();
      const sink = createPostgresSink(url, { strategy });
      await sink.open();
      try {
        const ids = ['x\u0000y', 'x\uFFFDy'];
        await sink.write({
          origin: A, fromSeq: 0, toSeq: 1, deletes: [],
          upserts: [
            { table: 'sessions', rows: ids.map((id, i) => row('sessions', { store: '/s', session_id: id, title: `t${i}` })) },
            { table: 'messages', rows: ids.map((id, i) => row('messages', { store: '/s', session_id: id, seq: 1, content: `c${i}` })) },
          ],
        });
        assert.equal(pg.psql('SELECT session_id, title FROM hermetic.sessions', dbOf(url)).trim(), 'x\uFFFDy|t1');
        assert.equal(pg.psql('SELECT session_id, content FROM hermetic.messages', dbOf(url)).trim(), 'x\uFFFDy|c1');
        assert.equal((await sink.applied(A))?.seq, 1);
      } finally {
        await sink.close();
      }
    });
  }
});

describe('what was acknowledged is durable', () => {
  it('a database whose synchronous_commit is off: a batch the sink acknowledged is still there after the server crashes', async () => {
    const url = pg.createDatabase();
    const first = createPostgresSink(url);
    await first.open();
    await first.close();
    pg.psql(`ALTER DATABASE "${dbOf(url)}" SET synchronous_commit = off`);
    // The WAL writer then flushes an asynchronous commit within wal_writer_delay: long here, so the crash comes first.
    pg.psql("ALTER SYSTEM SET wal_writer_delay = '10s'");
    pg.psql('SELECT pg_reload_conf()');
    // unnest: a small batch, whose WAL fills no page (COPY's staging table writes more, which the WAL writer may flush).
    const sink = createPostgresSink(url, { strategy: 'unnest' });
    let stopped = false;
    try {
      await sink.write({ ...batch(1), upserts: [batch(1).upserts[0]!] });
      await sink.close();
      pg.stop('immediate');
      stopped = true;
      pg.start();
      stopped = false;
      assert.equal(pg.psql('SELECT applied_seq FROM hermetic.progress', dbOf(url)).trim(), '1');
      assert.equal(count(url, 'sessions'), 3);
    } finally {
      await sink.close();
      if (stopped) pg.start();
      pg.psql('ALTER SYSTEM RESET wal_writer_delay');
      pg.psql('SELECT pg_reload_conf()');
    }
  });
});

describe('a database that cannot hold every text', () => {
  it('LATIN1: refused at open (HERMETIC_SINK_SCHEMA, naming the encoding), not at the first emoji, days of batches later', async () => {
    const name = `latin1_${process.pid}`;
    pg.psql(`CREATE DATABASE "${name}" ENCODING 'LATIN1' TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'`);
    const url = pg.url.replace(/\/postgres$/, `/${name}`);
    const sink = createPostgresSink(url);
    try {
      await assert.rejects(sink.open(), (e: SinkError) => e.code === 'HERMETIC_SINK_SCHEMA' && !e.retriable && /LATIN1/.test(e.message) && /UTF8/.test(e.message) && !e.message.includes(pg.password));
      assert.equal(pg.psql("SELECT count(*) FROM pg_namespace WHERE nspname = 'hermetic'", name).trim(), '0', 'nothing was made');
      // SQL_ASCII stores the bytes it is sent, as they are: UTF-8 text comes back whole.
      const raw = `sqlascii_${process.pid}`;
      pg.psql(`CREATE DATABASE "${raw}" ENCODING 'SQL_ASCII' TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'`);
      const ok = createPostgresSink(pg.url.replace(/\/postgres$/, `/${raw}`));
      await ok.open();
      await ok.write(batch(1, 'café 🎉 漢字'));
      await ok.close();
      assert.equal(pg.psql('SELECT DISTINCT title FROM hermetic.sessions', raw).trim(), 'café 🎉 漢字');
    } finally {
      await sink.close();
    }
  });
});

describe('a role that may write rows and nothing else', () => {
  it('no TEMPORARY right (a hardened database): every table ships, the rows already there updated, without a staging table', async () => {
    const url = pg.createDatabase();
    const owner = createPostgresSink(url);
    await owner.open();
    await owner.close();
    const role = `rows_${dbOf(url)}`;
    pg.psql(`CREATE ROLE ${role} LOGIN PASSWORD 'rows-pw'; REVOKE TEMPORARY ON DATABASE "${dbOf(url)}" FROM PUBLIC;
      GRANT USAGE ON SCHEMA hermetic TO ${role}; GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA hermetic TO ${role}`, dbOf(url));
    const sink = createPostgresSink(url.replace(`${pg.user}:${pg.password}`, `${role}:rows-pw`));
    try {
      await sink.open();
      await sink.write(batch(1));
      // The same keys again, changed: sessions are upserted, messages fall back from COPY to the upsert.
      await sink.write({ ...batch(2, 'again'), upserts: batch(2, 'again').upserts.map((u) => ({ ...u, rows: u.rows.map((r) => ({ ...r, seq: 1 })) })) });
      assert.equal(pg.psql('SELECT DISTINCT title FROM hermetic.sessions', dbOf(url)).trim(), 'again');
      assert.equal(pg.psql('SELECT count(*), min(content), max(content) FROM hermetic.messages', dbOf(url)).trim(), '3|again|again');
      assert.equal((await sink.applied(A))?.seq, 2);
    } finally {
      await sink.close();
    }
  });
});

describe('large values', () => {
  it('COPY: 260 messages of 2.1 million characters each (546 M in all, past the longest string V8 makes, 2^29 − 24) are encoded in pieces, every row once', () => {
    // The stream the sink hands to COPY, read here: sending it to the server as well took 20 s of its time; what the
    // server does with the pieces is held by sink.test.ts's COPY tests.
    const sink = createPostgresSink('postgres://nobody@127.0.0.1:9/none');
    const big = 'tool output '.repeat(175_000);
    const rows = Array.from({ length: 260 }, (_, i) => row('messages', { store: '/s', session_id: 'big', seq: i, content: big }));
    const copy = sink.statements({ origin: A, fromSeq: 0, toSeq: 1, deletes: [], upserts: [{ table: 'messages', rows }] }).find((st) => st.copy)!;
    let lines = 0;
    let chars = 0;
    for (const piece of copy.copy!()) {
      assert.ok(piece.length < 2 ** 24, `a piece of ${piece.length} characters`);
      for (let at = piece.indexOf('\n'); at >= 0; at = piece.indexOf('\n', at + 1)) lines++;
      chars += piece.length;
    }
    assert.equal(lines, 260);
    assert.ok(chars > 2 ** 29, 'more than one string could hold');
  });
});

// Concurrently: each test has a database of its own, and one waits out PostgreSQL's own 3 s timeout twice.
describe('a statement_timeout shorter than a batch takes (decision 0086)', { concurrency: true }, () => {
  /** A new database with the fleet schema made (a sink opened and closed): the triggers below need its tables. */
  async function migratedDatabase(): Promise<string> {
    const url = pg.createDatabase();
    const setup = createPostgresSink(url);
    await setup.open();
    await setup.close();
    return url;
  }

  /**
   * Makes the fleet's messages table (or `table`) too slow for a statement of more than `over` rows; statements of
   * `over` rows or fewer, and every other statement, are not slowed at all. Two ways, neither depending on how loaded
   * the machine is for the statements that must pass:
   * - `cancel` (the default): the statement-level trigger fails the statement with exactly what PostgreSQL sends when
   *   statement_timeout cancels one (57014, "canceling statement due to statement timeout"), at once; the database's
   *   statement_timeout is a minute, so no statement is ever cancelled by the clock (a loaded machine once made a
   *   one-row COPY outlast a 1 s timeout here). For the tests of how the sink cuts and resumes its pieces.
   * - `sleep`: the trigger sleeps 60 s and PostgreSQL's own statement_timeout (3 s) cancels it: the real cancel, for
   *   one test. Its other statements are one-row and trivial: 3 s is far past what they take on a starved machine.
   */
  function slowMessages(url: string, over: number, table = 'messages', how: 'cancel' | 'sleep' = 'cancel'): void {
    const slow = how === 'sleep' ? 'PERFORM pg_sleep(60)' : "RAISE EXCEPTION 'canceling statement due to statement timeout' USING ERRCODE = 'query_canceled'";
    pg.psql(`CREATE FUNCTION hermetic.slow() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF (SELECT count(*) FROM moved) > ${over} THEN ${slow}; END IF; RETURN NULL; END $$;
      CREATE TRIGGER slow AFTER INSERT ON hermetic.${table} REFERENCING NEW TABLE AS moved FOR EACH STATEMENT EXECUTE FUNCTION hermetic.slow();
      ALTER DATABASE "${dbOf(url)}" SET statement_timeout = '${how === 'sleep' ? '3s' : '1min'}';`, dbOf(url));
  }

  /** A log batch (to - 1, to] of one session and `n` of its messages. */
  function messages(to: number, n: number): DeltaBatch {
    return {
      origin: A, fromSeq: to - 1, toSeq: to, deletes: [],
      upserts: [
        { table: 'sessions', rows: [row('sessions', { store: '/s', session_id: 's1', title: `t${to}` })] },
        { table: 'messages', rows: Array.from({ length: n }, (_, i) => row('messages', { store: '/s', session_id: 's1', seq: to * 100 + i, content: `m${i}` })) },
      ],
    };
  }

  it('a batch whose statement is cancelled lands in smaller pieces, in one transaction, and the size that fits is kept', async () => {
    const url = await migratedDatabase();
    slowMessages(url, 2);
    const sink = createPostgresSink(url);
    try {
      await sink.write(messages(1, 8));
      assert.equal(count(url, 'messages'), 8);
      assert.equal((await sink.applied(A))?.seq, 1);
      // The next batch starts at the size that fitted: its messages go two by two, no statement cancelled first.
      const copies = sink.statements(messages(2, 8)).filter((s) => s.copy !== undefined && s.text.includes('"messages"'));
      assert.equal(copies.length, 4, copies.map((s) => s.text).join('\n'));
      await sink.write(messages(2, 8));
      assert.equal(count(url, 'messages'), 16);
      assert.equal((await sink.applied(A))?.seq, 2);
    } finally {
      await sink.close();
    }
  });

  it('rows that go through the staging table (sessions): each piece sends its own rows, none of an earlier piece again', async () => {
    const url = await migratedDatabase();
    slowMessages(url, 2, 'sessions');
    // New sessions only: a row of an earlier piece sent again would be an update, which this refuses.
    pg.psql(`CREATE FUNCTION hermetic.refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'sent twice: %', OLD.session_id; END $$;
      CREATE TRIGGER refuse BEFORE UPDATE ON hermetic.sessions FOR EACH ROW EXECUTE FUNCTION hermetic.refuse();`, dbOf(url));
    const sink = createPostgresSink(url);
    try {
      const sessions = (to: number): DeltaBatch => ({
        origin: A, fromSeq: to - 1, toSeq: to, deletes: [],
        upserts: [{ table: 'sessions', rows: Array.from({ length: 8 }, (_, i) => row('sessions', { store: '/s', session_id: `s${to}-${i}`, title: `t${to}` })) }],
      });
      await sink.write(sessions(1));
      await sink.write(sessions(2));
      assert.equal(count(url, 'sessions'), 16);
      assert.equal((await sink.applied(A))?.seq, 2);
    } finally {
      await sink.close();
    }
  });

  it('through the shipper: the sink backs off with the code and its sentence as its last error (hermetic sinks), and ships once the row is fast enough', async () => {
    const url = await migratedDatabase();
    slowMessages(url, 0);
    const { home, cleanup } = oneMessageDataset('hermetic-pgtimeout-');
    const db = openDataset(home);
    const lines: string[] = [];
    let now = 1_800_000_000_000;
    const shipper = new Shipper({ db, sinks: [createPostgresSink(url)], origin: A, now: () => now, random: () => 0, say: (l) => lines.push(l) });
    try {
      const [r] = await shipper.shipAll();
      assert.equal(r!.state, 'retrying', JSON.stringify(r));
      assert.equal(r!.error?.code, 'HERMETIC_SINK_STATEMENT_TIMEOUT');
      assert.ok(r!.retryAt !== null && r!.retryAt > now / 1000, 'backed off');
      const [status] = sinkStatus(db, now / 1000);
      assert.equal(status!.failures, 1);
      assert.match(status!.last_error ?? '', /statement_timeout .*ALTER ROLE .*\[HERMETIC_SINK_STATEMENT_TIMEOUT\]$/);
      assert.match(lines.join('\n'), /failed \(PostgreSQL cancelled the statement writing a single row of messages/);
      // The slow row made fast (the trigger gone): the same shipper, after its backoff, ships.
      pg.psql('DROP TRIGGER slow ON hermetic.messages', dbOf(url));
      now += 3_600_000;
      const [again] = await shipper.shipAll();
      assert.equal(again!.state, 'caught-up', JSON.stringify(again));
      assert.equal(count(url, 'messages'), 1);
    } finally {
      await shipper.close();
      db.close();
      cleanup();
    }
  });

  it('even one row\'s statement outlasts statement_timeout: HERMETIC_SINK_STATEMENT_TIMEOUT saying what to raise, retriable, nothing applied', async () => {
    const url = pg.createDatabase();
    const setup = createPostgresSink(url);
    await setup.open();
    await setup.write(messages(1, 1));
    await setup.close();
    // PostgreSQL's own timer here: the cancel the others stand in for.
    slowMessages(url, 0, 'messages', 'sleep');
    const sink = createPostgresSink(url);
    try {
      const e = await sink.write(messages(2, 2)).then(() => null, (x: unknown) => x);
      assert.ok(e instanceof SinkError, String(e));
      assert.equal(e.code, 'HERMETIC_SINK_STATEMENT_TIMEOUT', e.message);
      assert.equal(e.retriable, true);
      assert.match(e.message, /statement_timeout/);
      assert.match(e.message, /ALTER ROLE/);
      assert.match(e.message, /single row of messages at its statement_timeout \(3s for the role /);
      assert.equal((await sink.applied(A))?.seq, 1, 'nothing of the batch was applied');
      assert.equal(count(url, 'messages'), 1);
      assert.equal(pg.psql("SELECT count(*) FROM hermetic.sessions WHERE title = 't2'", dbOf(url)).trim(), '0');
      // Once the role's statement_timeout is raised, the same sink ships the batch.
      pg.psql(`ALTER DATABASE "${dbOf(url)}" SET statement_timeout = 0; DROP TRIGGER slow ON hermetic.messages;`, dbOf(url));
      await sink.close();
      await sink.write(messages(2, 2));
      assert.equal(count(url, 'messages'), 3);
    } finally {
      await sink.close();
    }
  });
});

test('a cancel PostgreSQL gives for statement_timeout is told from an administrator\'s (pg_cancel_backend), which stays an ordinary retry', () => {
  const timeout = toSinkError({ code: '57014', message: 'canceling statement due to statement timeout' }, 'db', []);
  assert.equal(timeout.code, 'HERMETIC_SINK_STATEMENT_TIMEOUT');
  assert.equal(timeout.retriable, true);
  assert.match(timeout.message, /ALTER ROLE name SET statement_timeout/);
  const admin = toSinkError({ code: '57014', message: 'canceling statement due to user request' }, 'db', []);
  assert.equal(admin.code, 'HERMETIC_SINK_UNAVAILABLE');
  assert.equal(admin.retriable, true);
});
