// How the PostgreSQL source reaches the server (decision 0038), against a real one: it only reads (a write in its
// transaction is refused; a role with SELECT alone and no TEMP right is enough), what a bad URL, an unreachable
// server, refused credentials or a missing schema give (a HERMETIC_READER_PG_* code and a sentence, in the pass and
// in status, the password never printed, the other stores still forwarded), and what of Hermes's DDL needs 16+.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import pg from 'pg';
import { HermeticError } from '../../../shared/errors.js';
import { freePort, sharedPostgres, withoutPgPassword } from '../../../shared/testing/postgres.js';
import { copyFixture, tempDir } from '../../../state-db/testing/fixtures.js';
import { statusCommand } from '../../cli/status.js';
import { forwarderRig } from '../../testing/index.js';
import { readOnly } from './connect.js';
import { HERMES_JSON_VALID, hermesPgSchema, loadStateDb } from './testing.js';
import { stopMirrorThread } from './thread.js';
import { printed } from '../../../shared/testing/console.js';

const cluster = await sharedPostgres();
const url = cluster.createDatabase();
const dbName = new URL(url).pathname.slice(1);
const SCHEMA = 'hermes_default_aaaaaaaaaaaa';
cluster.psql(hermesPgSchema(SCHEMA), dbName);
const fixtureDir = tempDir('hermetic-pgacc-');
await loadStateDb(url, SCHEMA, copyFixture('basic', fixtureDir.dir));
after(() => { stopMirrorThread(); fixtureDir.cleanup(); });

/** A Hermes home on the PostgreSQL backend: its config.yaml and .env. */
function pgHome(dir: string, name: string, databaseUrl: string, schema = SCHEMA): string {
  const home = join(dir, name);
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'config.yaml'), `database:\n  backend: postgres\n  schema: ${schema}\n`);
  writeFileSync(join(home, '.env'), `HERMES_DATABASE_URL='${databaseUrl}'\n`);
  return home;
}

/** What statusCommand printed (for people, then as JSON), the JSON parsed. */
async function status(args: string[]): Promise<{ text: string; human: string; json: { stores: Record<string, unknown>[] } }> {
  const run = async (extra: string[]) => {
    const { value, out } = await printed(() => statusCommand([...extra, ...args]));
    assert.equal(value, 0);
    return out.join('\n');
  };
  const human = await run([]);
  const text = await run(['--json']);
  return { text, human, json: JSON.parse(text) };
}

test('the source only reads: its transaction refuses a write, and a role with SELECT alone (no TEMP right) forwards everything', async () => {
  const target = { url, schema: SCHEMA, display: 'x' };
  await assert.rejects(readOnly(target, (c) => c.query(`INSERT INTO "${SCHEMA}".state_meta (key, value) VALUES ('k', 'v')`)), (e: unknown) => {
    assert.ok(e instanceof HermeticError);
    assert.equal(e.code, 'HERMETIC_READER_PG_SCHEMA');
    assert.match(e.message, /cannot execute INSERT in a read-only transaction \(SQLSTATE 25006\)/);
    return true;
  });
  cluster.psql([
    "CREATE ROLE hermes_reader LOGIN PASSWORD 'reader-pw-7'",
    `REVOKE TEMPORARY ON DATABASE "${dbName}" FROM PUBLIC`,
    `GRANT USAGE ON SCHEMA "${SCHEMA}" TO hermes_reader`,
    `GRANT SELECT ON ALL TABLES IN SCHEMA "${SCHEMA}" TO hermes_reader`,
  ].join(';\n'), dbName);
  const { dir, cleanup } = tempDir('hermetic-pgacc-');
  const home = pgHome(dir, 'reader', `postgres://hermes_reader:reader-pw-7@127.0.0.1:${cluster.port}/${dbName}`);
  const rig = forwarderRig([home], { dir });
  try {
    const [r] = await rig.forwarder.backfillAsync();
    assert.equal(r!.error, null);
    assert.equal(r!.store, `postgres://hermes_reader@127.0.0.1:${cluster.port}/${dbName}#${SCHEMA}`);
    assert.equal(r!.sessionsWritten, 3);
    assert.equal(rig.query<{ n: number }>('SELECT COUNT(*) AS n FROM messages')[0]!.n > 0, true);
  } finally {
    rig.cleanup();
    cleanup();
  }
});

