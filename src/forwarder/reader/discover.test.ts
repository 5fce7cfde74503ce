// Where Hermes keeps its stores (spec state-db §2, forwarding §6.1 item 11, §6.4 item 28; checklist §5.3 #29):
// the default home, HERMES_HOME, every profile, explicit paths, and the PostgreSQL backend detected.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cannotDropRoot, unprivileged } from '../../shared/testing/unprivileged.js';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { createForwarder } from '../pipeline/forwarder.js';
import { backendOf, discoverStores, explicitProblem, profileOf, spelledAsKnown, storeFile, storeRoots } from './discover.js';

function withHome(fn: (home: string) => void): () => void {
  return () => {
    const { dir, cleanup } = tempDir('hermetic-discover-');
    try {
      fn(dir);
    } finally {
      cleanup();
    }
  };
}
const touch = (path: string, text = 'x') => { mkdirSync(join(path, '..'), { recursive: true }); writeFileSync(path, text); };

test('the default store is <home>/.hermes/state.db, profile default (§5.3 #29)', withHome((home) => {
  touch(join(home, '.hermes', 'state.db'));
  assert.deepEqual(discoverStores({ home }), [{ path: join(home, '.hermes', 'state.db'), profile: 'default', hermesHome: join(home, '.hermes'), backend: 'sqlite', warning: null, exists: true }]);
}));

test('a Hermes home without state.db yet is still listed (it idles with an error); no Hermes home lists nothing', withHome((home) => {
  assert.deepEqual(discoverStores({ home }), []);
  mkdirSync(join(home, '.hermes'));
  assert.deepEqual(discoverStores({ home }).map((r) => [r.path, r.exists]), [[join(home, '.hermes', 'state.db'), false]]);
}));

test('HERMES_HOME comes first, then ~/.hermes, each with its profiles in name order (profiles without a store skipped)', withHome((home) => {
  const hh = join(home, 'custom-hermes');
  touch(join(hh, 'state.db'));
  touch(join(hh, 'profiles', 'zeta', 'state.db'));
  touch(join(hh, 'profiles', 'alpha', 'state.db'));
  mkdirSync(join(hh, 'profiles', 'empty'), { recursive: true });
  touch(join(hh, 'profiles', 'not-a-dir'));
  touch(join(home, '.hermes', 'profiles', 'coder', 'state.db'));
  assert.deepEqual(discoverStores({ home, hermesHome: hh }).map((r) => [r.path, r.profile, r.hermesHome]), [
    [join(hh, 'state.db'), 'default', hh],
    [join(hh, 'profiles', 'alpha', 'state.db'), 'alpha', join(hh, 'profiles', 'alpha')],
    [join(hh, 'profiles', 'zeta', 'state.db'), 'zeta', join(hh, 'profiles', 'zeta')],
    [join(home, '.hermes', 'state.db'), 'default', join(home, '.hermes')],
    [join(home, '.hermes', 'profiles', 'coder', 'state.db'), 'coder', join(home, '.hermes', 'profiles', 'coder')],
  ]);
}));

test('a folder under profiles/ that Hermes takes for no profile is not read, and said: a copy, a capital, default', withHome((home) => {
  const root = join(home, '.hermes');
  touch(join(root, 'state.db'));
  touch(join(root, 'profiles', 'work', 'state.db'));
  for (const name of ['work.bak', 'Work', 'default', '-x', '_x', 'a'.repeat(65)]) touch(join(root, 'profiles', name, 'state.db'));
  mkdirSync(join(root, 'profiles', 'Empty'), { recursive: true }); // no store in it: nothing to say
  touch(join(root, 'profiles', `${'b'.repeat(64)}`, 'state.db'));
  touch(join(root, 'profiles', 'a_b-9', 'state.db'));
  const stores = discoverStores({ home });
  assert.deepEqual(stores.map((r) => r.profile), ['default', 'a_b-9', 'b'.repeat(64), 'work']);
  const skipped = ['-x', 'Work', '_x', 'a'.repeat(65), 'default', 'work.bak'].map((n) => join(root, 'profiles', n, 'state.db'));
  assert.equal(stores[0]!.warning, `not read: ${skipped.join(', ')} (Hermes uses no profile by those names: a profile is named with a-z, 0-9, _ and -, first a letter or digit, and not "default"); give --state-db to read one`);
  for (const r of stores.slice(1)) assert.equal(r.warning, null);
  // Named with --state-db, such a store is read as any other.
  assert.deepEqual(discoverStores({ home, explicit: [join(root, 'profiles', 'work.bak')] }).map((r) => [r.profile, r.exists]), [['work.bak', true]]);
}));

