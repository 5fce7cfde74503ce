// The usage ledger in the dataset (decision 0031): it adds up on every store Hermes wrote and every store the
// generator makes; forward ticks (appends, retries, rewinds, compaction, deletions, policy changes) leave it and the
// activity counts equal to a rebuild from scratch; a new zone rebuilds it; a dataset from before the ledger upgrades in place; and
// a property test over random stores holds all of that.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createIdSource } from '../../../shared/ids.js';
import { profileNames } from '../../../state-db/generate/index.js';
import { createStore, LATEST_LEVEL } from '../../../state-db/schema/index.js';
import { copyFixture, EARLY_FIXTURES, FIXTURES, tempDir } from '../../../state-db/testing/fixtures.js';
import { generatedStore } from '../../../state-db/testing/generated.js';
import { addUsageEvents } from '../../../state-db/schema/usage-events.js';
import { StateDbWriter } from '../../../state-db/writer/index.js';
import { printed } from '../../../shared/testing/console.js';
import { reportCommand } from '../../cli/report.js';
import { CALLS_MARK } from '../../normalize/index.js';
import { LedgerWriter } from './ledger.js';
import { forwarderRig, type Rig } from '../../testing/index.js';
import { ledgerAgainstRebuild, ledgerDiscrepancies } from '../../testing/ledger.js';
import { DATASET_VERSION } from '../../dataset/columns.js';
import { COUNTED_TABLES } from './row-counts.js';
import { openDataset } from './dataset.js';
import { LazySqliteSink } from './lazy.js';
import type { SqliteSink } from './sink.js';

type Row = Record<string, any>;
const dbOf = (rig: Rig) => {
  const sink = rig.forwarder.sink as SqliteSink | LazySqliteSink;
  return (sink instanceof LazySqliteSink ? sink.dataset() : sink).db;
};

/** The ledger adds up and equals what a rebuild from scratch writes. */
function holds(rig: Rig, label: string): void {
  const db = dbOf(rig);
  assert.deepEqual(ledgerDiscrepancies(db), [], `${label}: adds up`);
  const { now, rebuilt } = ledgerAgainstRebuild(db);
  assert.deepEqual(now, rebuilt, `${label}: equals a rebuild from scratch`);
}

for (const name of [...FIXTURES, ...EARLY_FIXTURES]) {
  test(`fixture ${name}: the ledger adds up to the session counters plus the auxiliary rows, in any zone`, () => {
    const { dir, cleanup } = tempDir();
    const path = copyFixture(name, dir);
    for (const timeZone of ['UTC', 'Asia/Kathmandu']) {
      const rig = forwarderRig([path], { dir, home: join(dir, timeZone.replace('/', '-')), timeZone });
      try {
        assert.equal(rig.forwarder.backfill()[0]!.error, null);
        holds(rig, `${name} ${timeZone}`);
        assert.deepEqual(rig.query('SELECT value FROM dataset_meta WHERE key = ?', 'ledger_time_zone'), [{ value: timeZone }]);
      } finally {
        rig.cleanup();
      }
    }
    cleanup();
  });
}

test('fixture usage: routes keep their splits, the rest is the session\'s model, auxiliary rows are on top, absolute-mode days are clamped', () => {
  const { dir, cleanup } = tempDir();
  const rig = forwarderRig([copyFixture('usage', dir)], { dir, timeZone: 'UTC' });
  try {
    rig.forwarder.backfill();
    const by = (id: string) => rig.query<Row>('SELECT model, task, basis, SUM(input_tokens) AS input, SUM(api_calls) AS calls, ROUND(SUM(estimated_cost_usd), 10) AS usd, SUM(actual_cost_usd) AS billed FROM usage_ledger WHERE session_id = ? GROUP BY 1, 2, 3 ORDER BY 2, 1', id);
    assert.deepEqual(by('20260601_074650_6704bb'), [
      { model: 'google/gemini-2.5-flash', task: 'compression', basis: 'auxiliary', input: 20000, calls: 1, usd: 0.0084, billed: null },
      { model: 'anthropic/claude-sonnet-4.6', task: 'main', basis: 'route', input: 4763, calls: 3, usd: 0.036204, billed: null },
      { model: 'gpt-5', task: 'main', basis: 'route', input: 4781, calls: 4, usd: 0.01466625, billed: null },
      { model: 'google/gemini-2.5-flash', task: 'title_generation', basis: 'auxiliary', input: 412, calls: 1, usd: 0.000126, billed: null },
      { model: 'gpt-5-mini', task: 'vision', basis: 'auxiliary', input: 1500, calls: 2, usd: 0, billed: null },
    ]);
    // The gateway session in absolute mode: no route rows; its counters dropped to 700 while its day grew to 2,500.
    assert.deepEqual(by('20260601_074854_9a324e80'), [{ model: 'Hermes-4-405B', task: 'main', basis: 'session', input: 700, calls: 1, usd: 0.00085, billed: null }]);
    assert.deepEqual(rig.query('SELECT day, SUM(input_tokens) AS input FROM usage_ledger GROUP BY day'), [{ day: '2026-06-01', input: 13516 + 21912 }]);
  } finally {
    rig.cleanup();
    cleanup();
  }
});

