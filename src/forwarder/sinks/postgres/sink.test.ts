// The PostgreSQL sink against a real server (one throwaway cluster for the file, a database per test): datasets of
// Hermes's own fixture stores and a generated one land row for row; a replay changes nothing; deletes touch only
// their machine; four forwarders migrating at once agree; every failure is classified and never shows the password.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { copyFixture, FIXTURES, tempDir } from '../../../state-db/testing/fixtures.js';
import { generatedStore } from '../../../state-db/testing/generated.js';
import { sharedPostgres, withoutPgPassword, type PgCluster } from '../../../shared/testing/postgres.js';
import { forwarderRig } from '../../testing/index.js';
import { SinkError, type DeltaBatch, type Origin } from '../remote/contract.js';
import { createPool } from './pool.js';
import { MIGRATIONS, SHIPPED_TABLES } from './schema.js';
import { datasetBatch, datasetRows, fleetRows, toolCallsDrift, verdictDrift } from './testing/rows.js';
import { createPostgresSink, postgresTarget } from './index.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { createServer, type AddressInfo, type Socket } from 'node:net';

/** Every fleet schema version, as `schema_version` lists them once a sink has migrated the store. */
const ALL_VERSIONS = MIGRATIONS.map((m) => m.version).join(',');

/** The fleet's index of uncosted sessions as PostgreSQL writes it back (fleet schema versions 5 and 9). */
const TERMINAL_CELLS_INDEX = 'CREATE INDEX tool_usage_terminal ON hermetic.tool_usage USING btree (machine_id COLLATE "C", store COLLATE "C", session_id COLLATE "C", at) WHERE (tool_name = \'terminal\'::text)';
const UNCOSTED_INDEX = "CREATE INDEX sessions_uncosted ON hermetic.sessions USING btree (machine_id, store, session_id) WHERE (((estimated_cost_usd IS NULL) AND (actual_cost_usd IS NULL)) OR (cost_status = 'unknown'::text))";

/** A new database with the fleet schema made by a sink's first open: its URL, and its name for psql. */
async function migratedFleet(): Promise<{ url: string; db: string }> {
  const url = pg.createDatabase();
  const first = createPostgresSink(url);
  await first.open();
  await first.close();
  return { url, db: url.split('/').pop()! };
}

let pg: PgCluster;
let dir: string;
let cleanup: () => void;
/** Dataset paths by name: the three fixture stores and a generated one, each backfilled once. */
const datasets = new Map<string, string>();
const A: Origin = { machineId: 'a'.repeat(32), hostname: 'laptop-a' };
const B: Origin = { machineId: 'b'.repeat(32), hostname: 'laptop-b' };

before(async () => {
  pg = await sharedPostgres();
  ({ dir, cleanup } = tempDir('hermetic-pgsink-'));
  const stores: [string, string][] = FIXTURES.map((f) => [f, copyFixture(f, dir)]);
  stores.push(['generated', generatedStore({ out: join(dir, 'gen', 'state.db'), sessions: 40, messages: 1500, seed: 'pgsink' }).path]);
  for (const [name, path] of stores) {
    const rig = forwarderRig([path], { dir: join(dir, name), timeZone: 'Europe/Berlin' });
    rig.forwarder.backfill();
    rig.forwarder.close();
    datasets.set(name, join(rig.home, 'hermetic.db'));
  }
});
after(() => cleanup());

/** Asserts that PostgreSQL holds exactly the dataset's shipped rows for the machine. */
async function assertEqualsDataset(url: string, datasetPath: string, origin: Origin, schema = 'hermetic'): Promise<number> {
  const pool = createPool(postgresTarget(url));
  const db = new Database(datasetPath, { readonly: true });
  let rows = 0;
  try {
    for (const t of SHIPPED_TABLES) {
      const want = datasetRows(db, t);
      assert.deepEqual(await fleetRows(pool, schema, t, origin.machineId), want, `${t.name} row for row`);
      rows += want.length;
    }
    // The tool calls the fleet keeps from its parts are their grouping, whatever the batches did (decision 0099).
    assert.deepEqual(await toolCallsDrift(pool, schema), { extra: [], missing: [] }, 'tool_calls kept from parts');
    // And each terminal result's stored verdict is the rule's (decision 0167).
    assert.deepEqual(await verdictDrift(pool, schema), [], 'parts.failed kept by the rule');
  } finally {
    db.close();
    await pool.end();
  }
  return rows;
}

