// A PostgreSQL profile's connection and schema, as Hermes resolves them (decision 0038), and the names the forwarder
// shows: the identity (never a password) and the redacted connection.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { HermeticError } from '../../../shared/errors.js';
import { tempDir } from '../../../state-db/testing/fixtures.js';
import { defaultSchema, mirrorFile, parseDotenv, pgSource, redactUrl } from './settings.js';

const sha12 = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 12);

test("the default schema is Hermes's: hermes_<profile>_<sha256 of the state.db path>, the profile name made an identifier", () => {
  const { dir, cleanup } = tempDir('hermetic-pgset-');
  try {
    const root = join(dir, '.hermes');
    const work = join(root, 'profiles', 'Work-1.x');
    mkdirSync(work, { recursive: true });
    assert.equal(defaultSchema(root), `hermes_default_${sha12(join(realpathSync(root), 'state.db'))}`);
    assert.equal(defaultSchema(work), `hermes_work_1_x_${sha12(join(realpathSync(work), 'state.db'))}`);
  } finally {
    cleanup();
  }
});

test('the URL: the environment for the process home, else the profile .env, else database.url; a bad one is HERMETIC_READER_PG_CONFIG', () => {
  const { dir, cleanup } = tempDir('hermetic-pgset-');
  try {
    const home = join(dir, 'h');
    mkdirSync(home);
    const env = { HERMES_HOME: home, HERMES_DATABASE_URL: 'postgres://env:e@db/x' };
    const database = { backend: 'postgres', url: 'postgres://cfg:c@db/x', schema: 'team' };
    assert.equal(pgSource({ hermesHome: home, database, env }).from, 'HERMES_DATABASE_URL');
    assert.equal(pgSource({ hermesHome: home, database, env: {} }).identity, 'postgres://cfg@db:5432/x#team');
    writeFileSync(join(home, '.env'), 'OTHER=1\nHERMES_DATABASE_URL="postgresql://dot:d@db:5433/y" # comment\n');
    assert.equal(pgSource({ hermesHome: home, database, env: {} }).identity, 'postgres://dot@db:5433/y#team');
    // Another profile never takes the process's own URL.
    assert.equal(pgSource({ hermesHome: home, database, env: { ...env, HERMES_HOME: join(dir, 'other') } }).from, join(home, '.env'));
    const bad = (db: Record<string, unknown>, e: NodeJS.ProcessEnv, message: RegExp) => assert.throws(() => pgSource({ hermesHome: join(dir, 'none'), database: db, env: e }), (x: unknown) => x instanceof HermeticError && x.code === 'HERMETIC_READER_PG_CONFIG' && message.test(x.message));
    bad({ backend: 'postgres' }, {}, /no HERMES_DATABASE_URL was found/);
    bad({ url: 'not a url' }, {}, /is not a URL \(not a url\)/);
    bad({ url: 'postgres://u:p@h/d', schema: 'pg_x' }, {}, /must be a lowercase PostgreSQL identifier/);
    bad({ url: 'postgres://u:p@h/d', schema: 'Bad' }, {}, /got "Bad"/);
  } finally {
    cleanup();
  }
});

test('the password is redacted in the connection shown and absent from the identity and the mirror name', () => {
  assert.equal(redactUrl('postgresql://hermes:s3cr%40t@db.internal:5432/hermes?sslmode=verify-full'), 'postgresql://hermes:***@db.internal:5432/hermes?sslmode=verify-full');
  assert.equal(redactUrl('postgres://db/hermes?user=h&password=s3cret&sslmode=require'), 'postgres://db/hermes?user=h&password=***&sslmode=require');
  const s = pgSource({ hermesHome: '/nowhere', database: { url: 'postgres://h:s3cret@db/x?password=s3cret', schema: 's' }, env: {} });
  assert.equal(s.identity, 'postgres://h@db:5432/x#s');
  assert.ok(!s.display.includes('s3cret'));
  assert.match(mirrorFile('/hh', s), /^\/hh\/mirrors\/[0-9a-f]{16}\.db$/);
});

test('.env lines: export, quotes, comments', () => {
  assert.deepEqual([...parseDotenv("# c\nexport A=1\nB='two words'\nC=\"x\" # note\nD=plain # note\nnot a line\n")], [['A', '1'], ['B', 'two words'], ['C', 'x'], ['D', 'plain']]);
});