test('every generated profile: the ledger adds up; routes that fit keep their rows; days that fit keep theirs', () => {
  const { dir, cleanup } = tempDir();
  try {
    // postgres-stale is read from PostgreSQL now, never from its stale state.db (generated.test.ts, decision 0038).
    for (const profile of profileNames().filter((p) => p !== 'postgres-stale')) {
      const g = generatedStore({ out: join(dir, profile, 'state.db'), profile, sessions: 40, messages: 600, seed: 'ledger', end: Date.UTC(2026, 6, 20) / 1000, days: 5 });
      // The generator's session_daily_usage days are UTC days (decision 0011): so are the ledger's here.
      const rig = forwarderRig([g.path], { dir, home: join(dir, `${profile}-home`), timeZone: 'UTC' });
      try {
        assert.equal(rig.forwarder.backfill()[0]!.error, null, profile);
        holds(rig, profile);
        const routes = rig.query<Row>(`SELECT m.session_id, m.model, m.provider_key, m.input_tokens AS want, (SELECT TOTAL(l.input_tokens) FROM usage_ledger l WHERE l.session_id = m.session_id AND l.basis = 'route' AND l.model = m.model AND l.provider_key = m.provider_key) AS got
          FROM model_usage m JOIN sessions s USING (store, session_id) WHERE m.task = '' AND s.input_tokens >= (SELECT SUM(x.input_tokens) FROM model_usage x WHERE x.session_id = m.session_id AND x.task = '')`);
        for (const r of routes) assert.equal(r.got, r.want, `${profile} ${r.session_id} ${r.model}`);
        const days = rig.query<Row>(`SELECT d.session_id, d.day, d.input_tokens AS want, (SELECT TOTAL(l.input_tokens) FROM usage_ledger l WHERE l.session_id = d.session_id AND l.day = d.day AND l.task = 'main') AS got
          FROM daily_usage d JOIN sessions s USING (store, session_id) WHERE s.input_tokens = (SELECT SUM(x.input_tokens) FROM daily_usage x WHERE x.session_id = d.session_id)`);
        for (const r of days) assert.equal(r.got, r.want, `${profile} ${r.session_id} ${r.day}`);
        if (profile === 'v30') assert.ok(days.length > 20 && routes.length > 20, `${days.length} days, ${routes.length} routes checked`);
      } finally {
        rig.cleanup();
      }
    }
  } finally {
    cleanup();
  }
});

/** A WAL store written by the Hermes-like writer and a forwarder over it. */
function live(fn: (s: { dir: string; w: StateDbWriter; clock: { t: number }; rig: Rig; db: Database.Database }) => void, options: { timeZone?: string; level?: number } = {}): void {
  const { dir, cleanup } = tempDir();
  const path = join(dir, 'hermes', 'state.db');
  mkdirSync(join(dir, 'hermes'));
  const clock = { t: Date.UTC(2026, 6, 1, 20) / 1000 };
  const db = createStore({ path, level: options.level ?? LATEST_LEVEL, journal: 'wal' });
  const w = new StateDbWriter(db, { now: () => clock.t, ids: createIdSource('ledger-live') });
  // The forwarder's clock follows the store's (its usage-policy answers are cached for 5 s of it).
  const rig = forwarderRig([path], { dir, timeZone: options.timeZone ?? 'Europe/Berlin', now: () => clock.t * 1000 });
  try {
    fn({ dir, w, clock, rig, db });
  } finally {
    db.close();
    rig.cleanup();
    cleanup();
  }
}