describe('the PostgreSQL sink on real datasets', () => {
  for (const name of [...FIXTURES, 'generated']) {
    it(`${name}: every shipped table equals the dataset row for row, with the machine on every row and its progress`, async () => {
      const url = pg.createDatabase();
      const sink = createPostgresSink(url);
      await sink.open();
      try {
        assert.equal((await sink.applied(A))?.seq ?? null, null);
        await sink.write(datasetBatch(datasets.get(name)!, A, 7));
        assert.equal((await sink.applied(A))?.seq ?? null, 7);
        const rows = await assertEqualsDataset(url, datasets.get(name)!, A);
        assert.ok(rows > 0);
        const db = url.split('/').pop()!;
        assert.equal(pg.psql(`SELECT COUNT(*) FROM hermetic.sessions WHERE hostname <> 'laptop-a'`, db).trim(), '0');
      } finally {
        await sink.close();
      }
    });
  }

  it('a replayed batch changes nothing, a later one with the same rows neither; the three strategies give the same rows', async () => {
    const url = pg.createDatabase();
    const sink = createPostgresSink(url);
    assert.ok(sink.statements(datasetBatch(datasets.get('basic')!, A)).some((s) => s.copy !== undefined), 'COPY is the default');
    const plain = createPostgresSink(url, { strategy: 'values' });
    const arrays = createPostgresSink(url, { strategy: 'unnest' });
    await sink.open();
    await plain.open();
    await arrays.open();
    try {
      const batch = datasetBatch(datasets.get('generated')!, A, 3);
      await sink.write(batch);
      await sink.write(batch);
      await assertEqualsDataset(url, datasets.get('generated')!, A);
      await arrays.write({ ...batch, fromSeq: 3, toSeq: 4 });
      await assertEqualsDataset(url, datasets.get('generated')!, A);
      // The same rows again as a later batch (a dataset re-read): upserted over themselves, no duplicate.
      await plain.write({ ...batch, fromSeq: 4, toSeq: 5 });
      assert.equal((await sink.applied(A))?.seq ?? null, 5);
      await assertEqualsDataset(url, datasets.get('generated')!, A);
      // 4,299 messages × 16 columns is past 65,535 parameters: the VALUES statements are cut to fit, and all land.
      const messages = batch.upserts.find((u) => u.table === 'messages')!.rows;
      const many = [0, 1, 2].flatMap((k) => messages.map((r) => ({ ...r, session_id: `${String(r.session_id)}-copy${k}` })));
      assert.ok(many.length * 16 > 65535, `${many.length} messages`);
      const big: DeltaBatch = { origin: B, fromSeq: 0, toSeq: 1, upserts: [{ table: 'messages', rows: many }], deletes: [] };
      assert.ok(plain.statements(big).length >= 2);
      await plain.write(big);
      assert.equal(pg.psql(`SELECT COUNT(*) FROM hermetic.messages WHERE machine_id = '${B.machineId}'`, url.split('/').pop()!).trim(), String(many.length));
      // An old log batch sent again after a newer one (toSeq at or below what the database applied) is skipped: the
      // rows the newer batch deleted stay deleted.
      const gone = batch.upserts.find((u) => u.table === 'sessions')!.rows[0]!;
      await sink.write({ origin: A, fromSeq: 5, toSeq: 6, upserts: [], deletes: [{ table: 'sessions', keys: [{ store: gone.store, session_id: gone.session_id }] }] });
      await sink.write({ ...batch, fromSeq: 2, toSeq: 3 });
      assert.equal(pg.psql(`SELECT COUNT(*) FROM hermetic.sessions WHERE machine_id = '${A.machineId}' AND session_id = '${String(gone.session_id)}'`, url.split('/').pop()!).trim(), '0');
      assert.equal((await sink.applied(A))?.seq ?? null, 6);
    } finally {
      await sink.close();
      await plain.close();
      await arrays.close();
    }
  });

  it('deletes remove the keys of their machine only; two machines with the same store path and ids coexist', async () => {
    const url = pg.createDatabase();
    const sink = createPostgresSink(url, { schema: 'fleet' });
    await sink.open();
    try {
      const path = datasets.get('basic')!;
      await sink.write(datasetBatch(path, A, 1));
      await sink.write(datasetBatch(path, B, 1));
      const a = datasetBatch(path, A, 2, 1);
      const gone = a.upserts.find((u) => u.table === 'messages')!.rows.slice(0, 3);
      const session = a.upserts.find((u) => u.table === 'sessions')!.rows[0]!;
      await sink.write({ origin: A, fromSeq: 1, toSeq: 2, upserts: [], deletes: [
        { table: 'messages', keys: gone.map((r) => ({ store: r.store, session_id: r.session_id, seq: r.seq })) },
        { table: 'sessions', keys: [{ store: session.store, session_id: session.session_id }] },
      ] });
      const db = url.split('/').pop()!;
      const count = (sql: string) => Number(pg.psql(sql, db).trim());
      const total = a.upserts.find((u) => u.table === 'messages')!.rows.length;
      assert.equal(count(`SELECT COUNT(*) FROM fleet.messages WHERE machine_id = '${A.machineId}'`), total - 3);
      assert.equal(count(`SELECT COUNT(*) FROM fleet.messages WHERE machine_id = '${B.machineId}'`), total);
      assert.equal(count(`SELECT COUNT(*) FROM fleet.sessions WHERE machine_id = '${A.machineId}' AND session_id = '${String(session.session_id)}'`), 0);
      await assertEqualsDataset(url, path, B, 'fleet');
      assert.equal(pg.psql("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'hermetic'", db).trim(), '0', 'nothing in the default schema');
    } finally {
      await sink.close();
    }
  });

  it('text with U+0000 (PostgreSQL text cannot hold it) arrives with U+FFFD in its place; the rest of the value is kept', async () => {
    const url = pg.createDatabase();
    const sink = createPostgresSink(url);
    await sink.open();
    try {
      const batch = datasetBatch(datasets.get('basic')!, A, 1);
      const m = batch.upserts.find((u) => u.table === 'messages')!.rows[0]!;
      m.content = 'before\u0000after';
      await sink.write(batch);
      const r = pg.psql(`SELECT content FROM hermetic.messages WHERE session_id = '${String(m.session_id)}' AND seq = ${String(m.seq)}`, url.split('/').pop()!);
      assert.equal(r.trim(), 'before\uFFFDafter');
    } finally {
      await sink.close();
    }
  });
});