test('a bad URL, an unreachable server, refused credentials and a missing schema: a code and a sentence each, in the pass and in status, no password, the other stores forwarded', async () => {
  const { dir, cleanup } = tempDir('hermetic-pgacc-');
  const port = await freePort();
  const homes = {
    badurl: pgHome(dir, 'badurl', 'mysql://root:hunter2-bad@db/hermes'),
    down: pgHome(dir, 'down', `postgresql://hermetic:hunter2-down@127.0.0.1:${port}/${dbName}?connect_timeout=5`),
    auth: pgHome(dir, 'auth', `postgres://${cluster.user}:hunter2-wrong@127.0.0.1:${cluster.port}/${dbName}`),
    noschema: pgHome(dir, 'noschema', url, 'nothing_here'),
  };
  const sqlite = copyFixture('usage', dir);
  const rig = forwarderRig([sqlite, ...Object.values(homes)], { dir });
  const secrets = ['hunter2-bad', 'hunter2-down', 'hunter2-wrong', cluster.password];
  try {
    for (const pass of ['async', 'sync'] as const) {
      const results = pass === 'async' ? await rig.forwarder.forwardOnceAsync() : rig.forwarder.forwardOnce();
      assert.deepEqual(results.map((r) => [r.profile, r.backend, r.error?.code ?? null]), [
        ['default', 'sqlite', null],
        ['default', 'postgres', 'HERMETIC_READER_PG_CONFIG'],
        ['default', 'postgres', 'HERMETIC_READER_PG_CONNECT'],
        ['default', 'postgres', 'HERMETIC_READER_PG_AUTH'],
        ['default', 'postgres', 'HERMETIC_READER_PG_SCHEMA'],
      ], pass);
      if (pass === 'async') assert.equal(results[0]!.sessionsWritten, 3);
      const [, bad, down, auth, none] = results;
      assert.equal(bad!.error!.message, `HERMES_DATABASE_URL from ${join(homes.badurl, '.env')} is not a postgres:// or postgresql:// URL (mysql://root:***@db/hermes).`);
      assert.match(down!.error!.message, new RegExp(`^Cannot reach PostgreSQL at postgresql://hermetic:\\*\\*\\*@127\\.0\\.0\\.1:${port}/${dbName}\\?connect_timeout=5 \\(schema ${SCHEMA}\\): .*ECONNREFUSED.*\\. Nothing was read this time; the next pass tries again\\.$`));
      assert.equal(auth!.error!.message, `PostgreSQL at postgres://${cluster.user}:***@127.0.0.1:${cluster.port}/${dbName} (schema ${SCHEMA}) refused the credentials of HERMES_DATABASE_URL: password authentication failed for user "${cluster.user}". Nothing was read.`);
      assert.equal(none!.error!.message, `PostgreSQL at ${url.replace(`:${cluster.password}@`, ':***@')} (schema nothing_here) holds no Hermes state this role can read: schema "nothing_here" holds no sessions table. Nothing was read.`);
      const said = JSON.stringify(results);
      for (const s of secrets) assert.ok(!said.includes(s), `${pass}: no password in the results`);
    }
    const { text, human, json } = await status(['--home', rig.home, ...[sqlite, ...Object.values(homes)].flatMap((p) => ['--state-db', p])]);
    for (const s of secrets) assert.ok(!text.includes(s) && !human.includes(s), 'no password in status');
    assert.match(human, /\n {2}cannot read: Cannot reach PostgreSQL at postgresql:\/\/hermetic:\*\*\*@/);
    const pgStores = json.stores.filter((s) => s.backend === 'postgres');
    assert.deepEqual(pgStores.map((s) => [s.connection, String(s.read_error).replace(/^.*\[(HERMETIC_[A-Z_]+)\]$/, '$1').slice(0, 60)]), [
      [null, 'HERMETIC_READER_PG_CONFIG'],
      [`postgresql://hermetic:***@127.0.0.1:${port}/${dbName}?connect_timeout=5`, 'HERMETIC_READER_PG_CONNECT'],
      [`postgres://${cluster.user}:***@127.0.0.1:${cluster.port}/${dbName}`, 'HERMETIC_READER_PG_AUTH'],
      [url.replace(`:${cluster.password}@`, ':***@'), 'HERMETIC_READER_PG_SCHEMA'],
    ]);
  } finally {
    rig.cleanup();
    cleanup();
  }
});

test('a HERMES_DATABASE_URL without a password, none in PGPASSWORD or ~/.pgpass, for a server that asks one: HERMETIC_READER_PG_AUTH saying where to give it, in the pass and in status', async () => {
  // The driver ends the server's SCRAM exchange with an error of its own, without a SQLSTATE: backfill and status
  // ended with a stack trace (HERMETIC_INTERNAL).
  const { dir, cleanup } = tempDir('hermetic-pgacc-');
  const bare = `postgres://${cluster.user}@127.0.0.1:${cluster.port}/${dbName}`;
  const home = pgHome(dir, 'nopass', bare);
  const rig = forwarderRig([home], { dir });
  try {
    await withoutPgPassword(async () => {
      const [r] = await rig.forwarder.forwardOnceAsync();
      assert.equal(r!.error?.code, 'HERMETIC_READER_PG_AUTH');
      assert.equal(r!.error!.message, `PostgreSQL at ${bare} (schema ${SCHEMA}) asks for a password and HERMES_DATABASE_URL gives none (give it in the URL (postgres://user:PASSWORD@host/db), or in PGPASSWORD or ~/.pgpass): SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string. Nothing was read.`);
      const { json } = await status(['--home', rig.home, '--state-db', home]);
      assert.match(String(json.stores[0]!.read_error), /asks for a password and HERMES_DATABASE_URL gives none .*\[HERMETIC_READER_PG_AUTH\]$/);
    });
  } finally {
    rig.cleanup();
    cleanup();
  }
});