test('HERMES_HOME equal to ~/.hermes is read once', withHome((home) => {
  touch(join(home, '.hermes', 'state.db'));
  assert.equal(discoverStores({ home, hermesHome: join(home, '.hermes') }).length, 1);
}));

test('a store reached through a link is read once, by its first spelling: HERMES_HOME linked to ~/.hermes, a path named twice, a profile linked to the root', withHome((home) => {
  touch(join(home, '.hermes', 'state.db'));
  touch(join(home, '.hermes', 'profiles', 'ops', 'state.db'));
  const link = join(home, 'hermes-link');
  symlinkSync(join(home, '.hermes'), link);
  assert.deepEqual(discoverStores({ home, hermesHome: link }).map((r) => [r.path, r.profile]), [
    [join(link, 'state.db'), 'default'],
    [join(link, 'profiles', 'ops', 'state.db'), 'ops'],
  ]);
  const fileLink = join(home, 'store-link.db');
  symlinkSync(join(home, '.hermes', 'state.db'), fileLink);
  assert.deepEqual(discoverStores({ home, explicit: [fileLink, join(home, '.hermes'), link] }).map((r) => r.path), [fileLink]);
  // A profile whose folder is a link to the Hermes home holds the same store as the home.
  symlinkSync(join(home, '.hermes'), join(home, '.hermes', 'profiles', 'alias'));
  assert.deepEqual(discoverStores({ home }).map((r) => [r.path, r.profile]), [
    [join(home, '.hermes', 'state.db'), 'default'],
    [join(home, '.hermes', 'profiles', 'ops', 'state.db'), 'ops'],
  ]);
  // Two different stores stay two.
  touch(join(home, 'other', 'state.db'));
  assert.equal(discoverStores({ home, explicit: [fileLink, join(home, 'other')] }).length, 2);
}));

test('a store the dataset knows under another spelling of the same file keeps that key; a known spelling, another file and a PostgreSQL store stay as found', withHome((home) => {
  touch(join(home, '.hermes', 'state.db'));
  touch(join(home, 'other', 'state.db'));
  const link = join(home, 'hermes-link');
  symlinkSync(join(home, '.hermes'), link);
  const real = join(home, '.hermes', 'state.db');
  const viaLink = join(link, 'state.db');
  const found = discoverStores({ home, explicit: [viaLink, join(home, 'other')] });
  assert.deepEqual(spelledAsKnown(found, [real]).map((r) => [r.path, r.hermesHome]), [[real, join(home, '.hermes')], [join(home, 'other', 'state.db'), join(home, 'other')]]);
  assert.deepEqual(spelledAsKnown(found, []).map((r) => r.path), [viaLink, join(home, 'other', 'state.db')], 'nothing known: as found');
  // A dataset holding the file under both spellings already (written before this rule): the one found is kept.
  assert.deepEqual(spelledAsKnown(found, [real, viaLink]).map((r) => r.path), [viaLink, join(home, 'other', 'state.db')]);
  // A known key whose file is gone matches nothing.
  assert.deepEqual(spelledAsKnown(found, [join(home, 'gone', 'state.db')]).map((r) => r.path), [viaLink, join(home, 'other', 'state.db')]);
  const pg = { ...found[0]!, path: 'postgres://u@h:5432/db#s', source: {} as never };
  assert.deepEqual(spelledAsKnown([pg], [real]).map((r) => r.path), ['postgres://u@h:5432/db#s']);
}));

test('explicit paths are the only ones read, resolved and de-duplicated, with the profile their place implies', withHome((home) => {
  touch(join(home, '.hermes', 'state.db'));
  const a = join(home, 'h', 'profiles', 'ops', 'state.db');
  const stores = discoverStores({ home, explicit: [a, `${join(home, 'h', 'profiles', 'ops')}/../ops/state.db`, join(home, 'x.db')] });
  assert.deepEqual(stores.map((r) => [r.path, r.profile, r.exists]), [[a, 'ops', false], [join(home, 'x.db'), 'default', false]]);
}));