describe('COPY (the default strategy)', () => {
  /** A session row of the basic fixture, its text set to `title`, and the count of its messages. */
  const withTitle = (title: unknown, toSeq: number): DeltaBatch => {
    const batch = datasetBatch(datasets.get('basic')!, A, toSeq, toSeq - 1);
    const sessions = batch.upserts.find((u) => u.table === 'sessions')!;
    sessions.rows = sessions.rows.map((r, i) => (i === 0 ? { ...r, title } : r));
    return batch;
  };
  const titleOf = async (url: string, batch: DeltaBatch) => {
    const pool = createPool(postgresTarget(url));
    try {
      const first = batch.upserts.find((u) => u.table === 'sessions')!.rows[0]!;
      return (await pool.query('SELECT title FROM hermetic.sessions WHERE machine_id = $1 AND session_id = $2', [A.machineId, first.session_id])).rows[0]?.title as unknown;
    } finally {
      await pool.end();
    }
  };

  it('text COPY treats specially (tab, newline, return, backslash, a literal \\N, an empty string, NULL) arrives as it was', async () => {
    const url = pg.createDatabase();
    const sink = createPostgresSink(url);
    await sink.open();
    try {
      let seq = 0;
      for (const title of ['a\tb\nc\rd\\e', '\\N', '\\\\N\\t', '', null, 'ünïcödé ✓ 🎉', 'trailing\\']) {
        const batch = withTitle(title, ++seq);
        await sink.write(batch);
        assert.equal(await titleOf(url, batch), title, JSON.stringify(title));
      }
      // Every kind of value a dataset holds (integers, fractions, JSON text, long transcripts), as another machine.
      await sink.write(datasetBatch(datasets.get('generated')!, B, 1));
      await assertEqualsDataset(url, datasets.get('generated')!, B);
    } finally {
      await sink.close();
    }
  });

  it('a batch naming a table twice lands once per key, the later row winning, as two writes would', async () => {
    const url = pg.createDatabase();
    const sink = createPostgresSink(url);
    await sink.open();
    try {
      const batch = datasetBatch(datasets.get('basic')!, A, 1);
      const sessions = batch.upserts.find((u) => u.table === 'sessions')!;
      const changed = sessions.rows.map((r) => ({ ...r, title: `again ${String(r.session_id)}` }));
      await sink.write({ ...batch, upserts: [...batch.upserts, { table: 'sessions', rows: changed }] });
      const db = url.split('/').pop()!;
      assert.equal(pg.psql(`SELECT COUNT(*) FROM hermetic.sessions WHERE title LIKE 'again %'`, db).trim(), String(changed.length));
      assert.equal(pg.psql('SELECT COUNT(*) FROM hermetic.sessions', db).trim(), String(changed.length));
    } finally {
      await sink.close();
    }
  });

  it('rows some of whose keys are there already (changed since, or sent again) fall back to the upsert: every row lands once, the newer values win', async () => {
    const url = pg.createDatabase();
    const sink = createPostgresSink(url);
    await sink.open();
    try {
      const all = datasetBatch(datasets.get('generated')!, A, 1);
      const messages = all.upserts.find((u) => u.table === 'messages')!.rows;
      await sink.write({ origin: A, fromSeq: 0, toSeq: 1, upserts: [{ table: 'messages', rows: messages.filter((_, i) => i % 2 === 0) }], deletes: [] });
      const changed = messages.map((r, i) => (i % 4 === 0 ? { ...r, content: `edited ${i}` } : r));
      const statements = sink.statements({ origin: A, fromSeq: 1, toSeq: 2, upserts: [{ table: 'messages', rows: changed }], deletes: [] });
      assert.ok(statements.some((st) => st.onConflict?.some((f) => f.text.includes('ON CONFLICT'))), 'the COPY carries its fallback');
      await sink.write({ origin: A, fromSeq: 1, toSeq: 2, upserts: [{ table: 'messages', rows: changed }], deletes: [] });
      const db = url.split('/').pop()!;
      assert.equal(pg.psql('SELECT COUNT(*) FROM hermetic.messages', db).trim(), String(messages.length));
      assert.equal(pg.psql("SELECT COUNT(*) FROM hermetic.messages WHERE content LIKE 'edited %'", db).trim(), String(changed.filter((r) => String(r.content).startsWith('edited ')).length));
      assert.equal((await sink.applied(A))?.seq ?? null, 2);
    } finally {
      await sink.close();
    }
  });

  it('a row PostgreSQL refuses mid-COPY fails the batch whole (HERMETIC_SINK_REJECTED), leaves nothing staged or written, and the next batch on the same connections lands', async () => {
    const url = pg.createDatabase();
    const sink = createPostgresSink(url, { poolSize: 1 });
    await sink.open();
    try {
      const bad = datasetBatch(datasets.get('basic')!, A, 1);
      const messages = bad.upserts.find((u) => u.table === 'messages')!;
      messages.rows = messages.rows.map((r, i) => (i === messages.rows.length - 1 ? { ...r, seq: 'not a number' } : r));
      await assert.rejects(sink.write(bad), (e: SinkError) => e.code === 'HERMETIC_SINK_REJECTED' && !e.retriable && /bigint/.test(e.message));
      const db = url.split('/').pop()!;
      assert.equal(pg.psql('SELECT COUNT(*) FROM hermetic.sessions', db).trim(), '0', 'the sessions COPYed before the bad row were rolled back');
      assert.equal((await sink.applied(A))?.seq ?? null, null);
      const good = datasetBatch(datasets.get('basic')!, A, 1);
      await sink.write(good);
      await sink.write({ ...good, fromSeq: 1, toSeq: 2 });
      await assertEqualsDataset(url, datasets.get('basic')!, A);
    } finally {
      await sink.close();
    }
  });
});