test('forward ticks keep the ledger and the activity counts equal to a rebuild: appends, usage alone, retry, rewind, compaction, deletion, a policy change', () => {
  live(({ dir, w, clock, rig }) => {
    const say = (id: string, n: number) => {
      for (let i = 0; i < n; i++) {
        clock.t += 700;
        w.appendMessages(id, [{ role: 'user', content: `q${i}` }, { role: 'assistant', content: `a${i}`, tool_calls: i % 2 ? [{ id: `c${id}${clock.t}`, type: 'function', function: { name: 'terminal', arguments: '{}' } }] : null }]);
        if (i % 2) w.appendMessage(id, { role: 'tool', tool_call_id: `c${id}${clock.t}`, tool_name: 'terminal', content: i % 4 === 1 ? '{"exit_code": 2}' : '{"exit_code": 0}' });
        w.updateTokenCounts(id, { input_tokens: 100 + i, output_tokens: 10, estimated_cost_usd: 0.01, model: 'gpt-5', billing_provider: 'openai' }, 'delta');
      }
    };
    const a = w.createSession({ source: 'cli', model: 'gpt-5', cwd: join(dir, 'proj') });
    const b = w.createSession({ source: 'telegram', model: 'Hermes-4-405B' });
    const c = w.createSession({ source: 'cli', cwd: join(dir, 'secret', 'x') });
    say(a, 4);
    say(c, 2);
    w.appendMessage(b, { role: 'user', content: 'hi' });
    w.updateTokenCounts(b, { input_tokens: 1000, api_calls: 1 }, 'absolute');
    rig.forwarder.backfill();
    holds(rig, 'backfill');
    assert.deepEqual(rig.query<Row>("SELECT tool_name, SUM(calls) AS calls, SUM(errors) AS errors FROM tool_usage WHERE session_id = ? GROUP BY 1", a), [{ tool_name: 'terminal', calls: 2, errors: 1 }]);

    const steps: [string, () => void][] = [
      ['appends after midnight (UTC and local)', () => { clock.t += 5 * 3600; say(a, 3); }],
      ['auxiliary usage alone', () => w.recordAuxiliaryUsage(a, 'title_generation', { model: 'flash', input_tokens: 300, estimated_cost_usd: 0.0001 })],
      ['absolute counters drop', () => { clock.t += 60; w.updateTokenCounts(b, { input_tokens: 400, api_calls: 1 }, 'absolute'); }],
      ['a model switch', () => { w.switchModel(a, 'claude-opus-4-1', { billing_provider: 'anthropic' }); say(a, 2); }],
      ['a retry replaces the transcript', () => {
        const rows = w.db.prepare('SELECT role, content, timestamp FROM messages WHERE session_id = ? AND tool_calls IS NULL AND role <> \'tool\' ORDER BY id').all(a) as { role: string; content: string; timestamp: number }[];
        w.replaceMessages(a, [...rows.slice(0, -1), { role: 'assistant', content: 'better', timestamp: clock.t }]);
      }],
      ['a rewind', () => { const ids = w.db.prepare('SELECT id FROM messages WHERE session_id = ? ORDER BY id').pluck().all(c) as number[]; w.rewind(c, ids[1]!); }],
      ['in-place compaction', () => { w.compactInPlace(a, [{ role: 'user', content: '[summary]', _compressed_summary: 1, timestamp: clock.t }], 2); say(a, 1); }],
      ['a deleted session keeps its rows', () => w.deleteSession(b)],
      ['a scope becomes ignored', () => { mkdirSync(join(dir, 'secret'), { recursive: true }); writeFileSync(join(dir, 'secret', '.hypignore'), 'ignore\n'); clock.t += 60; w.appendMessage(c, { role: 'user', content: 'again' }); }],
    ];
    for (const [label, step] of steps) {
      step();
      const [r] = rig.forwarder.forwardOnce();
      assert.equal(r!.error, null, label);
      holds(rig, label);
    }
    assert.deepEqual(rig.query('SELECT COUNT(*) AS n FROM usage_ledger WHERE session_id = ?', c), [{ n: 0 }], 'the ignored session has no ledger rows');
    assert.deepEqual(rig.query('SELECT COUNT(*) AS n FROM session_activity WHERE session_id = ?', c), [{ n: 0 }]);
    assert.ok((rig.query<Row>('SELECT COUNT(*) AS n FROM usage_ledger WHERE session_id = ?', b)[0]!.n) > 0, 'the deleted session keeps its rows');
    assert.ok(rig.query<Row>('SELECT COUNT(DISTINCT day) AS n FROM usage_ledger WHERE session_id = ?', a)[0]!.n >= 2, 'a spans two local days');
  });
});