test('a folder named state.db holding none is the store\'s own path (a folder where the file should be), not state.db/state.db', withHome((home) => {
  const folder = join(home, 'h', 'state.db');
  mkdirSync(folder, { recursive: true });
  const [ref] = discoverStores({ home, explicit: [folder] });
  assert.deepEqual([ref!.path, ref!.exists, ref!.absent], [folder, false, 'is a folder, not the store file Hermes writes']);
  // A Hermes home that happens to be named so, holding its state.db, is still a home.
  touch(join(folder, 'state.db'));
  assert.deepEqual(discoverStores({ home, explicit: [folder] }).map((r) => [r.path, r.exists]), [[join(folder, 'state.db'), true]]);
}));

test('a profile whose config.yaml selects PostgreSQL is a PostgreSQL store, named by its source, never its stale state.db (§6.1 item 11, decision 0038)', withHome((home) => {
  const pg = join(home, '.hermes', 'profiles', 'pg');
  touch(join(pg, 'config.yaml'), 'database:\n  backend: PostgreSQL\n');
  touch(join(pg, '.env'), '# Hermes\nexport HERMES_DATABASE_URL="postgresql://hermes:s3cret@db.example:6543/state?sslmode=require"\n');
  touch(join(home, '.hermes', 'config.yaml'), 'database:\n  backend: postgres\n  schema: team_state\n');
  touch(join(home, '.hermes', 'state.db'));
  const stores = discoverStores({ home, env: {} });
  const noUrl = `${join(home, '.hermes', 'config.yaml')} selects the PostgreSQL backend, but no HERMES_DATABASE_URL was found (the environment, ${join(home, '.hermes', '.env')}, or database.url in config.yaml); nothing was read from this profile.`;
  assert.deepEqual(stores.map((r) => [r.profile, r.backend, r.exists, r.warning, r.problem?.code ?? null]), [
    ['default', 'postgres', false, noUrl, 'HERMETIC_READER_PG_CONFIG'],
    ['pg', 'postgres', true, null, null],
  ]);
  const source = stores[1]!.source!;
  assert.match(source.schema, /^hermes_pg_[0-9a-f]{12}$/);
  assert.equal(stores[1]!.path, `postgres://hermes@db.example:6543/state#${source.schema}`);
  assert.equal(source.display, 'postgresql://hermes:***@db.example:6543/state?sslmode=require');
  // The process's own home takes HERMES_DATABASE_URL from the environment; its schema comes from config.yaml.
  const fromEnv = discoverStores({ home, env: { HERMES_DATABASE_URL: 'postgres://u:pw@127.0.0.1/h' } })[0]!;
  assert.equal(fromEnv.path, 'postgres://u@127.0.0.1:5432/h#team_state');
  assert.equal(fromEnv.source!.from, 'HERMES_DATABASE_URL');
  assert.ok(!JSON.stringify(fromEnv).replace(fromEnv.source!.url, '').includes('pw@'), 'the password only in the URL itself');
}));

test('config.yaml without a postgres backend, or none at all, means SQLite; unreadable YAML is a warning', withHome((home) => {
  assert.deepEqual(backendOf(home), { backend: 'sqlite', warning: null, database: {} });
  touch(join(home, 'config.yaml'), 'database:\n  backend: sqlite\nmodel: gpt-5\n');
  assert.deepEqual(backendOf(home), { backend: 'sqlite', warning: null, database: { backend: 'sqlite' } });
  touch(join(home, 'config.yaml'), 'database: [unclosed\n');
  const r = backendOf(home);
  assert.equal(r.backend, 'sqlite');
  assert.match(r.warning!, new RegExp(`^${join(home, 'config.yaml').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} could not be read as YAML \\(.+\\); assuming the SQLite backend$`));
}));

test('the profile of a store path: <root>/profiles/<name>/state.db is <name>, anything else default', () => {
  assert.equal(profileOf('/h/.hermes/profiles/coder/state.db'), 'coder');
  assert.equal(profileOf('/h/.hermes/state.db'), 'default');
  assert.equal(profileOf('/tmp/state.db'), 'default');
});