describe('migrations', () => {
  it('four forwarders opening one new database at once: one migration, every sink ready, the tables as columns.ts says', async () => {
    const url = pg.createDatabase();
    const sinks = Array.from({ length: 4 }, () => createPostgresSink(url));
    try {
      await Promise.all(sinks.map((s) => s.open()));
      const db = url.split('/').pop()!;
      assert.equal(pg.psql("SELECT string_agg(version::text, ',' ORDER BY version) FROM hermetic.schema_version", db).trim(), MIGRATIONS.map((m) => m.version).join(','));
      // Every table's columns and primary key in two psql calls (each call is a process and a connection), by table.
      const names = SHIPPED_TABLES.map((t) => `'${t.name}'`).join(', ');
      const byTable = (out: string) => {
        const got = new Map<string, string[]>();
        for (const line of out.trim().split('\n')) {
          const [table, value] = line.split('|') as [string, string];
          got.set(table, [...(got.get(table) ?? []), value]);
        }
        return got;
      };
      const columns = byTable(pg.psql(`SELECT table_name, column_name || ' ' || data_type FROM information_schema.columns WHERE table_schema = 'hermetic' AND table_name IN (${names}) ORDER BY table_name, ordinal_position`, db));
      const keys = byTable(pg.psql(`SELECT c.relname, a.attname FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indrelid IN (${SHIPPED_TABLES.map((t) => `'hermetic.${t.name}'::regclass`).join(', ')}) AND i.indisprimary ORDER BY c.relname, array_position(i.indkey, a.attnum)`, db));
      for (const t of SHIPPED_TABLES) {
        const type = { INTEGER: 'bigint', REAL: 'double precision', TEXT: 'text', JSON: 'text' } as const;
        // Beside the dataset's, parts has the fleet's own stored verdict of a terminal result (decision 0167).
        const own = t.name === 'parts' ? ['failed boolean'] : [];
        assert.deepEqual(columns.get(t.name), ['machine_id text', 'hostname text', ...t.columns.map((c) => `${c.name} ${type[c.type]}`), ...own]);
        assert.deepEqual(keys.get(t.name), ['machine_id', ...t.primaryKey]);
      }
      // They all write at once too, each its own machine.
      await Promise.all(sinks.map((s, i) => s.write(datasetBatch(datasets.get('usage')!, { machineId: String(i).repeat(32), hostname: `h${i}` }, 1))));
      assert.equal(pg.psql('SELECT COUNT(DISTINCT machine_id) FROM hermetic.sessions', db).trim(), '4');
    } finally {
      await Promise.all(sinks.map((s) => s.close()));
    }
  });

  it('a fleet schema of version 1 gains the delegations table (version 2), the digest of what it applied (3), row_issues (4, decision 0092), the index of uncosted sessions (5, decision 0098), the kept tool calls (6, decision 0099), backfill_unread (7, decision 0102), the kept tool calls in byte order (8, decision 0130), the wider index of uncosted sessions (9, decision 0132), the programs of terminal calls (10, decision 0152), the stored verdicts of terminal results (12, decision 0167) and the rule read as SQLite reads it (13, decision 0170), and takes their rows', async () => {
    const { url, db } = await migratedFleet();
    // As version 1 left it: no delegations, row_issues, tool_calls or backfill_unread table.
    pg.psql(`DROP TABLE hermetic.delegations; DROP TABLE hermetic.row_issues; DROP TABLE hermetic.backfill_unread; DROP INDEX hermetic.sessions_uncosted; DROP TABLE hermetic.tool_calls;
      DROP FUNCTION hermetic.tool_calls_added, hermetic.tool_calls_removed, hermetic.tool_calls_changed, hermetic.tool_calls_emptied CASCADE;
      DROP INDEX hermetic.parts_terminal; DROP INDEX hermetic.tool_usage_terminal; ALTER TABLE hermetic.parts DROP COLUMN failed, DROP COLUMN program; ALTER TABLE hermetic.progress DROP COLUMN program_rules;
      DROP FUNCTION hermetic.hermetic_tool_error; DELETE FROM hermetic.schema_version WHERE version > 1`, db);
    const again = createPostgresSink(url);
    await again.open();
    try {
      assert.equal(pg.psql("SELECT string_agg(version::text, ',' ORDER BY version) FROM hermetic.schema_version", db).trim(), ALL_VERSIONS);
      // Version 5: the sessions with no cost recorded, keyed as the table is (what report/uncosted.ts starts from);
      // version 9: by the rule the count reads (dataset/uncosted.ts), unpriced usage too.
      assert.equal(pg.psql("SELECT pg_get_indexdef('hermetic.sessions_uncosted'::regclass)", db).trim(), UNCOSTED_INDEX);
      // Version 12: the terminal tool's cells by session and time, the text keys in byte order.
      assert.equal(pg.psql("SELECT pg_get_indexdef('hermetic.tool_usage_terminal'::regclass)", db).trim(), TERMINAL_CELLS_INDEX);
      await again.write(datasetBatch(datasets.get('generated')!, A, 1));
    } finally {
      await again.close();
    }
    assert.ok(await assertEqualsDataset(url, datasets.get('generated')!, A) > 0);
    assert.ok(Number(pg.psql('SELECT COUNT(*) FROM hermetic.delegations', db).trim()) > 0, 'the generated store\'s delegations');
    assert.ok(Number(pg.psql('SELECT COUNT(*) FROM hermetic.row_issues', db).trim()) > 0, 'the generated store\'s row issues');
    assert.equal(pg.psql('SELECT machine_id || \' \' || stores FROM hermetic.backfill_unread', db).trim(), `${A.machineId} []`, 'the machine\'s row: nothing left unread, known');
  });

  it('a fleet schema of version 8 has its index of uncosted sessions made again by the wider rule (version 9, decision 0132)', async () => {
    const { url, db } = await migratedFleet();
    // As version 8 left it: the index of sessions with neither cost.
    pg.psql(`DROP INDEX hermetic.sessions_uncosted; CREATE INDEX sessions_uncosted ON hermetic.sessions (machine_id, store, session_id)
      WHERE estimated_cost_usd IS NULL AND actual_cost_usd IS NULL; DELETE FROM hermetic.schema_version WHERE version > 8`, db);
    const again = createPostgresSink(url);
    await again.open();
    await again.close();
    assert.equal(pg.psql("SELECT string_agg(version::text, ',' ORDER BY version) FROM hermetic.schema_version", db).trim(), ALL_VERSIONS);
    assert.equal(pg.psql("SELECT pg_get_indexdef('hermetic.sessions_uncosted'::regclass)", db).trim(), UNCOSTED_INDEX);
  });

  it('a column columns.ts has and the table lacks is added; a schema from a newer Hermetic is refused, untouched', async () => {
    const { url, db } = await migratedFleet();
    pg.psql('ALTER TABLE hermetic.sessions DROP COLUMN title', db);
    const again = createPostgresSink(url);
    await again.open();
    await again.close();
    assert.equal(pg.psql("SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = 'hermetic' AND table_name = 'sessions' AND column_name = 'title'", db).trim(), '1');
    pg.psql("INSERT INTO hermetic.schema_version (version, doc) VALUES (99, 'future')", db);
    const old = createPostgresSink(url);
    await assert.rejects(old.open(), (e: SinkError) => e.code === 'HERMETIC_SINK_SCHEMA' && !e.retriable && /migrated to version 99 by a newer Hermetic/.test(e.message));
    await old.close();
  });

  it('a role with only the rights to write rows into a schema made by another ships: no DDL when nothing is to be migrated', async () => {
    const url = pg.createDatabase();
    const db = url.split('/').pop()!;
    const owner = createPostgresSink(url);
    await owner.open();
    await owner.close();
    const role = `writer_${db}`;
    pg.psql(`CREATE ROLE ${role} LOGIN PASSWORD 'writer-pw'; REVOKE CREATE ON SCHEMA public FROM PUBLIC;
      GRANT USAGE ON SCHEMA hermetic TO ${role}; GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA hermetic TO ${role}`, db);
    const generated = datasets.get('generated')!;
    const sink = createPostgresSink(url.replace(`${pg.user}:${pg.password}`, `${role}:writer-pw`));
    try {
      await sink.open();
      await sink.write({ ...datasetBatch(generated, A, 3, 3), first: true });
      await sink.write(datasetBatch(generated, A, 5, 3));
    } finally {
      await sink.close();
    }
    assert.ok(await assertEqualsDataset(url, generated, A) > 0);
  });

  it('tables dropped by hand: progress comes back empty; a log batch into a missing table is refused saying what to do; a fresh copy re-creates it', async () => {
    const url = pg.createDatabase();
    const db = url.split('/').pop()!;
    const generated = datasets.get('generated')!;
    const sink = createPostgresSink(url);
    await sink.open();
    await sink.write(datasetBatch(generated, A, 5, 0));
    await sink.close();
    pg.psql('DROP TABLE hermetic.parts; DROP TABLE hermetic.progress', db);
    const again = createPostgresSink(url);
    try {
      await again.open();
      assert.equal(await again.applied(A), null);
      await assert.rejects(again.write(datasetBatch(generated, A, 7, 6)), (e: SinkError) =>
        e.code === 'HERMETIC_SINK_SCHEMA' && !e.retriable && /relation "hermetic\.parts" does not exist/.test(e.message) && /hermetic sinks remove/.test(e.message));
      // `hermetic sinks remove`, then `--sink` again: the new copy's first batch.
      await again.write({ ...datasetBatch(generated, A, 8, 8), first: true });
    } finally {
      await again.close();
    }
    assert.ok(await assertEqualsDataset(url, generated, A) > 0);
  });
});

