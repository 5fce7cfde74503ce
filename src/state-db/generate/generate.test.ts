import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generate, generateAsync, PROFILES } from './index.js';
import { dumpSql } from '../testing/dump.js';
import { applicationIdFor, expectedTableInfo, tablesAt, LATEST_LEVEL } from '../schema/index.js';
import { tempDir } from '../testing/fixtures.js';
import { pathToFileURL } from 'node:url';
import { builtModule } from '../../../test/support/cli-build.js';

function checkStore(path: string, level: number, createdAt: number, label: string): Database.Database {
  const db = new Database(path, { readonly: true });
  assert.equal(db.pragma('integrity_check', { simple: true }), 'ok', label);
  assert.deepEqual(db.pragma('foreign_key_check'), [], label);
  for (const t of tablesAt(level)) {
    assert.deepEqual(db.prepare(`PRAGMA table_info(${t.name})`).all(), expectedTableInfo(t.name, level, createdAt), `${label} ${t.name}`);
  }
  return db;
}

test('generated stores at every schema level pass integrity and foreign-key checks and match the schema data', () => {
  const { dir, cleanup } = tempDir();
  try {
    for (let level = 1; level <= LATEST_LEVEL; level++) {
      const r = generate({ out: join(dir, `v${level}.db`), level, sessions: 16, messages: 160, seed: `lvl${level}`, journal: level % 2 ? 'wal' : 'delete' });
      const db = checkStore(r.path, level, level, `v${level}`);
      assert.ok((db.prepare('SELECT COUNT(*) FROM messages').pluck().get() as number) > 100);
      db.close();
    }
  } finally {
    cleanup();
  }
});

test('every named profile generates a sound store', () => {
  const { dir, cleanup } = tempDir();
  try {
    for (const [name, p] of Object.entries(PROFILES)) {
      const r = generate({ out: join(dir, name, 'state.db'), profile: name, sessions: 20, seed: name });
      const db = checkStore(r.path, p.level, p.createdAt ?? p.level, name);
      assert.equal(db.pragma('journal_mode', { simple: true }), p.journal ?? 'wal');
      if (p.activeNull) assert.equal(db.prepare('SELECT COUNT(*) FROM messages WHERE active IS NULL').pluck().get(), 3);
      if (p.postgres) assert.ok(existsSync(join(dir, name, 'config.yaml')));
      db.close();
    }
  } finally {
    cleanup();
  }
});

test('the same seed gives a byte-identical SQL dump; another seed does not', () => {
  const { dir, cleanup } = tempDir();
  try {
    const dump = (out: string, seed: string, journal: 'wal' | 'delete') => {
      generate({ out: join(dir, out), sessions: 25, seed, journal, profile: 'migrated' });
      const db = new Database(join(dir, out), { readonly: true });
      const text = dumpSql(db);
      db.close();
      return text;
    };
    const a = dump('a.db', 's1', 'wal');
    assert.equal(dump('b.db', 's1', 'delete'), a);
    assert.notEqual(dump('c.db', 's2', 'wal'), a);
  } finally {
    cleanup();
  }
});

test('a generated store is stamped as Hermes stamps a new file (one seed, one identity) and is owner-only (decision 0134)', () => {
  const { dir, cleanup } = tempDir();
  const umask = process.umask(0o022);
  try {
    const identity = (out: string, seed: string, profile?: string) => {
      generate({ out: join(dir, out), sessions: 3, seed, ...(profile ? { profile } : {}) });
      for (const file of [out, `${out}-wal`].map((f) => join(dir, f)).filter(existsSync)) {
        assert.equal(statSync(file).mode & 0o777, 0o600, file);
      }
      const db = new Database(join(dir, out), { readonly: true });
      const generation = db.prepare("SELECT value FROM state_meta WHERE key = 'db_file_generation'").pluck().get() as string;
      const applicationId = db.pragma('application_id', { simple: true });
      db.close();
      assert.match(generation, /^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/, 'uuid.uuid4().hex');
      assert.equal(applicationId, applicationIdFor(generation));
      return { generation, applicationId };
    };
    const a = identity('a.db', 's1');
    assert.deepEqual(identity('b.db', 's1'), a);
    assert.notDeepEqual(identity('c.db', 's2'), a);
    identity('tail.db', 's1', 'wal-tail');
  } finally {
    process.umask(umask);
    cleanup();
  }
});