test('naming another zone rebuilds the ledger once; a forwarder that names none keeps the zone it was built in', () => {
  live(({ w, clock, rig }) => {
    const id = w.createSession({ source: 'cli' });
    for (let i = 0; i < 6; i++) {
      clock.t += 3600;
      w.appendMessages(id, [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }]);
      w.updateTokenCounts(id, { input_tokens: 10 }, 'delta');
    }
    rig.forwarder.backfill();
    const days = () => rig.query<Row>('SELECT day, SUM(input_tokens) AS n FROM usage_ledger GROUP BY day');
    assert.deepEqual(days(), [{ day: '2026-07-01', n: 10 }, { day: '2026-07-02', n: 50 }]); // 21:00 … 02:00 UTC in Berlin
    rig.forwarder.close();
    const tokyo = forwarderRig(rig.forwarder.stores().map((s) => s.path), { dir: rig.dir, home: rig.home, timeZone: 'Asia/Tokyo', now: () => clock.t * 1000 });
    try {
      tokyo.forwarder.forwardOnce(); // the dataset opens on first use (an unchanged tick reads its cursors)
      assert.deepEqual(tokyo.query('SELECT day, SUM(input_tokens) AS n FROM usage_ledger GROUP BY day'), [{ day: '2026-07-02', n: 60 }]);
      holds(tokyo, 'tokyo');
    } finally {
      tokyo.cleanup();
    }
    const again = forwarderRig(rig.forwarder.stores().map((s) => s.path), { dir: rig.dir, home: rig.home, now: () => clock.t * 1000 });
    try {
      again.forwarder.forwardOnce();
      assert.deepEqual(again.query('SELECT value FROM dataset_meta WHERE key = ?', 'ledger_time_zone'), [{ value: 'Asia/Tokyo' }]);
    } finally {
      again.cleanup();
    }
  }, { level: 30 }); // v30 before session_daily_usage: the days come from the messages alone
});

test('a version-2 dataset (before the ledger) upgrades in place: tables, triggers, activity and the ledger of the sessions it holds', () => {
  const { dir, cleanup } = tempDir();
  const rig = forwarderRig([copyFixture('basic', dir), copyFixture('usage', dir)], { dir, timeZone: 'UTC' });
  try {
    rig.forwarder.backfill();
    const before = ledgerAgainstRebuild(dbOf(rig)).now;
    rig.forwarder.close();
    // What version 2 was: the same tables but these, no triggers, user_version 2.
    const db = new Database(join(rig.home, 'hermetic.db'));
    for (const t of ['usage_ledger', 'tool_usage', 'session_activity', 'tool_activity', 'dataset_meta']) db.exec(`DROP TABLE ${t}`);
    for (const t of db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").pluck().all() as string[]) db.exec(`DROP TRIGGER ${t}`);
    db.pragma('user_version = 2');
    db.close();
    const upgraded = openDataset(rig.home, { timeZone: 'UTC' });
    try {
      assert.equal(upgraded.pragma('user_version', { simple: true }), DATASET_VERSION);
      assert.deepEqual(ledgerAgainstRebuild(upgraded).now, before);
      assert.deepEqual(ledgerDiscrepancies(upgraded), []);
      // Deletes and updates are counted by triggers; inserts by the sink (decision 0040: version 5 dropped those triggers;
      // decision 0069: the kept tool calls and row counts, version 11, the same way).
      assert.deepEqual(upgraded.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name").pluck().all(), [
        'messages_activity_delete', 'messages_activity_update', 'parts_activity_delete', 'parts_activity_update_new', 'parts_activity_update_old',
        'parts_tool_calls_delete', 'parts_tool_calls_update_new', 'parts_tool_calls_update_old',
        ...COUNTED_TABLES.map((t) => `row_counts_${t}_delete`).sort(),
      ]);
    } finally {
      upgraded.close();
    }
  } finally {
    rig.cleanup();
    cleanup();
  }
});