test('a statement the server gave up (lock_timeout, statement_timeout) while Hermes holds a table: HERMETIC_READER_PG_CONNECT, nothing read, the next pass reads', async () => {
  // Hermes migrating its schema holds its tables; a role with a lock or statement timeout gives up waiting.
  cluster.psql([
    "CREATE ROLE hermes_lock_wait LOGIN PASSWORD 'lock-pw-1' IN ROLE hermetic",
    "ALTER ROLE hermes_lock_wait SET lock_timeout = '200ms'",
    "CREATE ROLE hermes_stmt_wait LOGIN PASSWORD 'stmt-pw-1' IN ROLE hermetic",
    // 2 s: past the reads of the pass that follows on a loaded machine, which run under it too.
    "ALTER ROLE hermes_stmt_wait SET statement_timeout = '2s'",
  ].join(';\n'), dbName);
  const { dir, cleanup } = tempDir('hermetic-pgacc-');
  const homes = ['hermes_lock_wait:lock-pw-1', 'hermes_stmt_wait:stmt-pw-1'].map((who, i) => pgHome(dir, `wait${i}`, `postgres://${who}@127.0.0.1:${cluster.port}/${dbName}`));
  const rig = forwarderRig(homes, { dir });
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await holder.query(`LOCK TABLE "${SCHEMA}".sessions IN ACCESS EXCLUSIVE MODE`);
    const results = await rig.forwarder.backfillAsync();
    assert.deepEqual(results.map((r) => r.error?.code ?? null), ['HERMETIC_READER_PG_CONNECT', 'HERMETIC_READER_PG_CONNECT'], JSON.stringify(results.map((r) => r.error?.message)));
    assert.match(results[0]!.error!.message, /lock timeout.*the next pass tries again\.$/);
    assert.match(results[1]!.error!.message, /statement timeout.*the next pass tries again\.$/);
    await holder.query('ROLLBACK');
    const again = await rig.forwarder.backfillAsync();
    assert.deepEqual(again.map((r) => [r.error, r.sessionsWritten]), [[null, 3], [null, 3]]);
  } finally {
    await holder.end();
    rig.cleanup();
    cleanup();
  }
});

test('status shows a healthy PostgreSQL store: its backend, its connection with the password redacted, its schema version', async () => {
  const { dir, cleanup } = tempDir('hermetic-pgacc-');
  const home = pgHome(dir, 'ok', url);
  const rig = forwarderRig([home], { dir });
  try {
    await rig.forwarder.backfillAsync();
    const { text, human, json } = await status(['--home', rig.home, '--state-db', home]);
    assert.ok(!text.includes(cluster.password) && !human.includes(cluster.password));
    const display = url.replace(`:${cluster.password}@`, ':***@');
    assert.ok(human.includes(`store postgres://${cluster.user}@127.0.0.1:${cluster.port}/${dbName}#${SCHEMA} (profile default, postgres backend)\n  connection: ${display}\n  schema v30, read through a local mirror\n  cursor: message id `), human);
    assert.match(human, /\n {2}pending: not counted \(status does not query PostgreSQL; the next backfill or forward reads what changed\)(\n|$)/);
    const [s] = json.stores;
    assert.equal(s!.backend, 'postgres');
    assert.equal(s!.path, `postgres://${cluster.user}@127.0.0.1:${cluster.port}/${dbName}#${SCHEMA}`);
    assert.equal(s!.connection, url.replace(`:${cluster.password}@`, ':***@'));
    assert.equal(s!.schema_version, 30);
    assert.equal(s!.read_error, null);
    assert.equal(s!.sessions_tracked, 3);
  } finally {
    rig.cleanup();
    cleanup();
  }
});

test("Hermes's schema on this server: its tables, keys, indexes, identity, generated column and triggers hold on PostgreSQL 15 (made above); only json_valid's IS JSON needs 16", () => {
  const version = Number(cluster.psql('SHOW server_version_num').trim());
  const create = () => cluster.psql(`CREATE SCHEMA IF NOT EXISTS json_probe; SET search_path TO json_probe; ${HERMES_JSON_VALID}`, dbName);
  if (version < 160000) assert.throws(create, /syntax error at or near "JSON"/);
  else create();
});