test('a v30 store has every shape the issue lists', () => {
  const { dir, cleanup } = tempDir();
  try {
    const r = generate({ out: join(dir, 'state.db'), sessions: 40, seed: 'shapes' });
    const db = new Database(r.path, { readonly: true });
    const n = (sql: string) => db.prepare(sql).pluck().get() as number;
    assert.match(db.prepare('SELECT id FROM sessions ORDER BY started_at LIMIT 1').pluck().get() as string, /^20260714_\d{6}_[0-9a-f]{6,8}$/);
    assert.equal(n("SELECT COUNT(*) FROM messages WHERE typeof(timestamp) <> 'real'"), 0);
    assert.ok(n("SELECT COUNT(*) FROM messages WHERE tool_calls LIKE '[{\"id\": \"call_%\"function\": {\"name\": %\"arguments\": \"{%'") > 0);
    assert.ok(n("SELECT COUNT(*) FROM messages WHERE role = 'tool' AND tool_call_id IS NOT NULL") > 0);
    assert.ok(n("SELECT COUNT(*) FROM messages WHERE substr(CAST(content AS BLOB), 1, 6) = X'006A736F6E3A'") > 0);
    assert.ok(n("SELECT COUNT(*) FROM messages WHERE role IN ('session_meta', 'system')") > 0);
    assert.ok(n('SELECT COUNT(*) FROM messages WHERE display_kind IS NOT NULL') > 0);
    assert.ok(n('SELECT COUNT(*) FROM messages WHERE reasoning IS NOT NULL AND (reasoning_details IS NOT NULL OR codex_reasoning_items IS NOT NULL OR reasoning_content IS NOT NULL)') > 0);
    assert.ok(n('SELECT COUNT(*) FROM messages WHERE timestamp > 1e100') > 0);
    assert.ok(n('SELECT COUNT(*) FROM messages WHERE active = 0 AND compacted = 1') > 0);
    assert.ok(n('SELECT COUNT(*) FROM messages WHERE active = 0 AND compacted = 0') > 0);
    assert.ok(n("SELECT COUNT(*) FROM sessions WHERE end_reason = 'compression'") > 0);
    assert.ok(n("SELECT COUNT(*) FROM sessions WHERE model_config LIKE '%_branched_from%'") > 0);
    assert.ok(n("SELECT COUNT(*) FROM sessions WHERE source = 'subagent' AND parent_session_id IS NOT NULL") > 0);
    assert.ok(n("SELECT COUNT(*) FROM session_model_usage WHERE task <> ''") > 0);
    assert.ok(n("SELECT COUNT(DISTINCT cost_status) FROM sessions") >= 2);
    assert.ok(n("SELECT COUNT(DISTINCT source) FROM sessions") >= 6);
    assert.ok(n("SELECT MAX(id) FROM messages") > n('SELECT COUNT(*) FROM messages'), 'deleted or rewritten ids leave gaps');
    // Background delegations of a delegating session, finished and delivered (or not), with their task and outcome.
    assert.ok(n("SELECT COUNT(*) FROM async_delegations a JOIN sessions s ON s.id = a.parent_session_id WHERE a.state <> 'running' AND a.task_json LIKE '{\"goal\": %' AND a.event_json IS NOT NULL") >= 2);
    db.close();
  } finally {
    cleanup();
  }
});

test('the wal-tail profile keeps its newest sessions only in state.db-wal', () => {
  const { dir, cleanup } = tempDir();
  try {
    const r = generate({ out: join(dir, 'state.db'), profile: 'wal-tail', sessions: 30, seed: 'tail' });
    assert.ok(r.walOnlySessions > 0);
    assert.ok(existsSync(`${r.path}-wal`));
    copyFileSync(r.path, join(dir, 'main-only.db'));
    const mainOnly = new Database(join(dir, 'main-only.db'), { readonly: true });
    const withWal = new Database(r.path, { readonly: true });
    const count = (db: Database.Database) => db.prepare('SELECT COUNT(*) FROM sessions').pluck().get() as number;
    assert.equal(count(withWal), r.sessions);
    assert.ok(count(mainOnly) < count(withWal));
    mainOnly.close();
    withWal.close();
  } finally {
    cleanup();
  }
});