test('a version-3 dataset upgrades to the latest: the per-row insert triggers go (the sink counts what it inserts), the counts stay', () => {
  const { dir, cleanup } = tempDir();
  const rig = forwarderRig([copyFixture('basic', dir)], { dir, timeZone: 'UTC' });
  try {
    rig.forwarder.backfill();
    const before = ledgerAgainstRebuild(dbOf(rig)).now;
    rig.forwarder.close();
    const db = new Database(join(rig.home, 'hermetic.db'));
    db.exec("CREATE TRIGGER messages_activity_insert AFTER INSERT ON messages BEGIN SELECT 1; END");
    db.exec("CREATE TRIGGER parts_activity_insert AFTER INSERT ON parts BEGIN SELECT 1; END");
    db.pragma('user_version = 3');
    db.close();
    const upgraded = openDataset(rig.home, { timeZone: 'UTC' });
    try {
      assert.equal(upgraded.pragma('user_version', { simple: true }), DATASET_VERSION);
      assert.deepEqual(upgraded.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%_insert'").pluck().all(), []);
      assert.deepEqual(ledgerAgainstRebuild(upgraded).now, before);
    } finally {
      upgraded.close();
    }
  } finally {
    rig.cleanup();
    cleanup();
  }
});

test('property: random stores and random changes between ticks — the ledger adds up and equals a rebuild after each', () => {
  const op = fc.oneof(
    fc.record({ kind: fc.constant('turn' as const), s: fc.nat(3), n: fc.integer({ min: 1, max: 3 }), gap: fc.integer({ min: 1, max: 30000 }), input: fc.nat(5000), cost: fc.double({ min: 0, max: 2, noNaN: true }), model: fc.constantFrom('gpt-5', 'claude', null), billed: fc.boolean() }),
    fc.record({ kind: fc.constant('absolute' as const), s: fc.nat(3), input: fc.nat(5000), calls: fc.nat(9) }),
    fc.record({ kind: fc.constant('aux' as const), s: fc.nat(3), task: fc.constantFrom('vision', 'compression', 'title_generation'), input: fc.nat(900) }),
    fc.record({ kind: fc.constant('retry' as const), s: fc.nat(3) }),
    fc.record({ kind: fc.constant('delete' as const), s: fc.nat(3) }),
    fc.record({ kind: fc.constant('tick' as const) }),
  );
  // Newer Hermes's per-call table (decision 0112): never, or from some step on (an upgraded store: the calls before it
  // have days or nothing, those after it a row each).
  const eventsFrom = fc.oneof(fc.constant(null), fc.nat(14));
  fc.assert(fc.property(fc.constantFrom('UTC', 'Europe/Berlin', 'Asia/Kathmandu', 'America/New_York'), fc.array(op, { minLength: 1, maxLength: 14 }), eventsFrom, (timeZone, ops, upgradeAt) => {
    live(({ w: initial, clock, rig, db }) => {
      let w = initial;
      const ids: string[] = [];
      const session = (k: number) => {
        while (ids.length <= k) ids.push(w.createSession({ source: ids.length % 2 ? 'telegram' : 'cli', model: 'gpt-5' }));
        return ids[k]!;
      };
      const exists = (id: string) => w.db.prepare('SELECT 1 FROM sessions WHERE id = ?').get(id) !== undefined;
      let first = true;
      for (const [step, o] of ops.entries()) {
        if (step === upgradeAt) {
          addUsageEvents(db);
          w = new StateDbWriter(db, { now: () => clock.t, ids: createIdSource(`ledger-upgraded-${step}`) });
        }
        if (o.kind === 'tick') {
          if (first) rig.forwarder.backfill();
          else rig.forwarder.forwardOnce();
          first = false;
          holds(rig, `${timeZone} after ${step} steps`);
          continue;
        }
        const id = session(o.s);
        if (!exists(id)) continue;
        if (o.kind === 'turn') {
          for (let i = 0; i < o.n; i++) {
            clock.t += o.gap;
            w.appendMessages(id, [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }]);
          }
          // The call's usage is reported a while after its messages (its hour may be another).
          clock.t += o.gap;
          w.updateTokenCounts(id, { input_tokens: o.input, estimated_cost_usd: o.cost, actual_cost_usd: o.billed ? o.cost / 2 : null, model: o.model }, 'delta');
        } else if (o.kind === 'absolute') {
          w.updateTokenCounts(id, { input_tokens: o.input, api_calls: o.calls }, 'absolute');
        } else if (o.kind === 'aux') {
          w.recordAuxiliaryUsage(id, o.task, { model: 'flash', input_tokens: o.input, estimated_cost_usd: o.input / 1e6 });
        } else if (o.kind === 'retry') {
          const rows = w.db.prepare('SELECT role, content, timestamp FROM messages WHERE session_id = ? ORDER BY id').all(id) as { role: string; content: string; timestamp: number }[];
          if (rows.length > 1) w.replaceMessages(id, rows.slice(0, -1));
        } else w.deleteSession(id);
      }
      rig.forwarder.forwardOnce();
      holds(rig, `${timeZone} at the end`);
      // Every call the store recorded of a session still there is in the dataset, at its quarter hour.
      if (upgradeAt !== null && upgradeAt < ops.length) {
        const sums = (sql: string, from: Database.Database) => from.prepare(sql).all();
        assert.deepEqual(
          sums('SELECT session_id, CAST(recorded_at / 900 AS INTEGER) AS quarter, task, SUM(input_tokens) AS input FROM session_model_usage_events WHERE session_id IN (SELECT id FROM sessions) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3', db),
          // (A session Hermes deleted keeps its rows in the dataset, as its other rows.)
          sums('SELECT session_id, quarter, task, SUM(input_tokens) AS input FROM call_usage WHERE session_id IN (SELECT session_id FROM sessions WHERE removed_from_store = 0) GROUP BY 1, 2, 3 ORDER BY 1, 2, 3', dbOf(rig) as unknown as Database.Database),
        );
      }
    }, { timeZone });
  }), { numRuns: 25 });
});