test('a folder named state.db in a Hermes home is said to be a folder, not missing, by the pass that meets it', withHome((home) => {
  mkdirSync(join(home, '.hermes', 'state.db'), { recursive: true });
  const path = join(home, '.hermes', 'state.db');
  assert.deepEqual([storeFile(path), storeFile(join(home, 'nothing')), storeFile('/dev/null')], [
    { exists: false, absent: 'is a folder, not the store file Hermes writes' },
    { exists: false, absent: 'does not exist' },
    { exists: false, absent: 'is not a regular file, so not a store Hermes writes' },
  ]);
  const forwarder = createForwarder({ home: join(home, 'hermetic'), userHome: home, hermesHome: undefined, buildAside: 0 });
  try {
    const [store] = forwarder.backfill();
    assert.deepEqual(store!.error, { code: 'HERMETIC_READER_OPEN', message: `${path} is a folder, not the store file Hermes writes` });
  } finally {
    forwarder.close();
  }
}));

test('the homes searched are HERMES_HOME (when set), then ~/.hermes, each once, as absolute paths', withHome((home) => {
  assert.deepEqual(storeRoots({ home }), [join(home, '.hermes')]);
  assert.deepEqual(storeRoots({ home, hermesHome: join(home, 'h') }), [join(home, 'h'), join(home, '.hermes')]);
  assert.deepEqual(storeRoots({ home, hermesHome: '' }), [join(home, '.hermes')]);
  mkdirSync(join(home, '.hermes'));
  symlinkSync(join(home, '.hermes'), join(home, 'link'));
  assert.deepEqual(storeRoots({ home, hermesHome: join(home, 'link') }), [join(home, 'link')], 'a link to ~/.hermes is that home');
}));

// A Hermes home whose folders a person (or a backup tool) made unreadable under a running forward (decision 0101).
// Root reads every folder: as root, the stores are looked for without root's overrides of file modes.
const bound = unprivileged(new URL('./discover.ts', import.meta.url), { discoverStores, explicitProblem });

test('a profiles folder that cannot be listed is said on the home\'s store, not thrown; its profiles come back once it can', { skip: cannotDropRoot }, withHome((home) => {
  const root = join(home, '.hermes');
  touch(join(root, 'state.db'));
  touch(join(root, 'profiles', 'work', 'state.db'));
  chmodSync(join(root, 'profiles'), 0o000);
  try {
    const refs = bound.discoverStores({ home });
    assert.deepEqual(refs.map((r) => [r.profile, r.exists]), [['default', true]]);
    assert.equal(refs[0]!.warning, `${join(root, 'profiles')} cannot be listed (permission denied): the profiles in it are not read`);
  } finally {
    chmodSync(join(root, 'profiles'), 0o755);
  }
  assert.deepEqual(bound.discoverStores({ home }).map((r) => [r.profile, r.exists, r.warning]), [['default', true, null], ['work', true, null]]);
}));

test('a store behind a folder that cannot be entered is said as permission denied, not as missing', { skip: cannotDropRoot }, withHome((home) => {
  const root = join(home, '.hermes');
  touch(join(root, 'state.db'));
  touch(join(root, 'profiles', 'work', 'state.db'));
  chmodSync(join(root, 'profiles', 'work'), 0o000);
  chmodSync(root, 0o600);
  try {
    const refs = bound.discoverStores({ home });
    const problem = (dir: string) => ({ code: 'HERMETIC_READER_OPEN', message: `${join(dir, 'state.db')} cannot be reached: permission denied on ${dir} or a folder above it` });
    assert.deepEqual(refs.map((r) => [r.profile, r.exists, r.problem]), [['default', false, problem(root)]]);
    // Named with --state-db, the same (backfill refuses it up front with these words).
    assert.equal(bound.explicitProblem(join(root, 'state.db')), problem(root).message);
    chmodSync(root, 0o755);
    assert.deepEqual(bound.discoverStores({ home }).map((r) => [r.profile, r.exists, r.problem]), [['default', true, undefined], ['work', false, problem(join(root, 'profiles', 'work'))]]);
  } finally {
    chmodSync(root, 0o755);
    chmodSync(join(root, 'profiles', 'work'), 0o755);
  }
}));

test('a --state-db folder that cannot be entered is said as permission denied, not as a folder with no state.db', { skip: cannotDropRoot }, withHome((home) => {
  const root = join(home, '.hermes');
  touch(join(root, 'state.db'));
  chmodSync(root, 0o600);
  try {
    assert.equal(bound.explicitProblem(root), `${join(root, 'state.db')} cannot be reached: permission denied on ${root} or a folder above it`);
  } finally {
    chmodSync(root, 0o755);
  }
  assert.equal(bound.explicitProblem(root), null);
  assert.equal(bound.explicitProblem(home), `${home} is a folder with no state.db in it`);
}));