const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');
const rejectsWith = (fn: () => unknown, code: string, message: string) =>
  assert.throws(fn, (e: { code: string; message: string }) => (assert.deepEqual([e.code, e.message], [code, message]), true));

test('an existing store, a companion of it or a profile config.yaml is never replaced without replace: true', () => {
  const { dir, cleanup } = tempDir();
  try {
    const out = join(dir, 'state.db');
    writeFileSync(out, 'my notes\n');
    rejectsWith(() => generate({ out, sessions: 2 }), 'HERMETIC_STATEDB_EXISTS',
      `${out} already exists; pass --force to replace it, or choose another --out.`);
    assert.equal(readFileSync(out, 'utf8'), 'my notes\n');
    const lone = join(dir, 'lone.db');
    writeFileSync(`${lone}-wal`, '');
    rejectsWith(() => generate({ out: lone, sessions: 2 }), 'HERMETIC_STATEDB_EXISTS',
      `${lone}-wal exists beside it; pass --force to replace it, or choose another --out.`);
    mkdirSync(join(dir, 'pg'));
    writeFileSync(join(dir, 'pg', 'config.yaml'), 'model: mine\n');
    rejectsWith(() => generate({ out: join(dir, 'pg', 'state.db'), profile: 'postgres-stale', sessions: 2 }), 'HERMETIC_STATEDB_EXISTS',
      `${join(dir, 'pg', 'config.yaml')} exists beside it; pass --force to replace it, or choose another --out.`);
    assert.equal(readFileSync(join(dir, 'pg', 'config.yaml'), 'utf8'), 'model: mine\n');
    assert.deepEqual(readdirSync(dir).sort(), ['lone.db-wal', 'pg', 'state.db']);
    assert.deepEqual(readdirSync(join(dir, 'pg')), ['config.yaml']);
  } finally {
    cleanup();
  }
});

test('replace: true swaps in a complete store and drops the old one\'s -wal; a folder is refused either way', () => {
  const { dir, cleanup } = tempDir();
  try {
    const out = join(dir, 'state.db');
    writeFileSync(out, 'old');
    writeFileSync(`${out}-wal`, 'old wal that must not meet the new store');
    const r = generate({ out, sessions: 3, seed: 'r', replace: true });
    assert.equal(r.path, out);
    assert.deepEqual(readdirSync(dir), ['state.db']);
    const db = new Database(out, { readonly: true });
    assert.equal(db.prepare('SELECT COUNT(*) FROM sessions').pluck().get(), r.sessions);
    db.close();
    rejectsWith(() => generate({ out: dir, sessions: 2, replace: true }), 'HERMETIC_STATEDB_WRITE', `Cannot write a state.db at ${dir}: it is a folder, not a file.`);
  } finally {
    cleanup();
  }
});

test('a failure while putting the store in place leaves the old store intact and no temporary file behind', () => {
  const { dir, cleanup } = tempDir();
  try {
    const out = join(dir, 'state.db');
    generate({ out, sessions: 2, seed: 'old', journal: 'delete' });
    const before = sha(out);
    // A folder where the old store's -wal would be: removing it fails after the new store is complete.
    mkdirSync(`${out}-wal`);
    writeFileSync(join(`${out}-wal`, 'keep'), 'x');
    assert.throws(() => generate({ out, sessions: 3, seed: 'new', replace: true }), (e: { code: string; message: string }) => {
      assert.equal(e.code, 'HERMETIC_STATEDB_WRITE');
      assert.ok(e.message.startsWith(`Cannot write a state.db at ${out}: `), e.message);
      return true;
    });
    assert.equal(sha(out), before);
    assert.deepEqual(readdirSync(dir).sort(), ['state.db', 'state.db-wal']);
  } finally {
    cleanup();
  }
});

test('the wal-tail profile still moves its -wal into place with the store', () => {
  const { dir, cleanup } = tempDir();
  try {
    const r = generate({ out: join(dir, 'state.db'), profile: 'wal-tail', sessions: 20, seed: 'tail' });
    assert.deepEqual(readdirSync(dir).sort(), ['state.db', 'state.db-wal']);
    assert.ok(r.walOnlySessions > 0);
  } finally {
    cleanup();
  }
});