describe('failures are classified and never show the password', () => {
  const noPassword = (e: SinkError) => !e.message.includes(pg.password) && !String(e.stack).includes(pg.password);

  it('a wrong password: HERMETIC_SINK_AUTH, fatal', async () => {
    const sink = createPostgresSink(`postgres://${pg.user}:not-the-${pg.password}@127.0.0.1:${pg.port}/postgres`);
    await assert.rejects(sink.open(), (e: SinkError) => e.code === 'HERMETIC_SINK_AUTH' && !e.retriable && noPassword(e) && /password authentication failed/.test(e.message) && e.message.includes(':***@'));
    await sink.close();
  });

  it('no password in the URL, PGPASSWORD or ~/.pgpass for a server that asks one: HERMETIC_SINK_AUTH, fatal, saying where to give it', async () => {
    // The driver ends the server's SCRAM exchange with an error of its own, without a SQLSTATE: it was HERMETIC_SINK_FAILED.
    await withoutPgPassword(async () => {
      const sink = createPostgresSink(`postgres://${pg.user}@127.0.0.1:${pg.port}/postgres`);
      await assert.rejects(sink.open(), (e: SinkError) => e.code === 'HERMETIC_SINK_AUTH' && !e.retriable
        && e.message.startsWith(`PostgreSQL asks for a password and none was given (postgres://${pg.user}@127.0.0.1:${pg.port}/postgres): `)
        && e.message.endsWith('; give it in the URL (postgres://user:PASSWORD@host/db), or in PGPASSWORD or ~/.pgpass.'));
      await sink.close();
    });
  });

  it('a missing database: HERMETIC_SINK_NO_DATABASE, fatal', async () => {
    const sink = createPostgresSink(pg.url.replace(/\/postgres$/, '/nowhere'));
    await assert.rejects(sink.open(), (e: SinkError) => e.code === 'HERMETIC_SINK_NO_DATABASE' && !e.retriable && noPassword(e));
    await sink.close();
  });

  it('nobody listening: HERMETIC_SINK_UNAVAILABLE, retriable; the display and id never hold the password', async () => {
    const url = `postgresql://${pg.user}:${pg.password}@127.0.0.1:1/fleet?sslmode=disable&schema=team`;
    const sink = createPostgresSink(url);
    assert.equal(sink.display, `postgresql://${pg.user}:***@127.0.0.1:1/fleet?sslmode=disable&schema=team`);
    assert.equal(sink.id, 'postgres://127.0.0.1:1/fleet?schema=team');
    assert.equal(sink.schema, 'team');
    await assert.rejects(sink.open(), (e: SinkError) => e.code === 'HERMETIC_SINK_UNAVAILABLE' && e.retriable && noPassword(e) && e.message.includes('ECONNREFUSED'));
    await assert.rejects(sink.write({ origin: A, fromSeq: 0, toSeq: 1, upserts: [], deletes: [] }), (e: SinkError) => e.code === 'HERMETIC_SINK_UNAVAILABLE' && e.retriable);
    await sink.close();
  });

  it('URLs and schemas that cannot be used are refused before anything connects (HERMETIC_SINK_URL)', () => {
    assert.throws(() => createPostgresSink(`mysql://u:${pg.password}@h/db`), (e: SinkError) => e.code === 'HERMETIC_SINK_URL' && !e.message.includes(pg.password) && e.message.includes('postgres://'));
    assert.throws(() => createPostgresSink('postgres://h/db?schema=Bad-Name'), (e: SinkError) => e.code === 'HERMETIC_SINK_URL' && /plain PostgreSQL name/.test(e.message));
    assert.throws(() => createPostgresSink('postgres://h/db', { strategy: 'bulk' as never }), /Option "strategy" must be "copy", "unnest" or "values"; got "bulk"/);
    assert.throws(() => createPostgresSink('postgres://h/db', { poolSiz: 3 } as never), /Unknown PostgreSQL sink option "poolSiz". Did you mean "poolSize"\?/);
  });

  it('abort() cuts a write stuck on a lock: it rejects now, retriable, nothing of it applied; the sink writes again after', async () => {
    const url = pg.createDatabase();
    const sink = createPostgresSink(url);
    await sink.open();
    await sink.write(datasetBatch(datasets.get('basic')!, A, 1));
    // Another connection holds this machine's progress row: the next write waits on its FOR UPDATE.
    const holder = createPool(postgresTarget(url));
    const held = await holder.connect();
    try {
      await held.query('BEGIN');
      await held.query('SELECT applied_seq FROM hermetic.progress WHERE machine_id = $1 FOR UPDATE', [A.machineId]);
      const writing = sink.write(datasetBatch(datasets.get('basic')!, A, 2, 1));
      const outcome = writing.then(() => null, (e: unknown) => e);
      const db = url.split('/').pop()!;
      for (let tries = 0; pg.psql(`SELECT COUNT(*) FROM pg_stat_activity WHERE datname = '${db}' AND wait_event_type = 'Lock'`, db).trim() !== '1'; tries++) {
        assert.ok(tries < 6000, 'the write never waited on the lock');
        await sleep(10);
      }
      sink.abort!();
      const e = await outcome;
      assert.ok(e instanceof SinkError && e.retriable && noPassword(e), String(e));
      await held.query('ROLLBACK');
    } finally {
      held.release();
      await holder.end();
    }
    assert.equal((await sink.applied(A))?.seq, 1, 'the cut batch left nothing');
    await sink.write(datasetBatch(datasets.get('basic')!, A, 2, 1));
    assert.equal((await sink.applied(A))?.seq, 2);
    await sink.close();
  });

  it('abort() also cuts a write still connecting: a server that accepted the connection and never answers holds nothing', async () => {
    // A listener that takes the connection and says nothing (a hung server, a black-holing proxy).
    const sockets = new Set<Socket>();
    const silent = createServer((s) => { sockets.add(s); s.on('error', () => undefined); });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const sink = createPostgresSink(`postgres://${pg.user}:${pg.password}@127.0.0.1:${port}/fleet?sslmode=disable`, { connectTimeoutMs: 60_000 });
    try {
      const outcome = sink.write(datasetBatch(datasets.get('basic')!, A, 1)).then(() => null, (e: unknown) => e);
      for (let tries = 0; sockets.size === 0; tries++) {
        assert.ok(tries < 6000, 'the write never connected');
        await sleep(10);
      }
      sink.abort!();
      const e = await outcome;
      assert.ok(e instanceof SinkError && e.code === 'HERMETIC_SINK_UNAVAILABLE' && e.retriable && /cut short because the forwarder is stopping/.test(e.message) && noPassword(e), String(e));
    } finally {
      await sink.close();
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('a batch naming a table the sink does not hold is refused whole (HERMETIC_SINK_REJECTED)', async () => {
    const url = pg.createDatabase();
    const sink = createPostgresSink(url);
    await sink.open();
    const batch: DeltaBatch = { origin: A, fromSeq: 0, toSeq: 1, upserts: [{ table: 'stores' as never, rows: [{}] }], deletes: [] };
    await assert.rejects(sink.write(batch), (e: SinkError) => e.code === 'HERMETIC_SINK_REJECTED' && /"stores"/.test(e.message));
    assert.equal((await sink.applied(A))?.seq ?? null, null);
    await sink.close();
  });
});

describe('options', () => {
  it('takes what the sink registry passes (home, cwd, a config entry\'s settings), settings checked like options', () => {
    const sink = createPostgresSink('postgres://db.example/fleet', { home: '/tmp/h', cwd: '/tmp', settings: { schema: 'team', poolSize: 2 } });
    assert.equal(sink.schema, 'team');
    assert.throws(() => createPostgresSink('postgres://db.example/fleet', { home: '/tmp/h', settings: { schemaa: 'x' } }), /Unknown PostgreSQL sink option "schemaa". Did you mean "schema"\?/);
    assert.throws(() => createPostgresSink('postgres://db.example/fleet', { settings: { poolSize: 0 } }), /Option "poolSize" must be a whole number from 1 to 100; got 0/);
  });
});