test('a generated store with newer Hermes\'s per-call table: every call is kept by quarter hour, and the ledger adds up in any zone', () => {
  const { dir, cleanup } = tempDir();
  const g = generatedStore({ out: join(dir, 'hermes', 'state.db'), sessions: 40, seed: 'calls', usageEvents: true });
  const store = new Database(g.path, { readonly: true });
  try {
    for (const timeZone of ['UTC', 'Asia/Kathmandu']) {
      const rig = forwarderRig([g.path], { dir, home: join(dir, timeZone.replace('/', '-')), timeZone });
      try {
        assert.equal(rig.forwarder.backfill()[0]!.error, null);
        holds(rig, `calls ${timeZone}`);
        const sql = (from: string, quarter: string) => `SELECT session_id, ${quarter} AS quarter, task, SUM(api_call_count) AS calls, SUM(input_tokens) AS input FROM ${from} GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`;
        const want = store.prepare(sql('session_model_usage_events', 'CAST(recorded_at / 900 AS INTEGER)')).all();
        assert.ok(want.length > 40);
        assert.deepEqual(rig.query(sql('call_usage', 'quarter')), want);
      } finally {
        rig.cleanup();
      }
    }
  } finally {
    store.close();
    cleanup();
  }
});

test('a store written by newer Hermes: `report --by hour` puts usage at the hours of its calls, not of its messages (decision 0112)', async () => {
  const { dir, cleanup } = tempDir();
  const path = join(dir, 'hermes', 'state.db');
  mkdirSync(join(dir, 'hermes'));
  const H = (h: number, m = 0) => Date.UTC(2026, 6, 1, h, m) / 1000;
  const clock = { t: H(10) };
  const db = createStore({ path, level: LATEST_LEVEL, journal: 'wal' });
  addUsageEvents(db);
  const w = new StateDbWriter(db, { now: () => clock.t, ids: createIdSource('ledger-events') });
  let rig = forwarderRig([path], { dir, timeZone: 'UTC', now: () => clock.t * 1000 });
  try {
    const a = w.createSession({ source: 'cli', model: 'gpt-5' });
    clock.t = H(10, 5);
    w.appendMessages(a, [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }]);
    // Its call was reported three hours later (a long turn, or the background writer's queue), its title an hour after.
    clock.t = H(13, 10);
    w.updateTokenCounts(a, { input_tokens: 1000, estimated_cost_usd: 0.01, model: 'gpt-5', billing_provider: 'openai' }, 'delta');
    clock.t = H(14, 20);
    w.recordAuxiliaryUsage(a, 'title_generation', { model: 'flash', input_tokens: 50 });
    // A gateway session in absolute mode: no call recorded, so its messages place it.
    const b = w.createSession({ source: 'telegram', model: 'Hermes-4' });
    clock.t = H(11, 30);
    w.appendMessages(b, [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }]);
    clock.t = H(16);
    w.updateTokenCounts(b, { input_tokens: 300, api_calls: 1 }, 'absolute');
    assert.equal(rig.forwarder.backfill()[0]!.error, null);
    holds(rig, 'newer Hermes');
    const { value, out } = await printed(() => reportCommand(['--home', rig.home, '--period', 'all', '--by', 'hour', '--utc', '--json'], { now: () => Date.UTC(2026, 6, 2) }));
    assert.equal(value, 0);
    const rows = (JSON.parse(out.join('\n')) as { rows: Row[] }).rows.map((r) => ({ hour: r.hour, input_tokens: r.input_tokens }));
    assert.deepEqual(rows, [
      { hour: '2026-07-01 11:00', input_tokens: 300 },
      { hour: '2026-07-01 13:00', input_tokens: 1000 },
      { hour: '2026-07-01 14:00', input_tokens: 50 },
    ]);
    // A dataset that forwarded this store before the forwarder read its calls (dataset version 13: no call rows, usage
    // marks without the calls' mark) gets them on the next forwarder's first pass, and its ledger is placed by them.
    const calls = rig.query('SELECT * FROM call_usage ORDER BY session_id, quarter, task');
    const ledger = rig.query('SELECT * FROM usage_ledger ORDER BY session_id, at, task, basis');
    assert.equal(calls.length, 2);
    rig.cleanup();
    const data = new Database(join(rig.home, 'hermetic.db'));
    // (Its tails' digest of the time rows was of the days alone.)
    data.exec(`DELETE FROM call_usage; UPDATE session_cursors SET usage_mark = replace(usage_mark, '${CALLS_MARK}', ''), tail = json_set(tail, '$.daily', 'days');
      UPDATE stores SET usage_stamp = replace(usage_stamp, '${CALLS_MARK}', '')`);
    new LedgerWriter(data, 'UTC').rebuildAll();
    assert.notDeepEqual(data.prepare('SELECT * FROM usage_ledger ORDER BY session_id, at, task, basis').all(), ledger);
    data.close();
    rig = forwarderRig([path], { dir, home: rig.home, timeZone: 'UTC', now: () => clock.t * 1000 });
    assert.equal(rig.forwarder.forwardOnce()[0]!.error, null);
    assert.deepEqual(rig.query('SELECT * FROM call_usage ORDER BY session_id, quarter, task'), calls);
    assert.deepEqual(rig.query('SELECT * FROM usage_ledger ORDER BY session_id, at, task, basis'), ledger);
    holds(rig, 'newer Hermes, upgraded dataset');
  } finally {
    db.close();
    rig.cleanup();
    cleanup();
  }
});

test('the worked SQL in docs/reference/dataset.md runs, and its check gives the same number on both sides', () => {
  const { dir, cleanup } = tempDir();
  const rig = forwarderRig([copyFixture('usage', dir), copyFixture('channels', dir)], { dir, timeZone: 'UTC' });
  try {
    rig.forwarder.backfill();
    const doc = readFileSync('docs/reference/dataset.md', 'utf8');
    const block = /## Reading usage: the ledger[\s\S]*?```sql\n([\s\S]*?)```/.exec(doc)![1]!;
    const statements = block.replace(/--.*$/gm, '').split(';').map((s) => s.trim()).filter(Boolean);
    assert.ok(statements.length >= 5);
    for (const sql of statements) rig.query(sql);
    const [check] = rig.query<Row>(statements[statements.length - 1]!);
    assert.equal(check!.ledger, check!.counters);
  } finally {
    rig.cleanup();
    cleanup();
  }
});