test('--sessions N gives exactly N sessions, lineage children included, for every profile and small counts', () => {
  const { dir, cleanup } = tempDir();
  try {
    const rows = (path: string) => {
      const db = new Database(path, { readonly: true });
      const n = db.prepare('SELECT COUNT(*) FROM sessions').pluck().get() as number;
      db.close();
      return n;
    };
    for (const n of [1, 2, 3, 10, 13, 17, 18, 19]) {
      const r = generate({ out: join(dir, `n${n}.db`), sessions: n, seed: `n${n}` });
      assert.deepEqual([r.sessions, rows(r.path)], [n, n], `--sessions ${n}`);
    }
    for (const name of Object.keys(PROFILES)) {
      const r = generate({ out: join(dir, name, 'state.db'), profile: name, sessions: 10, seed: name });
      assert.deepEqual([r.sessions, rows(r.path)], [10, 10], name);
    }
  } finally {
    cleanup();
  }
});

test('a small store still has every one-session shape: the first sessions walk them before lineage', () => {
  const { dir, cleanup } = tempDir();
  try {
    const r = generate({ out: join(dir, 'state.db'), sessions: 12, messages: 150, seed: 'walk' });
    const db = new Database(r.path, { readonly: true });
    const n = (sql: string) => db.prepare(sql).pluck().get() as number;
    assert.ok(n('SELECT COUNT(*) FROM messages WHERE timestamp > 1e100') > 0, 'garbage_ts');
    assert.ok(n("SELECT COUNT(*) FROM sessions WHERE source = 'cron'") > 0, 'cron');
    assert.ok(n("SELECT COUNT(*) FROM session_model_usage WHERE task = 'vision'") > 0, 'model_switch');
    assert.ok(n('SELECT COUNT(*) FROM messages WHERE active = 0 AND compacted = 1') > 0, 'compaction');
    db.close();
  } finally {
    cleanup();
  }
});

test('end and days lay the history over the days that end at end: every day has sessions, nothing after it', () => {
  const { dir, cleanup } = tempDir();
  try {
    const end = Date.UTC(2026, 9, 1, 12) / 1000;
    const dump = (out: string, options: Omit<Parameters<typeof generate>[0], 'out'>) => {
      const r = generate({ ...options, out: join(dir, out) });
      const db = new Database(r.path, { readonly: true });
      const text = dumpSql(db);
      const times = db.prepare('SELECT timestamp FROM messages WHERE timestamp < 1e100 UNION ALL SELECT started_at FROM sessions UNION ALL SELECT ended_at FROM sessions WHERE ended_at IS NOT NULL UNION ALL SELECT last_seen FROM session_model_usage').pluck().all() as number[];
      const days = new Set(db.prepare("SELECT date(started_at, 'unixepoch') FROM sessions").pluck().all() as string[]);
      db.close();
      return { text, times, days };
    };
    const a = dump('a.db', { sessions: 60, seed: 'spread', end, days: 7 });
    assert.ok(Math.max(...a.times) <= end, 'nothing after end');
    assert.ok(Math.min(...a.times) >= end - 7 * 86400, 'nothing before the first day');
    assert.ok(Math.max(...a.times) > end - 86400, 'the last day has usage');
    // 60 sessions over 7 days: a session every 2.8 hours, so each UTC day the span touches has some.
    for (let d = 0; d < 7; d++) assert.ok(a.days.has(new Date((end - d * 86400) * 1000).toISOString().slice(0, 10)), `day -${d}`);
    // Deterministic for a seed and an end; `now` is the default end (injected).
    assert.equal(dump('b.db', { sessions: 60, seed: 'spread', end, days: 7 }).text, a.text);
    assert.equal(dump('c.db', { sessions: 60, seed: 'spread', days: 7, now: () => end * 1000 }).text, a.text);
    assert.notEqual(dump('d.db', { sessions: 60, seed: 'spread', end: end + 86400, days: 7 }).text, a.text);
    // A year of many small sessions still ends in time: pauses shrink to fit each session's slot.
    const year = dump('e.db', { sessions: 800, messages: 4000, seed: 'year', end, days: 365, journal: 'delete', fts: false });
    assert.ok(Math.max(...year.times) <= end);
    assert.ok(year.days.size > 300, `${year.days.size} days with sessions`); // 800 sessions, one every 11 hours
  } finally {
    cleanup();
  }
});

test('generateAsync writes what generate writes; aborted at any pause, it leaves nothing and rejects with the reason', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const shape = { sessions: 60, messages: 900, seed: 'async', profile: 'wal-tail' };
    generate({ ...shape, out: join(dir, 'sync.db') });
    const r = await generateAsync({ ...shape, out: join(dir, 'async.db') });
    assert.equal(r.path, join(dir, 'async.db'));
    const dump = (p: string) => {
      const db = new Database(p, { readonly: true });
      try { return dumpSql(db); } finally { db.close(); }
    };
    assert.equal(dump(join(dir, 'async.db')), dump(join(dir, 'sync.db')));
    // The abort lands at the first pause (at the latest the one just before the store takes its place).
    for (const profile of ['wal-tail', 'postgres-stale', undefined]) {
      const work = join(dir, `abort-${profile}`);
      mkdirSync(work);
      const stop = new AbortController();
      const reason = new Error('stop');
      const pending = generateAsync({ ...shape, profile, out: join(work, 'state.db') }, { signal: stop.signal });
      stop.abort(reason);
      await assert.rejects(pending, (e) => e === reason);
      assert.deepEqual(readdirSync(work), [], String(profile));
    }
    // An abort before the start writes nothing either.
    const stopped = new AbortController();
    stopped.abort(new Error('early'));
    await assert.rejects(generateAsync({ out: join(dir, 'early', 'state.db') }, { signal: stopped.signal }), /early/);
    assert.ok(!existsSync(join(dir, 'early')));
  } finally {
    cleanup();
  }
});

test('a store under /proc fails at once with HERMETIC_STATEDB_WRITE (Node 20\'s recursive mkdir would spin there forever)', { skip: !existsSync('/proc/self') ? 'no /proc here' : false, timeout: 120_000 }, () => {
  const script = `
    import { generate } from ${JSON.stringify(pathToFileURL(builtModule(new URL('./index.ts', import.meta.url))).href)};
    try { generate({ out: '/proc/hermetic-test-nope/state.db', sessions: 2 }); console.log('written'); }
    catch (e) { console.log(e.code + ': ' + e.message); }`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL' });
  assert.equal(r.signal, null, `generate under /proc did not return within a minute (killed): ${r.stderr}`);
  assert.equal(r.stdout, 'HERMETIC_STATEDB_WRITE: Cannot write a state.db at /proc/hermetic-test-nope/state.db: the folder /proc does not accept new folders.\n');
});

test('usageEvents adds newer Hermes\'s per-call table: a row per call, summing to each route\'s row; the rest of the store is the same', () => {
  const { dir, cleanup } = tempDir();
  try {
    const plain = generate({ out: join(dir, 'plain.db'), sessions: 12, seed: 'calls' });
    const late = generate({ out: join(dir, 'late.db'), sessions: 12, seed: 'calls', usageEvents: true });
    assert.equal(late.messages, plain.messages);
    const db = new Database(late.path, { readonly: true });
    const other = new Database(plain.path, { readonly: true });
    try {
      const key = 'session_id, model, billing_provider, billing_base_url, billing_mode, task';
      const sums = `SUM(api_call_count) AS calls, SUM(input_tokens) AS input, ROUND(SUM(estimated_cost_usd), 9) AS usd`;
      const events = db.prepare(`SELECT ${key}, ${sums}, COUNT(*) AS n FROM session_model_usage_events GROUP BY ${key} ORDER BY ${key}`).all() as Record<string, unknown>[];
      assert.ok(events.length > 10 && events.some((e) => e.task !== '') && events.some((e) => (e.n as number) > 1), `${events.length} routes with calls`);
      assert.deepEqual(events.map(({ n: _n, ...e }) => e), db.prepare(`SELECT ${key}, ${sums} FROM session_model_usage GROUP BY ${key} ORDER BY ${key}`).all());
      // Nothing else differs: the same sessions, counters and messages as without the table.
      for (const sql of ['SELECT * FROM sessions ORDER BY id', 'SELECT * FROM messages ORDER BY id', 'SELECT * FROM session_model_usage ORDER BY session_id, model, task']) {
        assert.deepEqual(db.prepare(sql).all(), other.prepare(sql).all(), sql);
      }
    } finally {
      db.close();
      other.close();
    }
  } finally {
    cleanup();
  }
});
