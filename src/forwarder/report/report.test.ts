// `usageReport` and `hermetic report` in process, over a month of generated history ending "now": the rows of any
// grouping add up to the totals, and the totals to the session counters plus the auxiliary rows; windows are local
// days of the ledger's zone; --top keeps the sums; every refusal has its code and sentence; the terminal view fits the
// width it is given (80 when piped), never cuts a day, week or month, and is coloured only when asked; a filter that
// empties the window says so.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generate } from '../../state-db/generate/index.js';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { generatedStore } from '../../state-db/testing/generated.js';
import { reportCommand } from '../cli/report.js';
import { terminalWidth } from './wrap.js';
import { DATASET_VERSION } from '../dataset/columns.js';
import { Zone } from '../ledger/zone.js';
import { forwarderRig } from '../testing/index.js';
import { changeText, DIMENSIONS, formatCost, hourLabel, formatTokens, MEASURES, parseFilters, previousWindow, renderSummary, renderTable, resolveWindow, usageReport, type UsageReport } from './index.js';
import { displayWidth } from './wrap.js';
import { sqliteDialect } from './dialect.js';
import { describeFilterMiss, planFilterMiss } from './filter-miss.js';
import { localTimeSql, runSqlite, WEEKDAYS } from './query.js';
import { printed } from '../../shared/testing/console.js';

const NOW = Date.UTC(2026, 6, 15, 10, 30) / 1000; // Wednesday 2026-07-15, 12:30 in Berlin
const ZONE = 'Europe/Berlin';
let dir: string;
let home: string;
let db: Database.Database;

/** Runs `fn` on a copy of the dataset (VACUUM INTO a temporary folder) that it may change, then removes the copy. */
function withCopy(prefix: string, fn: (copy: Database.Database) => void): void {
  const { dir: copyDir, cleanup } = tempDir(prefix);
  const path = join(copyDir, 'copy.db');
  db.exec(`VACUUM INTO '${path.replace(/'/g, "''")}'`);
  const copy = new Database(path);
  try {
    fn(copy);
  } finally {
    copy.close();
    cleanup();
  }
}
let cleanup: () => void;

before(() => {
  ({ dir, cleanup } = tempDir('hermetic-report-'));
  const g = generatedStore({ out: join(dir, 'hermes', 'state.db'), sessions: 150, messages: 3000, seed: 'report', end: NOW, days: 30 });
  const rig = forwarderRig([g.path], { dir, timeZone: ZONE });
  rig.forwarder.backfill();
  rig.forwarder.close();
  home = rig.home;
  db = new Database(join(home, 'hermetic.db'), { readonly: true });
});
after(() => {
  db.close();
  cleanup();
});

const ADDITIVE = MEASURES.filter((m) => m !== 'sessions');
const near = (a: number | null, b: number | null, what: string) => {
  if (a === null || b === null) return assert.equal(a, b, what);
  assert.ok(Math.abs(a - b) <= 1e-8 * Math.max(1, Math.abs(b)), `${what}: ${a} != ${b}`);
};

/** The rows add up to the totals, measure by measure. */
function addsUp(r: UsageReport, label: string): void {
  for (const m of ADDITIVE) {
    const values = r.rows.map((row) => row[m] as number | null);
    const sum = values.every((v) => v === null) ? null : values.reduce<number>((t, v) => t + (v ?? 0), 0);
    if (m === 'actual_cost_usd' && sum === null) assert.equal(r.totals[m], null, `${label} ${m}`);
    else if (m.endsWith('_usd')) near(sum, r.totals[m], `${label} ${m}`);
    else assert.equal(sum, r.totals[m], `${label} ${m}`);
  }
}

describe('formatTokens', () => {
  it('three significant digits and a unit up to T, at most five characters below 10^15, an exponent past it', () => {
    const cases: [number, string][] = [
      [999, '999'], [12_345, '12.3k'], [999_499, '999k'], [999_500, '1.00M'], [4_504_000_000, '4.50B'],
      [99_990_000_000, '100B'], [999_499_999_999, '999B'], [999_500_000_000, '1.00T'], [9_907_199_254_740, '9.91T'],
      [999_499_999_999_999, '999T'], [2 ** 53 - 1, '9.01e+15'],
    ];
    assert.deepEqual(cases.map(([v]) => formatTokens(v)), cases.map(([, s]) => s));
  });
});

describe('usageReport', () => {
  it('gives exactly { period, by, totals, rows }, the totals equal to the counters plus auxiliary rows', () => {
    const r = usageReport(db, {});
    assert.deepEqual(Object.keys(r), ['period', 'by', 'totals', 'rows']);
    assert.deepEqual(Object.keys(r.totals), [...MEASURES, 'tool_calls', 'tool_errors']);
    assert.deepEqual(r.period, { since: null, until: null });
    assert.deepEqual(r.rows.length, 1);
    const want = db.prepare(`SELECT (SELECT SUM(input_tokens) FROM sessions) + (SELECT TOTAL(input_tokens) FROM model_usage WHERE task <> '') AS input,
      (SELECT SUM(api_call_count) FROM sessions) + (SELECT TOTAL(api_call_count) FROM model_usage WHERE task <> '') AS calls,
      (SELECT COUNT(*) FROM sessions) AS sessions, (SELECT COUNT(*) FROM parts WHERE part_type = 'tool_call') AS tools`).get() as Record<string, number>;
    assert.deepEqual([r.totals.input_tokens, r.totals.api_calls, r.totals.sessions, r.totals.tool_calls], [want.input, want.calls, want.sessions, want.tools]);
    near(r.totals.cost_usd, (db.prepare('SELECT TOTAL(COALESCE(actual_cost_usd, estimated_cost_usd)) FROM sessions').pluck().get() as number)
      + (db.prepare("SELECT TOTAL(CASE WHEN actual_cost_usd > 0 OR cost_status = 'actual' THEN actual_cost_usd ELSE estimated_cost_usd END) FROM model_usage WHERE task <> ''").pluck().get() as number), 'cost shown');
  });

  it('the rows of every dimension, and of pairs of them, add up to the totals', () => {
    const usage = DIMENSIONS.filter((d) => d !== 'tool' && d !== 'command');
    for (const d of usage) addsUp(usageReport(db, { by: [d] }), d);
    for (const [a, b] of [['day', 'model'], ['week', 'task'], ['month', 'source'], ['project', 'provider'], ['profile', 'session']] as const) {
      addsUp(usageReport(db, { by: [a, b], since: NOW - 10 * 86400, until: NOW }), `${a}+${b}`);
    }
    const byDay = usageReport(db, { by: ['day'] });
    assert.ok(byDay.rows.length >= 28, `${byDay.rows.length} days`);
    assert.deepEqual(byDay.rows.map((r) => r.day), [...byDay.rows.map((r) => r.day)].sort(), 'days in order');
    const tasks = usageReport(db, { by: ['task'] }).rows.map((r) => r.task);
    assert.ok(tasks.includes('main') && tasks.includes('title_generation'), tasks.join());
  });

  it('a bounded list of any grouping (the dashboard\'s /api/report, decision 0120) stops at its bytes: the rows a top of as many keeps, the rest summed into "other"', () => {
    for (const by of [['hour'], ['day', 'model'], ['weekday', 'source'], ['tool', 'day']]) {
      const whole = usageReport(db, { by });
      const bounded = usageReport(db, { by, bounds: { titleCharacters: 256, bytes: 3000 } });
      const kept = bounded.stopped?.rows ?? 0;
      assert.ok(kept >= 1 && kept < whole.rows.length, `${by}: ${kept} rows kept of ${whole.rows.length}`);
      assert.deepEqual(bounded.stopped, { rows: kept, bytes: 3000 });
      // The rows kept reach the bytes, and one fewer would not have; they are those a top of as many keeps.
      const sizes = bounded.rows.filter((r) => r.other_rows === undefined).map((r) => Buffer.byteLength(JSON.stringify(r)));
      assert.ok(sizes.reduce((a, b) => a + b, 0) >= 3000 && sizes.slice(0, -1).reduce((a, b) => a + b, 0) < 3000, `${by}: ${sizes}`);
      assert.deepEqual(bounded.rows, usageReport(db, { by, top: kept }).rows, String(by));
      if (!by.includes('tool')) addsUp(bounded, `${by} bounded`);
      assert.equal(usageReport(db, { by, bounds: { titleCharacters: 256, bytes: 100_000_000 } }).stopped, undefined, `${by}: room for all`);
    }
  });

  it('property: any one or two dimensions (the newest among them), any window, zone, --top and filter, tree included — the rows add up, and a --top keeps the whole report\'s rows (decision 0117)', () => {
    const trees = usageReport(db, { by: ['tree'] }).rows.map((r) => String(r.tree));
    const models = usageReport(db, { by: ['model'] }).rows.map((r) => String(r.model));
    const dims = fc.constantFrom(...DIMENSIONS.filter((d) => d !== 'machine'));
    const request = fc.record({
      by: fc.uniqueArray(dims, { minLength: 1, maxLength: 2 }),
      top: fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }),
      from: fc.integer({ min: -2, max: 31 }), days: fc.option(fc.integer({ min: 0, max: 33 }), { nil: undefined }),
      utc: fc.boolean(),
      filter: fc.option(fc.oneof(fc.record({ tree: fc.subarray(trees, { minLength: 1, maxLength: 3 }) }), fc.record({ model: fc.subarray(models, { minLength: 1, maxLength: 2 }) }),
        fc.record({ tree: fc.subarray(trees, { minLength: 1, maxLength: 2 }), model: fc.subarray(models, { minLength: 1, maxLength: 3 }) })), { nil: undefined }),
    // Tool calls and terminal commands (one of them) group by neither model, provider nor task.
    }).filter((r) => {
      const calls = r.by.filter((d) => d === 'tool' || d === 'command').length;
      return calls === 0 || (calls === 1 && !r.by.some((d) => ['model', 'provider', 'task'].includes(d)));
    });
    fc.assert(fc.property(request, (q) => {
      const since = NOW - q.from * 86400;
      const until = q.days === undefined ? null : since + q.days * 86400;
      const base = { by: q.by, since, until, utc: q.utc, ...(q.filter ? { filter: q.filter } : {}) };
      const whole = usageReport(db, base);
      const label = JSON.stringify(q);
      const tools = q.by.includes('tool');
      const commands = q.by.includes('command');
      const total = (r: UsageReport, m: string) => r.rows.reduce((n, x) => n + Number(x[m] ?? 0), 0);
      const sums = (r: UsageReport, l: string) => {
        if (tools) assert.equal(total(r, 'tool_calls'), r.totals.tool_calls, l);
        else if (commands) for (const m of ['tool_calls', 'tool_errors', 'timed_calls'] as const) assert.equal(total(r, m), r.totals.commands![m], `${l} ${m}`);
        else if (r.rows.length > 0) addsUp(r, l);
        else assert.deepEqual([r.totals.sessions, r.totals.api_calls, r.totals.cost_usd], [0, 0, 0], `${l}: no rows, nothing counted`);
      };
      sums(whole, label);
      // A session is in one tree, and has one profile, source and project: by those alone, the rows' sessions are the
      // window's, with or without --top (whose rest then counts its sessions by subtraction: decision 0174).
      const facts = q.by.every((d) => ['tree', 'session', 'profile', 'source', 'project'].includes(d));
      if (facts) assert.equal(total(whole, 'sessions'), whole.totals.sessions, label);
      if (q.top === undefined) return;
      const cut = usageReport(db, { ...base, top: q.top });
      const keyOf = (r: Record<string, unknown>) => JSON.stringify(q.by.map((d) => (d === 'session' ? r.session_id : r[d])));
      const rows = new Map(whole.rows.map((r) => [keyOf(r), r]));
      const kept = cut.rows.filter((r) => r.other_rows === undefined);
      assert.equal(kept.length, Math.min(q.top, whole.rows.length), label);
      for (const r of kept) assert.deepEqual(r, rows.get(keyOf(r)), `${label}: a kept row is the whole report's`);
      sums(cut, `${label} --top`);
      if (facts) assert.equal(total(cut, 'sessions'), cut.totals.sessions, `${label} --top: sessions`);
      const other = cut.rows.find((r) => r.other_rows !== undefined);
      assert.equal(other?.other_rows, whole.rows.length > q.top ? whole.rows.length - q.top : undefined, label);
    }), { numRuns: 150 });
  });

  it('by tree: each session under the first session of what started it; a reset, a missing parent and a loop end the climb', () => {
    // A copy of the dataset whose lineage the test sets.
    withCopy('hermetic-report-tree-', (t) => {
      const ids = (t.prepare('SELECT DISTINCT session_id FROM usage_ledger ORDER BY session_id LIMIT 9').pluck().all() as string[]);
      const [s0, s1, s2, s3, s4, s5, s6, s7, s8] = ids as [string, string, string, string, string, string, string, string, string];
      // s8's usage is in the ledger, its session not in the dataset: a tree of its own, by its id (decision 0117).
      t.prepare('DELETE FROM sessions WHERE session_id = ?').run(s8);
      t.exec('UPDATE sessions SET parent_session_id = NULL, lineage_kind = NULL');
      const link = t.prepare('UPDATE sessions SET parent_session_id = ?, lineage_kind = ? WHERE session_id = ?');
      // s0 ← s1 (a subagent) ← s2 (its continuation after compression); s0 ← s3 by /reset, s3 ← s4 (a branch);
      // s5's parent is not in the dataset; s6 and s7 are each other's parent.
      for (const [parent, kind, child] of [[s0, 'delegate', s1], [s1, 'compression', s2], [s0, 'reset', s3], [s3, 'branch', s4], ['gone', 'delegate', s5], [s7, 'child', s6], [s6, 'child', s7]]) link.run(parent, kind, child);
      t.prepare('UPDATE sessions SET title = ? WHERE session_id = ?').run('the whole task', s0);

      const r = usageReport(t, { by: ['tree'] });
      addsUp(r, 'trees');
      const rowOf = (id: string) => r.rows.find((x) => x.tree === id);
      const sessionsIn = (id: string) => rowOf(id)?.sessions;
      assert.deepEqual([sessionsIn(s0), sessionsIn(s3), sessionsIn(s5), sessionsIn(s6), sessionsIn(s7), sessionsIn(s8)], [3, 2, 1, 1, 1, 1]);
      assert.equal(rowOf(s0)!.tree_title, 'the whole task');
      for (const id of [s1, s2, s4]) assert.equal(rowOf(id), undefined, `${id} is in a tree above it`);
      const input = (ids: string[]) => (t.prepare(`SELECT SUM(input_tokens) FROM usage_ledger WHERE session_id IN (${ids.map(() => '?').join(', ')})`).pluck().get(...ids) as number);
      assert.equal(rowOf(s0)!.input_tokens, input([s0, s1, s2]));
      assert.equal(rowOf(s3)!.input_tokens, input([s3, s4]));
      // Every other session is a tree of its own; a session counts once.
      assert.equal(r.rows.length, Number(r.totals.sessions) - 3);
      assert.equal(r.rows.reduce((n, x) => n + Number(x.sessions), 0), r.totals.sessions);
      // With --top, and beside another dimension, the rows still add up.
      const top = usageReport(t, { by: ['tree'], top: 2 });
      addsUp(top, 'top trees');
      assert.equal(top.rows.at(-1)!.other_rows, r.rows.length - 2);
      // A session is in one tree: the rest holds the sessions the two kept do not.
      assert.equal(top.rows.reduce((n, x) => n + Number(x.sessions), 0), top.totals.sessions);
      addsUp(usageReport(t, { by: ['tree', 'model'], top: 5 }), 'trees by model');
      const tools = usageReport(t, { by: ['tool', 'tree'] });
      assert.equal(tools.rows.reduce((n, x) => n + Number(x.tool_calls), 0), tools.totals.tool_calls);

      // --filter tree=ID keeps exactly what the row ID holds, the loop's trees and tool calls included.
      const toolsOf = (id: string) => tools.rows.filter((x) => x.tree === id).reduce((n, x) => n + Number(x.tool_calls), 0);
      for (const row of r.rows) {
        const one = usageReport(t, { filter: { tree: [String(row.tree)] } });
        for (const m of MEASURES) near(Number(one.totals[m] ?? 0), Number(row[m] ?? 0), `${m} of the tree ${String(row.tree)}`);
        assert.equal(one.totals.tool_calls, toolsOf(String(row.tree)), `tool calls of the tree ${String(row.tree)}`);
      }
      const both = usageReport(t, { filter: { tree: [s0, s3] }, by: ['tree'] });
      assert.deepEqual(both.rows.map((x) => [x.tree, x.sessions]).sort(), [[s0, 3], [s3, 2]].sort());
      // A session inside a tree names none; the miss says whose it is.
      assert.equal(usageReport(t, { filter: { tree: [s2] } }).totals.sessions, 0);
      const miss = runSqlite(t, planFilterMiss({ filter: { tree: [s2, s4, 'nonexistent'] } }, sqliteDialect()));
      assert.deepEqual(miss?.columns[0]?.within, [{ session: s2, tree: s0 }, { session: s4, tree: s3 }]);
      const said = describeFilterMiss(miss!, 200);
      assert.match(said, new RegExp(`Session ${s2} is part of the tree of ${s0}, which started it: --filter tree=${s0}\\.`));
      assert.match(said, /"hermetic report --by tree" lists the window's trees\./);
    });
  });

  it('by tree: a chain of compressions longer than any cap is one tree, as the session page counts it; a loop of three is three trees (decision 0117)', () => {
    withCopy('hermetic-report-chain-', (t) => {
      const ids = t.prepare('SELECT DISTINCT session_id FROM usage_ledger ORDER BY session_id').pluck().all() as string[];
      assert.ok(ids.length >= 110, `${ids.length} sessions`);
      t.exec('UPDATE sessions SET parent_session_id = NULL, lineage_kind = NULL');
      const link = t.prepare('UPDATE sessions SET parent_session_id = ?, lineage_kind = ? WHERE session_id = ?');
      // A gateway chat compressed 99 times: 100 sessions, each the continuation of the one before.
      const chain = ids.slice(0, 100);
      for (let i = 1; i < chain.length; i++) link.run(chain[i - 1], 'compression', chain[i]);
      // Three sessions each the parent of the next, round (a damaged store), and a child of one of them.
      const [a, b, c, below] = ids.slice(100, 104) as [string, string, string, string];
      for (const [parent, child] of [[a, b], [b, c], [c, a], [a, below]]) link.run(parent, 'delegate', child);

      const r = usageReport(t, { by: ['tree'] });
      addsUp(r, 'trees of a long chain');
      const rowOf = (id: string) => r.rows.find((x) => x.tree === id);
      assert.equal(rowOf(chain[0]!)?.sessions, 100, 'the whole chain under its first session');
      for (const id of chain.slice(1)) assert.equal(rowOf(id), undefined, `${id} is in the chain's tree`);
      // The loop has no first session: each of its sessions, and what hangs below it, is a tree of its own.
      for (const id of [a, b, c, below]) assert.equal(rowOf(id)?.sessions, 1, `${id} alone`);
      // The filter keeps what the row holds; the last of the chain names its first session.
      near(usageReport(t, { filter: { tree: [chain[0]!] } }).totals.cost_usd, rowOf(chain[0]!)!.cost_usd as number, 'the chain filtered');
      const miss = runSqlite(t, planFilterMiss({ filter: { tree: [chain[99]!, chain[50]!] } }, sqliteDialect()));
      assert.deepEqual(miss?.columns[0]?.within, [{ session: chain[99], tree: chain[0] }, { session: chain[50], tree: chain[0] }]);
    });
  });

  it('weekday and hour of day: each cell under its local weekday and hour as the zone names them, sessions counted once; across a change of clocks and in UTC', () => {
    const { dir: dstDir, cleanup: done } = tempDir('hermetic-report-cycle-');
    // 30 days that hold Berlin's change of clocks (2026-10-25).
    const end = Date.UTC(2026, 10, 5, 12) / 1000;
    const g = generatedStore({ out: join(dstDir, 'hermes', 'state.db'), sessions: 60, messages: 900, seed: 'report-cycle', end, days: 30 });
    const rig = forwarderRig([g.path], { dir: dstDir, timeZone: ZONE });
    rig.forwarder.backfill();
    rig.forwarder.close();
    const d = new Database(join(rig.home, 'hermetic.db'), { readonly: true });
    try {
      const cases: [Database.Database, number, number][] = [[db, NOW - 30 * 86400, NOW], [d, end - 30 * 86400, end]];
      for (const [data, since, until] of cases) {
        for (const utc of [false, true]) {
          const zone = new Zone(utc ? 'UTC' : ZONE);
          const ledger = data.prepare(`SELECT at, store, session_id, ${ADDITIVE.join(', ')} FROM usage_ledger WHERE at >= ? AND at < ?`).all(Math.ceil(since), Math.ceil(until)) as Record<string, number | string | null>[];
          const labels = {
            weekday: (at: number) => WEEKDAYS[(new Date(`${zone.iso(at).slice(0, 10)}T00:00:00Z`).getUTCDay() + 6) % 7]!,
            hour_of_day: (at: number) => `${zone.iso(at).slice(11, 13)}:00`,
          };
          for (const dim of ['weekday', 'hour_of_day'] as const) {
            const r = usageReport(data, { since, until, utc, by: [dim] });
            addsUp(r, `${dim}${utc ? ' utc' : ''}`);
            // The oracle: the ledger's rows, each named in JavaScript.
            const want = new Map<string, { sessions: Set<string>; sums: Record<string, number | null> }>();
            for (const row of ledger) {
              const key = labels[dim](Number(row.at));
              const w = want.get(key) ?? { sessions: new Set<string>(), sums: Object.fromEntries(ADDITIVE.map((m) => [m, null])) };
              w.sessions.add(`${String(row.store)}\u0000${String(row.session_id)}`);
              for (const m of ADDITIVE) if (row[m] !== null) w.sums[m] = (w.sums[m] ?? 0) + Number(row[m]);
              want.set(key, w);
            }
            const order = dim === 'weekday' ? [...WEEKDAYS] : Array.from({ length: 24 }, (_, h) => `${String(h).padStart(2, '0')}:00`);
            assert.deepEqual(r.rows.map((x) => x[dim]), order.filter((k) => want.has(k)), `${dim} rows in their order`);
            for (const row of r.rows) {
              const w = want.get(String(row[dim]))!;
              assert.equal(row.sessions, w.sessions.size, `${dim} ${String(row[dim])} sessions`);
              for (const m of ADDITIVE) near(row[m] as number | null, m === 'actual_cost_usd' ? w.sums[m]! : w.sums[m] ?? 0, `${dim} ${String(row[dim])} ${m}`);
            }
          }
          // Beside another dimension and with --top, still adding up; tools too.
          addsUp(usageReport(data, { since, until, utc, by: ['hour_of_day', 'model'], top: 5 }), 'hour of day by model');
          const tools = usageReport(data, { since, until, utc, by: ['tool', 'weekday'] });
          assert.equal(tools.rows.reduce((n, x) => n + Number(x.tool_calls), 0), tools.totals.tool_calls);
        }
      }
      // The window held both offsets: the CASE over the change was taken.
      assert.ok(new Set(d.prepare('SELECT at FROM usage_ledger').pluck().all().map((at) => new Zone(ZONE).offsetAt(Number(at)))).size === 2);
    } finally {
      d.close();
      done();
    }
  });

  it('weekday and hour of day at the edges: the normaliser\'s first and last hours (2000, 2100), and a cell before local 1970 (hand-edited) west of UTC (decision 0117)', () => {
    withCopy('hermetic-report-epoch-', (t) => {
      // A ledger built in New York, three sessions' cells moved to the epoch's first eight hours (1969-12-31 19:00 to 02:00 local).
      t.prepare("UPDATE dataset_meta SET value = 'America/New_York' WHERE key = 'ledger_time_zone'").run();
      const ids = t.prepare('SELECT DISTINCT session_id FROM usage_ledger ORDER BY session_id LIMIT 9').pluck().all() as string[];
      // Then three at the normaliser's first hours (1999-12-31 19:00 local on) and three at its last (2099-12-31 evening).
      const [first, last] = [946684800, 4102444800 - 8 * 3600];
      for (const table of ['usage_ledger', 'tool_usage']) {
        for (const [from, at] of [[0, 0], [3, first], [6, last]] as const) {
          t.prepare(`UPDATE ${table} SET at = ? + (at % 86400) / 3600 % 8 * 3600 WHERE session_id IN (?, ?, ?)`).run(at, ...ids.slice(from, from + 3));
        }
      }
      const zone = new Zone('America/New_York');
      const labels = {
        weekday: (at: number) => WEEKDAYS[(new Date(`${zone.iso(at).slice(0, 10)}T00:00:00Z`).getUTCDay() + 6) % 7]!,
        hour_of_day: (at: number) => `${zone.iso(at).slice(11, 13)}:00`,
      };
      const ledger = t.prepare('SELECT at, input_tokens FROM usage_ledger').all() as { at: number; input_tokens: number }[];
      assert.ok(ledger.some((x) => x.at < 5 * 3600), 'cells before local midnight of 1970-01-01');
      for (const dim of ['weekday', 'hour_of_day'] as const) {
        const want = new Map<string, number>();
        for (const x of ledger) want.set(labels[dim](x.at), (want.get(labels[dim](x.at)) ?? 0) + x.input_tokens);
        const r = usageReport(t, { by: [dim] });
        addsUp(r, dim);
        assert.deepEqual(new Map(r.rows.map((x) => [String(x[dim]), Number(x.input_tokens)])), want, dim);
        const tools = usageReport(t, { by: ['tool', dim] });
        assert.ok(tools.rows.every((x) => /^(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|[012]\d:00)$/.test(String(x[dim]))), `tools by ${dim}`);
      }
    });
  });

  it('localTimeSql: SQLite\'s local time of a cell equals the zone\'s, on either side of each change (a 30-minute one, one 3½ hours off UTC)', () => {
    const mem = new Database(':memory:');
    try {
      const [lo, hi] = [Date.UTC(2026, 0, 1) / 1000, Date.UTC(2027, 0, 1) / 1000];
      for (const name of ['Europe/Berlin', 'Australia/Lord_Howe', 'America/St_Johns', 'Asia/Kolkata', 'UTC']) {
        const zone = new Zone(name);
        const stmt = mem.prepare(`SELECT ${localTimeSql(zone, lo, hi)} AS v FROM (SELECT @at AS at) l`).pluck();
        const changes = zone.offsetsBetween(lo, hi).map((x) => x.from);
        for (const at of [lo, hi - 900, ...changes.flatMap((c) => [c - 900, c - 1, c, c + 900])]) {
          assert.equal(stmt.get({ at }), at + zone.offsetAt(at), `${name} at ${at}`);
        }
      }
      // A hand-edited cell far past plausible times (1e15) answers at once, with the offset of the nearest bound.
      const far = localTimeSql(new Zone('Europe/Berlin'), 0, 1e15);
      assert.ok(far.split('WHEN').length - 1 <= 2 * 101, 'a century of changes at most');
    } finally {
      mem.close();
    }
  });

  it('by hour: the ledger\'s cells named by their local wall time, in order; a day\'s hours add up to its row; UTC names shift by the offset', () => {
    const since = NOW - 2 * 86400;
    const byHour = usageReport(db, { by: ['hour'], since, until: NOW });
    addsUp(byHour, 'hours');
    const hours = byHour.rows.map((r) => r.hour as string);
    assert.ok(hours.length >= 10 && hours.every((h) => /^2026-07-1[345] \d\d:00$/.test(h)), hours.join());
    assert.deepEqual(hours, [...hours].sort(), 'hours in order');
    // The hours of a day make its row (Berlin's days are whole hours of UTC).
    const byDayHour = usageReport(db, { by: ['day', 'hour'], since, until: NOW });
    for (const day of usageReport(db, { by: ['day'], since, until: NOW }).rows) {
      const mine = byDayHour.rows.filter((r) => r.day === day.day);
      assert.ok(mine.every((r) => String(r.hour).startsWith(String(day.day))), String(day.day));
      near(mine.reduce((t, r) => t + Number(r.cost_usd), 0), Number(day.cost_usd), `${day.day} cost`);
      assert.equal(mine.reduce((t, r) => t + Number(r.input_tokens), 0), day.input_tokens, `${day.day} input`);
    }
    // In July Berlin is two hours ahead of UTC: the same cells, named two hours earlier.
    const utc = usageReport(db, { by: ['hour'], since, until: NOW, utc: true });
    assert.deepEqual(utc.rows.map((r) => r.cost_usd), byHour.rows.map((r) => r.cost_usd));
    const shift = (h: string) => new Date(`${h.replace(' ', 'T')}:00Z`).getTime() / 1000;
    assert.ok(utc.rows.every((r, i) => shift(String(r.hour)) === shift(hours[i]!) - 7200), 'two hours earlier');
    // Tools by hour, and a --top of hours (the costliest, the rest summed).
    const tools = usageReport(db, { by: ['tool', 'hour'], since, until: NOW });
    assert.equal(tools.rows.reduce((t, x) => t + Number(x.tool_calls), 0), tools.totals.tool_calls);
    const top = usageReport(db, { by: ['hour'], since, until: NOW, top: 3 });
    assert.equal(top.rows.length, 4);
    addsUp(top, 'top 3 hours');
  });

  it('hourLabel: a wall hour that happens twice (clocks going back) carries its offset, so each hour\'s key is its own', () => {
    const ny = new Zone('America/New_York');
    const at = Date.UTC(2026, 10, 1, 5) / 1000; // 01:00 EDT on the day New York's clocks go back
    assert.deepEqual([hourLabel(ny, at - 3600), hourLabel(ny, at), hourLabel(ny, at + 3600), hourLabel(ny, at + 7200)],
      ['2026-11-01 00:00', '2026-11-01 01:00-04:00', '2026-11-01 01:00-05:00', '2026-11-01 02:00']);
    assert.equal(hourLabel(new Zone('UTC'), at), '2026-11-01 05:00');
    // India is 5:30 ahead: a UTC hour's cell starts at half past.
    assert.equal(hourLabel(new Zone('Asia/Kolkata'), at), '2026-11-01 10:30');
  });

  it('windows add up over time: [a, b) and [b, c) make [a, c); local days and UTC days both cover the window', () => {
    const a = NOW - 20 * 86400;
    const b = NOW - 7 * 86400;
    const whole = usageReport(db, { since: a, until: NOW });
    const parts = [usageReport(db, { since: a, until: b }), usageReport(db, { since: b, until: NOW })];
    for (const m of ADDITIVE) {
      if (m.endsWith('_usd')) near((parts[0]!.totals[m] ?? 0) + (parts[1]!.totals[m] ?? 0), whole.totals[m] ?? 0, m);
      else assert.equal(Number(parts[0]!.totals[m]) + Number(parts[1]!.totals[m]), whole.totals[m], m);
    }
    addsUp(usageReport(db, { since: a, until: NOW, by: ['day'], utc: true }), 'utc days');
    assert.deepEqual(whole.period, { since: new Zone(ZONE).iso(a), until: new Zone(ZONE).iso(NOW) });
  });

  it('--top keeps the costliest rows and sums the rest into one, so the rows still add up; sessions carry titles', () => {
    const r = usageReport(db, { by: ['session'], top: 5 });
    assert.equal(r.rows.length, 6);
    const other = r.rows[5]!;
    assert.equal(other.session_id, null);
    assert.equal(other.other_rows, r.totals.sessions! - 5);
    addsUp(r, 'top 5 sessions');
    const costs = r.rows.slice(0, 5).map((x) => Number(x.cost_usd));
    assert.deepEqual(costs, [...costs].sort((x, y) => y - x));
    assert.ok(r.rows.slice(0, 5).every((x) => typeof x.session_id === 'string' && 'title' in x));
    assert.ok(r.rows.slice(0, 5).some((x) => typeof x.title === 'string'));
  });

  it('tools: calls and failed results by tool add up to the totals; usage is not attributed to tools', () => {
    const r = usageReport(db, { by: ['tool'] });
    assert.equal(r.rows.reduce((t, x) => t + Number(x.tool_calls), 0), r.totals.tool_calls);
    assert.equal(r.rows.reduce((t, x) => t + Number(x.tool_errors), 0), r.totals.tool_errors);
    assert.ok(r.totals.tool_errors > 0, 'the generator\'s terminal exits 1 now and then');
    assert.ok(r.rows.every((x) => x.cost_usd === null && x.input_tokens === null));
    const byDay = usageReport(db, { by: ['tool', 'day'], top: 3 });
    assert.equal(byDay.rows.reduce((t, x) => t + Number(x.tool_calls), 0), r.totals.tool_calls);
  });

  it('filters: a model\'s totals are its row by model; columns combine; tools by a model are its sessions\' calls', () => {
    const byModel = usageReport(db, { by: ['model'] });
    const [a, b] = byModel.rows.map((r) => r.model as string);
    const only = usageReport(db, { filter: { model: [a!] } });
    const row = byModel.rows[0]!;
    for (const m of ADDITIVE) assert.equal(only.totals[m], row[m], m);
    addsUp(usageReport(db, { filter: { model: [a!, b!] }, by: ['day', 'source'] }), 'two models by day and source');
    const both = usageReport(db, { filter: { model: [a!, b!] } });
    near(both.totals.cost_usd, Number(byModel.rows[0]!.cost_usd) + Number(byModel.rows[1]!.cost_usd), 'two models');
    const cliMain = usageReport(db, { filter: { source: ['cli'], task: ['main'] }, by: ['source', 'task'] });
    assert.deepEqual(cliMain.rows.map((r) => [r.source, r.task]), [['cli', 'main']]);
    const session = usageReport(db, { by: ['session'], top: 1 }).rows[0]!;
    assert.equal(usageReport(db, { filter: { session: [String(session.session_id)] } }).totals.cost_usd, session.cost_usd);
    const calls = db.prepare(`SELECT TOTAL(calls) FROM tool_usage t WHERE EXISTS (SELECT 1 FROM usage_ledger u WHERE u.store = t.store AND u.session_id = t.session_id AND u.model = ?)`).pluck().get(a) as number;
    assert.equal(only.totals.tool_calls, calls);
    const noProject = usageReport(db, { filter: { project: [''] } }).totals.cost_usd;
    near(noProject, Number(usageReport(db, { by: ['project'] }).rows.find((r) => r.project === null)?.cost_usd ?? 0), 'no project');
  });

  it('refuses a filter it does not know, and one without values', () => {
    assert.throws(() => usageReport(db, { filter: { modle: ['x'] } as never }), { code: 'HERMETIC_REPORT_INVALID', message: '"modle" is not a report filter; did you mean "model"?' });
    assert.throws(() => usageReport(db, { filter: { model: [] } }), { code: 'HERMETIC_REPORT_INVALID', message: 'The model filter needs one or more values as text.' });
    assert.throws(() => parseFilters(['model']), { code: 'HERMETIC_REPORT_INVALID', message: '--filter takes COLUMN=VALUE, such as model=gpt-5; got "model".' });
    assert.throws(() => parseFilters(['colour=red']), { code: 'HERMETIC_REPORT_INVALID', message: '--filter: "colour" is not a column a report can be filtered by; use model, provider, profile, source, project, task, session, tree.' });
    assert.deepEqual(parseFilters(['model=a', 'source=cli', 'model=b=c', 'project=']), { model: ['a', 'b=c'], source: ['cli'], project: [''] });
  });

  it('refuses an inverted window, an unknown dimension and tools by model, with HERMETIC_REPORT_INVALID', () => {
    const refused = (request: Parameters<typeof usageReport>[1], message: string) => assert.throws(() => usageReport(db, request), (e: { code: string; message: string }) => {
      assert.deepEqual([e.code, e.message], ['HERMETIC_REPORT_INVALID', message]);
      return true;
    });
    refused({ since: NOW, until: NOW - 60 }, 'The window starts after it ends (since 2026-07-15T10:30:00.000Z, until 2026-07-15T10:29:00.000Z); swap them.');
    refused({ by: ['modle'] }, '"modle" is not a report dimension; did you mean "model"?');
    refused({ by: ['colour'] }, '"colour" is not a report dimension; use hour, day, week, month, weekday, hour_of_day, model, provider, profile, source, project, task, session, tree, tool, command, machine.');
    refused({ by: ['tool', 'model', 'task'] }, 'Tool calls cannot be grouped by model or task: Hermes records usage per call, not per tool; group tools by hour, day, week, month, weekday, hour_of_day, profile, source, project, session, tree, machine.');
    refused({ top: 0 }, 'top must be a whole number of rows, 1 or more; got 0.');
  });
});

describe('windows', () => {
  const zone = new Zone(ZONE);
  const local = (iso: string) => zone.iso(Date.parse(iso) / 1000);
  const w = (flags: Parameters<typeof resolveWindow>[0]) => {
    const r = resolveWindow(flags, NOW, zone);
    return [r.since === null ? null : zone.iso(r.since), r.until === null ? null : zone.iso(r.until)];
  };
  it('periods and durations are local days of the ledger\'s zone; a date in --until includes that day', () => {
    const now = local('2026-07-15T10:30:00Z');
    assert.deepEqual(w({ period: 'today' }), ['2026-07-15T00:00:00+02:00', now]);
    assert.deepEqual(w({ period: 'week' }), ['2026-07-13T00:00:00+02:00', now]);
    assert.deepEqual(w({ period: 'month' }), ['2026-07-01T00:00:00+02:00', now]);
    assert.deepEqual(w({ period: '30d' }), ['2026-06-16T00:00:00+02:00', now]);
    assert.deepEqual(w({}), w({ period: '30d' }));
    assert.deepEqual(w({ period: 'all' }), [null, null]);
    assert.deepEqual(w({ since: '7d' }), ['2026-07-09T00:00:00+02:00', now]);
    assert.deepEqual(w({ since: '1w' }), w({ since: '7d' }));
    assert.deepEqual(w({ since: '12h' }), ['2026-07-15T00:30:00+02:00', now]);
    assert.deepEqual(w({ since: '2026-07-01', until: '2026-07-07' }), ['2026-07-01T00:00:00+02:00', '2026-07-08T00:00:00+02:00']);
    assert.deepEqual(w({ since: '2026-07-01T09:00', until: '2026-07-01T18:00:00Z' }), ['2026-07-01T09:00:00+02:00', '2026-07-01T20:00:00+02:00']);
    assert.deepEqual(w({ until: '2026-07-01' }), [null, '2026-07-02T00:00:00+02:00']);
  });
  it('refuses what it cannot read, and --period beside --since', () => {
    const refused = (flags: Parameters<typeof resolveWindow>[0], message: string) => assert.throws(() => resolveWindow(flags, NOW, zone), (e: { code: string; message: string }) => {
      assert.deepEqual([e.code, e.message], ['HERMETIC_CLI_USAGE', message]);
      return true;
    });
    refused({ period: 'fortnight' }, '--period must be one of today, week, 7d, month, 30d, all; got "fortnight".');
    // The dashboard's 7 d is a period too, the same window as --since 7d.
    assert.deepEqual(w({ period: '7d' }), w({ since: '7d' }));
    refused({ period: 'week', since: '7d' }, '--period sets the window; give it, or --since/--until, not both.');
    refused({ since: 'last tuesday' }, '--since must be a duration such as 7d, 4w or 12h, or an ISO date such as 2026-07-01 (or 2026-07-01T09:00); got "last tuesday".');
    refused({ since: '1.5d' }, '--since counts whole days: 1.5d is not a whole number of days.');
    refused({ until: '2026-13-01' }, '--until "2026-13-01" is not a real date: months run from 01 to 12.');
  });
});

/** reportCommand with its console captured; refusals come back as thrown errors, as main() turns them into lines. */
async function report(args: string[], color = false, width = 80): Promise<string> {
  const { value, out } = await printed(() => reportCommand(['--home', home, ...args], { now: () => NOW * 1000, color, width }));
  assert.equal(value, 0);
  return out.join('\n');
}

describe('hermetic report (in process)', () => {
  it('on a terminal: a summary, tables by day, model and source, the five costliest sessions; 80 columns; colour only when asked', async () => {
    const text = await report([]);
    for (const heading of ['Hermes usage, 2026-06-16 … 2026-07-15 (days in Europe/Berlin)', 'By day', 'By model', 'By source', 'Most expensive sessions']) assert.ok(text.includes(heading), heading);
    assert.match(text, /^cost +\$[\d,.]+ \(the billed cost where Hermes has one, else the estimate\)\n +estimated \$[\d,.]+ · billed \$[\d,.]+$/m);
    assert.match(text, /^tokens +[\d.]+[kM]? input · [\d.]+[kM]? output · [\d.]+[kM]? reasoning$/m);
    assert.match(text, /^cache +[\d.]+[kM]? read · [\d.]+[kM]? written: [\d.]+% of prompt tokens from the cache$/m);
    assert.match(text, /^activity +\d+ sessions · [\d,]+ API calls · [\d,]+ tool calls/m);
    assert.ok(text.split('\n').every((l) => l.length <= 80), text.split('\n').filter((l) => l.length > 80).join('\n'));
    assert.doesNotMatch(text, /\x1b\[/);
    const sessions = text.slice(text.indexOf('Most expensive sessions')).split('\n').slice(3);
    assert.equal(sessions.length, 5);
    assert.match(await report([], true), /\x1b\[1mBy day\x1b\[22m/);
    assert.match(await report(['--period', 'all']), /^By month$/m);
    // --top without --by sets how many rows each breakdown keeps (it changed nothing before).
    const topped = await report(['--top', '2']);
    assert.equal(topped.slice(topped.indexOf('Most expensive sessions')).split('\n').slice(3).length, 2);
    const models = topped.slice(topped.indexOf('By model'), topped.indexOf('By source')).split('\n').filter((l) => /^[^\s─]/.test(l) && !/^By model|^model/.test(l));
    assert.equal(models.length, 3, `two models and the rest: ${models.join(' | ')}`);
    assert.match(models[2]!, /^\(\d+ more\)/);
  });

  it('compares the window with the one before it, averages its cost, and says where a month to date is heading', async () => {
    const zone = new Zone(ZONE);
    const window = resolveWindow({ period: '7d' }, NOW, zone);
    const now = usageReport(db, window).totals;
    const then = usageReport(db, previousWindow('7d', window, NOW, zone)!).totals;
    assert.ok(then.sessions! > 0, 'the generated history has usage the week before');
    const lines = (await report(['--period', '7d'])).split('\n');
    const i = lines.findIndex((l) => l.startsWith('trend'));
    assert.deepEqual(lines.slice(i, i + 2), [
      `trend      cost ${changeText(now.cost_usd, then.cost_usd)} · sessions ${changeText(now.sessions, then.sessions)} · API calls ${changeText(now.api_calls, then.api_calls)}`,
      `           from ${formatCost(then.cost_usd)}, ${then.sessions} sessions, ${then.api_calls!.toLocaleString('en-US')} calls in 2026-07-02 … 2026-07-08 12:30`,
    ]);
    // The window before ends at this time of day, as the one it is compared with does: said, so its figures can be found again.
    // With --by the summary above the table is the same one, trend and averages included.
    const grouped = (await report(['--period', '7d', '--by', 'model'])).split('\n');
    const g = grouped.findIndex((l) => l.startsWith('trend'));
    assert.deepEqual(grouped.slice(g, g + 2), lines.slice(i, i + 2));
    assert.deepEqual(grouped.filter((l) => / a day · /.test(l)), lines.filter((l) => / a day · /.test(l)));
    assert.ok(lines.some((l) => /^ {11}on average \$[\d.]+ a day · \$[\d.]+ a session · \$[\d.]+ an API call$/.test(l)), lines.join('\n'));
    // The history starts 30 days back: the 30 days before hold nothing.
    assert.match(await report([]), /^trend +nothing recorded in 2026-05-17 … 2026-06-15 12:30, the window before$/m);
    // July 15, 12:30: the month so far, scaled to its 31 days.
    const spent = usageReport(db, resolveWindow({ period: 'month' }, NOW, zone)).totals.cost_usd!;
    const month = (await report(['--period', 'month'])).replace(/\n {11}/g, ' ');
    assert.ok(month.includes(`on course for ${formatCost((spent * 31) / (14 + 12.5 / 24))} by the end of July, if the rest of it goes as it has so far`), month);
    assert.doesNotMatch(await report(['--period', '30d']), /on course/);
  });

  it('says how many values the forwarder repaired in the sessions it counts, and only those', async () => {
    // Counted here from the rows: the sessions with ledger rows in the window, their row_issues entries.
    const count = (since: number | null) => {
      const inWindow = new Set((db.prepare('SELECT store, session_id, at FROM usage_ledger').all() as { store: string; session_id: string; at: number }[])
        .filter((r) => since === null || (r.at >= since && r.at < NOW)).map((r) => `${r.store}\0${r.session_id}`));
      const issues = (db.prepare('SELECT store, session_id FROM row_issues').all() as { store: string; session_id: string }[]).filter((r) => inWindow.has(`${r.store}\0${r.session_id}`));
      return { entries: issues.length, sessions: new Set(issues.map((r) => `${r.store}\0${r.session_id}`)).size };
    };
    const all = count(null);
    assert.ok(all.entries > 0, 'the generated history has repaired values');
    const line = (c: { entries: number; sessions: number }) => `repaired   ${c.entries} value${c.entries === 1 ? '' : 's'} changed or left out while forwarding, in ${c.sessions} session${c.sessions === 1 ? '' : 's'}`;
    assert.ok((await report(['--period', 'all'])).split('\n').includes(line(all)));
    assert.ok((await report(['--period', 'all', '--by', 'model'])).split('\n').includes(line(all)));
    const day = resolveWindow({ period: 'today' }, NOW, new Zone(ZONE)).since!;
    const today = count(day);
    const text = await report(['--period', 'today']);
    if (today.entries === 0) assert.doesNotMatch(text, /^repaired/m);
    else assert.ok(text.split('\n').includes(line(today)));
    assert.doesNotMatch(await report(['--period', 'all', '--json']), /repaired/);
  });

  it('--json is the usageReport; --csv and --markdown give the same rows', async () => {
    const json = JSON.parse(await report(['--since', '7d', '--by', 'day', '--by', 'model', '--json'])) as UsageReport;
    assert.deepEqual(json, usageReport(db, { since: Date.parse('2026-07-09T00:00:00+02:00') / 1000, until: NOW, by: ['day', 'model'] }));
    addsUp(json, 'json');
    const csv = (await report(['--since', '7d', '--by', 'day', '--by', 'model', '--csv'])).split('\n');
    assert.equal(csv[0], `day,model,${MEASURES.join(',')}`);
    assert.equal(csv.length, json.rows.length + 1);
    assert.equal(csv[1], [json.rows[0]!.day, json.rows[0]!.model, ...MEASURES.map((m) => json.rows[0]![m] ?? '')].join(','));
    const md = (await report(['--since', '7d', '--by', 'day', '--by', 'model', '--markdown'])).split('\n');
    assert.equal(md[0], `| day | model | ${MEASURES.join(' | ')} |`);
    assert.equal(md.length, json.rows.length + 2);
    const topMd = (await report(['--period', 'all', '--by', 'model', '--top', '2', '--markdown'])).split('\n');
    assert.match(topMd.at(-1)!, /^\| \(\d+ more\) \| /, 'the rest is labelled as on a terminal');
    assert.match((await report(['--period', 'all', '--by', 'model', '--top', '2', '--csv'])).split('\n').at(-1)!, /^,/, 'CSV keeps its keys empty');
    const sessions = JSON.parse(await report(['--period', 'all', '--by', 'session', '--top', '3', '--json'])) as UsageReport;
    assert.deepEqual(Object.keys(sessions.rows[0]!).slice(0, 2), ['session_id', 'title']);
    const table = await report(['--period', 'all', '--by', 'tool']);
    assert.match(table, /^By tool\ntool +calls +errors +sessions$/m);
  });

  it('--max-cost: exit 3 and what went over on stderr, judged on every row of the grouping (not the rest --top sums), else the window', async () => {
    const run = (args: string[]) => printed(() => reportCommand(['--home', home, '--period', 'all', ...args], { now: () => NOW * 1000, width: 80 }));
    const whole = usageReport(db, {}).totals.cost_usd as number;
    const plain = await run([]);
    // The window: strictly more than the limit is over; the report itself prints as it would without the flag.
    const under = await run(['--max-cost', String(whole + 0.01)]);
    assert.deepEqual([under.value, under.err, under.out], [0, [], plain.out]);
    const over = await run(['--max-cost', `$${(whole - 0.01).toFixed(2)}`]);
    assert.equal(over.value, 3);
    assert.deepEqual(over.out, plain.out);
    assert.deepEqual(over.err, [`hermetic: over budget: this window cost ${formatCost(whole)}, more than ${formatCost(Number((whole - 0.01).toFixed(2)))} (--max-cost).`]);
    // Each session: the limit under the second costliest, so --top 1 keeps one and the rest is not judged as one row.
    const sessions = usageReport(db, { by: ['session'] }).rows;
    const limit = Number(((sessions[1]!.cost_usd as number) - 0.005).toFixed(3));
    const above = sessions.filter((r) => (r.cost_usd as number) > limit);
    assert.ok(above.length >= 2);
    const json = await run(['--by', 'session', '--top', '1', '--json', '--max-cost', String(limit)]);
    assert.equal(json.value, 3);
    assert.deepEqual(JSON.parse(json.out.join('\n')), usageReport(db, { by: ['session'], top: 1 }), 'the JSON is the report, unchanged');
    // The limit as it was given (0.887, not $0.89: decision 0117).
    assert.equal(json.err[0], `hermetic: over budget: ${above.length} of ${sessions.length} sessions cost more than $${limit.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 3 })} (--max-cost):`);
    // The names padded to the widest of those named, so the costs stand in one column.
    const names = above.slice(0, 10).map((r) => `${String(r.session_id)} (${String(r.title ?? 'untitled')})`);
    const width = Math.max(...names.map((n) => n.length));
    assert.equal(json.err[1], `  ${names[0]!.padEnd(width)}  ${formatCost(above[0]!.cost_usd as number)}`);
    assert.equal(new Set(json.err.slice(1, 1 + names.length).map((l) => l.lastIndexOf(' $'))).size, 1, 'one column of costs');
    assert.equal(json.err.length, 1 + Math.min(above.length, 10) + (above.length > 10 ? 1 : 0));
    // Pairs of keys, and a window with nothing over.
    const days = await run(['--by', 'day', '--by', 'model', '--csv', '--max-cost', '0']);
    assert.equal(days.value, 3);
    assert.match(days.err[0]!, /^hermetic: over budget: \d+ of \d+ rows by day and model cost more than \$0\.00 \(--max-cost\):$/);
    assert.match(days.err[1]!, /^  2026-\d\d-\d\d · \S+ +\$[\d.,]+$/);
    const none = await run(['--by', 'model', '--filter', 'model=nonexistent', '--max-cost', '0']);
    assert.deepEqual([none.value, none.err], [0, []]);
    // Refused: tool rows have no cost; an amount that is not one.
    await assert.rejects(reportCommand(['--home', home, '--by', 'tool', '--max-cost', '1'], { now: () => NOW * 1000 }), { code: 'HERMETIC_REPORT_INVALID' });
    for (const bad of ['abc', '-1', '1e3', '5 dollars']) {
      await assert.rejects(reportCommand(['--home', home, '--max-cost', bad], { now: () => NOW * 1000 }), { code: 'HERMETIC_CLI_USAGE', message: `--max-cost takes an amount in US dollars, such as 5 or 0.50; got "${bad}".` });
    }
  });

  it('refuses with codes main() turns into one line and exit 2', async () => {
    const refused = async (args: string[], code: string, message: string) => assert.rejects(reportCommand(['--home', home, ...args], { now: () => NOW * 1000 }), (e: { code: string; message: string }) => {
      assert.deepEqual([e.code, e.message], [code, message]);
      return true;
    });
    await refused(['--since', '2026-07-10', '--until', '2026-07-01'], 'HERMETIC_REPORT_INVALID', '--since 2026-07-10 starts after --until 2026-07-01 ends; swap them.');
    await refused(['--since', '2026-08-01'], 'HERMETIC_REPORT_INVALID', '--since 2026-08-01 is after now: nothing can have been recorded yet.');
    await refused(['--since', '2026-07-15T12:31'], 'HERMETIC_REPORT_INVALID', '--since 2026-07-15T12:31 is after now: nothing can have been recorded yet.');
    await refused(['--json', '--csv'], 'HERMETIC_CLI_USAGE', 'Give one output format; got --json and --csv.');
    await refused(['--top', '0'], 'HERMETIC_CLI_USAGE', '--top must be between 1 and 1000000; got 0.');
    await refused(['--by', 'tool', '--by', 'provider'], 'HERMETIC_REPORT_INVALID', 'Tool calls cannot be grouped by provider: Hermes records usage per call, not per tool; group tools by hour, day, week, month, weekday, hour_of_day, profile, source, project, session, tree, machine.');
    await refused(['--sinse', '7d'], 'HERMETIC_CLI_USAGE', 'Unknown option "--sinse"; did you mean "--since"?');
    await assert.rejects(reportCommand(['--home', join(dir, 'nowhere')]), (e: { code: string }) => e.code === 'HERMETIC_DATASET_OPEN');
  });
});

describe('the summary at a width', () => {
  const totals = (over: Partial<UsageReport['totals']> = {}): UsageReport['totals'] => ({
    sessions: 147, api_calls: 1_510, input_tokens: 3_078_000, output_tokens: 650_000, cache_read_tokens: 5_714_000,
    cache_write_tokens: 445_000, reasoning_tokens: 221_000, estimated_cost_usd: 23.77, actual_cost_usd: 0.62, cost_usd: 23.44,
    tool_calls: 692, tool_errors: 34, ...over,
  });
  /** The 30 days before, for the trend: as in the README. */
  const previous = (t: UsageReport['totals']) => ({ period: { since: '2026-05-17T00:00:00+02:00', until: '2026-06-16T00:00:00+02:00' }, totals: { ...t, sessions: 152, api_calls: 1_402, cost_usd: 20.93 } });
  const summary = (t: UsageReport['totals'], width: number, zoneName = 'Europe/Berlin', since: string | null = '2026-06-16T00:00:00+02:00', rowIssues = { entries: 8, messages: 8, sessions: 8 }) => renderSummary({
    totals: { period: { since, until: '2026-07-16T00:00:00+02:00' }, by: [], totals: t, rows: [] },
    tables: [], emptyDataset: false, zoneName, rowIssues, days: since === null ? null : 30, previous: since === null ? null : previous(t),
  }, false, width).split('\n');
  // The largest figures a person meets: $99,999, 10^10 tokens of each kind and the values that round up (99.99B,
  // 9.999M, 999,950), millions of sessions, calls and values repaired (past 9,999 shown short).
  const huge = [
    totals({ cost_usd: 99_999, estimated_cost_usd: 99_999, actual_cost_usd: 99_999, input_tokens: 1e10, output_tokens: 1e10, reasoning_tokens: 1e10, cache_read_tokens: 1e10, cache_write_tokens: 1e10, sessions: 1_000_000, api_calls: 9_999_999_999, tool_calls: 9_999_999_999, tool_errors: 9_999_999_999 }),
    totals({ cost_usd: 99_999.99, input_tokens: 99_990_000_000, output_tokens: 9_999_000, reasoning_tokens: 999_950, cache_read_tokens: 99_990_000_000, cache_write_tokens: 9_999_000, sessions: 9_999_999, api_calls: 99_999, tool_calls: 99_999, tool_errors: 99_999 }),
  ];
  const issues = { entries: 9_999_999, messages: 9_999_999, sessions: 999_999 };

  it('every line fits 80 columns at realistic magnitudes, each figure on the line of its label', () => {
    for (const t of huge) {
      const lines = summary(t, 80, 'Europe/Berlin', '2026-06-16T00:00:00+02:00', issues);
      assert.deepEqual(lines.filter((l) => l.length > 80), [], lines.join('\n'));
      for (const label of ['cost', 'tokens', 'cache', 'activity', 'trend', 'repaired']) assert.equal(lines.filter((l) => l.startsWith(label)).length, 1, label);
      // No line is continued: each is whole at these magnitudes (cost, its estimate and its averages; trend and from what).
      assert.equal(lines.length, 12, lines.join('\n'));
    }
    const text = summary(huge[0]!, 80, 'Europe/Berlin', '2026-06-16T00:00:00+02:00', issues).join('\n');
    assert.match(text, /^cache      10\.0B read · 10\.0B written: 33\.3% of prompt tokens from the cache$/m);
    assert.match(text, /^activity   1\.00M sessions · 10\.0B API calls · 10\.0B tool calls \(10\.0B failed\)$/m);
    assert.match(text, /^repaired   10\.0M values changed or left out while forwarding, in 1\.00M sessions$/m);
  });

  it('the README\'s example, line for line; at 200 columns the same lines', () => {
    const expected = [
      'Hermes usage, 2026-06-16 … 2026-07-15 (days in Europe/Berlin)',
      '',
      'cost       $23.44 (the billed cost where Hermes has one, else the estimate)',
      '           estimated $23.77 · billed $0.62',
      '           on average $0.78 a day · $0.16 a session · $0.02 an API call',
      'tokens     3.08M input · 650k output · 221k reasoning',
      'cache      5.71M read · 445k written: 61.9% of prompt tokens from the cache',
      'activity   147 sessions · 1,510 API calls · 692 tool calls (34 failed)',
      'trend      cost +12% · sessions -3.3% · API calls +7.7%',
      '           from $20.93, 152 sessions, 1,402 calls in 2026-05-17 … 2026-06-15',
      'repaired   8 values changed or left out while forwarding, in 8 sessions',
      '           (hermetic query "SELECT * FROM row_issues" lists them)',
    ];
    assert.deepEqual(summary(totals(), 80), expected);
    assert.deepEqual(summary(totals(), 200), expected);
  });

  it('past those magnitudes, or on a narrow terminal, a line goes on under its figures instead of past the edge', () => {
    const lines = summary(totals({ sessions: 123_456_789_012 }), 60, 'America/Argentina/ComodRivadavia', null);
    assert.deepEqual(lines.filter((l) => l.length > 60), [], lines.join('\n'));
    assert.equal(lines[0], 'Hermes usage, the beginning … 2026-07-15 (days in');
    assert.equal(lines[1], 'America/Argentina/ComodRivadavia)');
    const cache = lines.findIndex((l) => l.startsWith('cache'));
    assert.deepEqual(lines.slice(cache, cache + 2), ['cache      5.71M read · 445k written: 61.9% of prompt tokens', '           from the cache']);
  });
});

describe('the trend in words', () => {
  it('a change reads as a percentage, under half a percent as ±0%, ten times and more as a multiple; nothing before: none', () => {
    assert.deepEqual([[112, 100], [96.7, 100], [100.4, 100], [150, 100], [1_000, 100], [325_878, 100], [5, 0], [5, null]].map(([a, b]) => changeText(a!, b!)),
      ['+12%', '-3.3%', '±0%', '+50%', '×10', '×3,259', null, null]);
  });

  it('one session and one call in the singular; a span that is not whole days by its times', () => {
    const t = { sessions: 3, api_calls: 20, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0, estimated_cost_usd: 2, actual_cost_usd: null, cost_usd: 2, tool_calls: 0, tool_errors: 0 };
    const lines = renderSummary({
      totals: { period: { since: '2026-07-15T00:30:00+02:00', until: '2026-07-15T12:30:00+02:00' }, by: [], totals: t, rows: [] }, tables: [], emptyDataset: false, zoneName: 'Europe/Berlin', days: 0.5,
      previous: { period: { since: '2026-07-14T00:30:00+02:00', until: '2026-07-14T12:30:00+02:00' }, totals: { ...t, sessions: 1, api_calls: 1, cost_usd: 1 } },
    }, false, 80).split('\n');
    assert.ok(lines.includes('trend      cost +100% · sessions +200% · API calls ×20'), lines.join('\n'));
    assert.ok(lines.includes('           from $1.00, 1 session, 1 call in 2026-07-14 00:30 … 12:30'), lines.join('\n'));
    // The activity line too: one session, one API call, one tool call.
    const one = renderSummary({
      totals: { period: { since: '2026-07-15T00:30:00+02:00', until: '2026-07-15T12:30:00+02:00' }, by: [], totals: { ...t, sessions: 1, api_calls: 1, tool_calls: 1 }, rows: [] }, tables: [], emptyDataset: false, zoneName: 'Europe/Berlin', days: 0.5,
    }, false, 80).split('\n');
    assert.ok(one.includes('activity   1 session · 1 API call · 1 tool call'), one.join('\n'));
  });
});

describe('the table at a width', () => {
  const fig = (cost: number, sessions: number, calls: number, input: number, output: number, read: number, write: number) => ({
    sessions, api_calls: calls, input_tokens: input, output_tokens: output, cache_read_tokens: read, cache_write_tokens: write,
    reasoning_tokens: 0, estimated_cost_usd: cost, actual_cost_usd: null, cost_usd: cost,
  });
  const table = (by: UsageReport['by'], rows: UsageReport['rows']): UsageReport => ({ period: { since: null, until: null }, by, totals: {} as UsageReport['totals'], rows });
  const byDayModel = table(['day', 'model'], [
    { day: '2026-11-27', model: 'anthropic/claude-sonnet-4.6', ...fig(0.74, 3, 41, 123_456, 23_800, 197_000, 19_000) },
    { day: '2026-11-27', model: 'gpt-5', ...fig(0.0123, 1, 9, 18_500, 3_550, 47_700, 4_780) },
    { day: '2026-11-28', model: 'google/gemini-2.5-flash-preview-09-2025', ...fig(12.5, 12, 1_234, 1_230_000, 412_000, 2_100_000, 98_000) },
  ]);

  it('at 80 columns: the day whole, the model takes what is left (its name after the provider), and the figure that did not fit is named', () => {
    assert.equal(renderTable(byDayModel, false, { width: 80 }), [
      'day         model                 cost  sessions  calls  input  output  cache rd',
      '──────────  ──────────────────  ──────  ────────  ─────  ─────  ──────  ────────',
      '2026-11-27  …claude-sonnet-4.6   $0.74         3     41   123k   23.8k      197k',
      '2026-11-27  gpt-5                $0.01         1      9  18.5k   3.55k     47.7k',
      '2026-11-28  gemini-2.5-flash-…  $12.50        12  1,234  1.23M    412k     2.10M',
      '(cache wr left out to fit 80 columns: --csv or --json has them)',
    ].join('\n'));
    assert.equal(renderTable(byDayModel), renderTable(byDayModel, false, { width: 80 }), 'piped: 80 columns');
  });

  it('at 200 columns: nothing cut, every figure there', () => {
    assert.equal(renderTable(byDayModel, false, { width: 200 }), [
      'day         model                                      cost  sessions  calls  input  output  cache rd  cache wr',
      '──────────  ───────────────────────────────────────  ──────  ────────  ─────  ─────  ──────  ────────  ────────',
      '2026-11-27  anthropic/claude-sonnet-4.6               $0.74         3     41   123k   23.8k      197k     19.0k',
      '2026-11-27  gpt-5                                     $0.01         1      9  18.5k   3.55k     47.7k     4.78k',
      '2026-11-28  google/gemini-2.5-flash-preview-09-2025  $12.50        12  1,234  1.23M    412k     2.10M     98.0k',
    ].join('\n'));
  });

  it('a project keeps its last folders and a model its name after the provider, whole parts first', () => {
    const r = table(['project', 'model'], [
      { project: '/home/alice/code/acme/backend-service', model: 'openrouter/anthropic/claude-opus-4.1', ...fig(2, 2, 20, 1, 1, 1, 1) },
      { project: '/home/alice/code/acme/frontend-web-app', model: 'openrouter/anthropic/claude-sonnet-4.6', ...fig(1, 1, 10, 1, 1, 1, 1) },
    ]);
    // Cut at the end, both rows began "/home/alice/co…" and "openrouter/ant…".
    const keysAt = (width: number) => renderTable(r, false, { width }).split('\n').slice(2, 4).map((l) => l.slice(0, l.indexOf('  $')).trimEnd());
    assert.deepEqual(keysAt(80), ['backend-servi…  claude-opus-4.1', 'frontend-web-…  claude-sonnet-…']);
    assert.deepEqual(keysAt(96), ['…/backend-service  …/claude-opus-4.1', '…frontend-web-app  …claude-sonnet-4.6']);
  });

  it('by week and session: the week whole, the session id whole (a figure is left out for it), the title gives way', () => {
    const r = table(['week', 'session'], [
      { week: '2026-11-23', session_id: '20261129_053652_f1a2b3c4', title: 'Refactor the billing exporter and its tests', ...fig(0.67, 1, 10, 17_600, 4_110, 49_900, 3_000) },
      { week: null, session_id: null, title: null, other_rows: 41, ...fig(3.5, 41, 400, 700_000, 120_000, 1_500_000, 90_000) },
    ]);
    assert.equal(renderTable(r, false, { width: 80 }), [
      'week        session                   title           cost  calls  input  output',
      '──────────  ────────────────────────  ─────────────  ─────  ─────  ─────  ──────',
      '2026-11-23  20261129_053652_f1a2b3c4  Refactor the…  $0.67     10  17.6k   4.11k',
      '(41 more)                                            $3.50    400   700k    120k',
      '(cache rd left out to fit 80 columns: --csv or --json has them)',
    ].join('\n'));
    assert.equal(renderTable(r, false, { width: 200 }).split('\n')[2], '2026-11-23  20261129_053652_f1a2b3c4  Refactor the billing exporter and its tests  $0.67     10  17.6k   4.11k     49.9k');
  });

  /** The lines of a terminal view: each within `width` columns as a terminal counts them, none with a control character. */
  const fitsTerminal = (text: string, width: number) => {
    const lines = text.split('\n');
    assert.deepEqual(lines.filter((l) => displayWidth(l) > width), [], `wider than ${width}:\n${text}`);
    assert.doesNotMatch(text.replace(/\n/g, ''), /[\x00-\x1f\x7f-\x9f]/, 'a control character reached the terminal');
    return lines;
  };

  it('a title or model with ESC, TAB, DEL and C1 controls is shown visibly (␛, a space, ␡, \\xNN) and the rows still fit 80 columns', () => {
    const r = table(['session'], [
      { session_id: '20261129_053652_f1a2b3c4', title: '\x1b[31mRED\x1b[0m title\twith tab\x7f\x9b2J\r\nnext', ...fig(0.67, 1, 10, 17_600, 4_110, 49_900, 3_000) },
    ]);
    const lines = fitsTerminal(renderTable(r, false, { width: 80 }), 80);
    assert.match(lines[2]!, /^20261129_053652_f1a2b3c4  ␛\[31mRED␛\[0m t…  \$0\.67 /);
    assert.ok(renderTable(r, false, { width: 200 }).split('\n')[2]!.includes('  ␛[31mRED␛[0m title with tab␡\\x9b2J⏎next  $0.67  '));
    // Colour asked for: the only escape codes are the table's own.
    const coloured = renderTable(table(['model'], [{ model: '\x1b]0;pwned\x07gpt', ...fig(1, 1, 1, 1, 1, 1, 1) }]), true, { width: 80 });
    assert.match(coloured, /␛\]0;pwned␇gpt/);
    assert.doesNotMatch(coloured.replace(/\x1b\[[0-9;]*m/g, ''), /[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
  });

  it('CJK and emoji are measured in columns: a wide model and title fit 80 columns, cut whole characters and the figures line up', () => {
    const cjk = '数据分析与报告生成系统的长期维护和性能优化以及用户界面改进工作计划'.repeat(2).slice(0, 60);
    const r = table(['day', 'model'], [
      { day: '2026-11-27', model: cjk, ...fig(0.74, 3, 41, 123_456, 23_800, 197_000, 19_000) },
      { day: '2026-11-27', model: 'gpt-5', ...fig(0.0123, 1, 9, 18_500, 3_550, 47_700, 4_780) },
      { day: '2026-11-28', model: '😀 emoji e\u0301 model', ...fig(12.5, 12, 1_234, 1_230_000, 412_000, 2_100_000, 98_000) },
    ]);
    const lines = fitsTerminal(renderTable(r, false, { width: 80 }), 80);
    const rows = lines.slice(2, 5);
    // Each row's figures end at the same column: the wide cells were padded by their width, not their length.
    assert.equal(new Set(rows.map((l) => displayWidth(l))).size, 1, rows.join('\n'));
    assert.match(rows[0]!, /^2026-11-27  数据分析与报告生… {4}\$0\.74 /);
    const sessions = table(['session'], [{ session_id: '20261129_053652_f1a2b3c4', title: cjk, ...fig(0.67, 1, 10, 17_600, 4_110, 49_900, 3_000) }]);
    const row = fitsTerminal(renderTable(sessions, false, { width: 80 }), 80)[2]!;
    assert.ok(displayWidth(row) >= 70, row);
    assert.match(row, /^20261129_053652_f1a2b3c4  数据/);
  });

  it('hermetic report with four --by at 80 columns: every line fits, the days whole, the figures left out named', async () => {
    for (const by of [['day', 'model', 'provider', 'source'], ['week', 'model', 'provider', 'source', 'project'], ['machine', 'model', 'provider', 'source']]) {
      const text = await report(['--period', 'all', ...by.flatMap((d) => ['--by', d])], false, 80);
      const lines = fitsTerminal(text, 80);
      const rows = lines.slice(lines.findIndex((l) => l.startsWith('By ')) + 3);
      const table = rows.slice(0, rows.findIndex((l) => l.startsWith('(')));
      assert.ok(table.length > 5, rows.join('\n'));
      if (by[0] === 'day') for (const row of table) assert.match(row, /^\d{4}-\d\d-\d\d  \S/);
      assert.match(lines.join(' '), /\([a-z ,]+ left out to fit 80 columns: --csv or --json has them\)/);
    }
  });

  it('at COLUMNS=50 the summary, the tables and the "left out" lines fit 50 columns (the hint wraps)', async () => {
    for (const args of [[], ['--period', 'all', '--by', 'day', '--by', 'model', '--by', 'provider', '--by', 'source'], ['--period', 'all', '--by', 'session']]) {
      const lines = fitsTerminal(await report(args, false, 50), 50);
      assert.match(lines.join(' '), /\([a-z ,]+ left out to fit 50 columns: --csv or --json has them\)/, lines.join('\n'));
    }
    // A bare renderTable at 50 is within 50 too, at 30 the keys give way down to a character and …
    const r = table(['model', 'provider', 'source'], [{ model: 'google/gemini-2.5-flash-preview-09-2025', provider: 'openrouter', source: 'telegram', ...fig(12.5, 12, 1_234, 1_230_000, 412_000, 2_100_000, 98_000) }]);
    fitsTerminal(renderTable(r, false, { width: 50 }), 50);
    fitsTerminal(renderTable(r, false, { width: 30 }), 30);
  });

  it('a session id is kept whole while figures can be left out; cut only on a narrow terminal, and then to its date and time', () => {
    const r = table(['session'], [{ session_id: '20261129_053652_f1a2b3c4', title: 'Refactor the billing exporter', ...fig(0.67, 1, 10, 17_600, 4_110, 49_900, 3_000) }]);
    const at50 = fitsTerminal(renderTable(r, false, { width: 50 }), 50);
    assert.deepEqual(at50.slice(2), [
      '20261129_053652_f1a2b3c4  Refactor …  $0.67  17.6k',
      '(calls, output, cache rd left out to fit 50',
      'columns: --csv or --json has them)',
    ]);
    const at30 = fitsTerminal(renderTable(r, false, { width: 30 }), 30);
    assert.equal(at30[2], '20261129_053652…  Refa…  $0.67');
  });

  it('the width is $COLUMNS, else the terminal\'s, else 80', () => {
    assert.deepEqual([
      terminalWidth({ COLUMNS: '200' }, { isTTY: false }), terminalWidth({ COLUMNS: '200' }, { isTTY: true, columns: 120 }),
      terminalWidth({}, { isTTY: true, columns: 120 }), terminalWidth({}, { isTTY: false }), terminalWidth({ COLUMNS: 'wide' }, {}),
    ], [200, 200, 120, 80, 80]);
  });

  it('hermetic report --by day --by model (and --by source) shows whole days at 80 and at 200 columns, each line within', async () => {
    for (const second of ['model', 'source']) {
      for (const width of [80, 200]) {
        const text = await report(['--since', '7d', '--by', 'day', '--by', second], false, width);
        const lines = text.split('\n').slice(text.split('\n').indexOf(`By day and ${second}`));
        assert.ok(lines.every((l) => l.length <= width), lines.filter((l) => l.length > width).join('\n'));
        const rows = lines.slice(3).filter((l) => !l.startsWith('('));
        assert.ok(rows.length >= 7, `${rows.length} rows`);
        for (const row of rows) assert.match(row, /^2026-07-\d\d  \S/, `${second} at ${width}: ${row}`);
        if (width === 200) assert.match(lines[1]!, /cache wr$/);
      }
    }
    // A dimension given twice is grouped by once, and titled so (as --json's "by" says).
    const twice = (await report(['--since', '7d', '--by', 'day', '--by', 'model', '--by', 'day'], false, 80)).split('\n');
    assert.ok(twice.includes('By day and model') && !twice.some((l) => l.startsWith('By day and model and')), twice.slice(0, 12).join('\n'));
  });
});

describe('a filter that matches nothing', () => {
  it('is named, with the values its column has in the window when they are few', async () => {
    const models = usageReport(db, { since: resolveWindow({}, NOW, new Zone(ZONE)).since, until: NOW, by: ['model'] }).rows.map((r) => String(r.model));
    assert.ok(models.length > 1 && models.length <= 8, models.join());
    const text = await report(['--filter', 'model=nonexistent'], false, 1000);
    assert.deepEqual(text.split('\n').slice(2), [
      '--filter model=nonexistent matches no usage in this window.',
      `The models in this window: ${models.join(', ')}.`,
    ]);
    assert.doesNotMatch(text, /No usage was recorded/);
    // The same under --by, wrapped to the width.
    const byDay = (await report(['--by', 'day', '--filter', 'model=nonexistent', '--filter', 'model=other'])).split('\n').slice(2);
    assert.equal(byDay[0], '--filter model=nonexistent --filter model=other match no usage in this window.');
    assert.ok(byDay.every((l) => l.length <= 80) && byDay.length > 2, byDay.join('\n'));
    // A column with many values: the costliest few, and how to list them all.
    const projects = (await report(['--filter', 'project=/nowhere'], false, 1000)).split('\n').slice(2);
    assert.equal(projects[0], '--filter project=/nowhere matches no usage in this window.');
    assert.match(projects[1]!, /^The costliest projects in this window: .+ and more \("hermetic report --by project" lists them\)\.$/);
  });

  it('says when each filter matches alone but not together, or only outside the window', async () => {
    const pairs = usageReport(db, { since: resolveWindow({}, NOW, new Zone(ZONE)).since, until: NOW, by: ['model', 'source'] }).rows;
    const sources = [...new Set(pairs.map((r) => String(r.source)))];
    const [model, source] = pairs.map((r) => String(r.model)).flatMap((m) => sources.filter((s) => !pairs.some((r) => r.model === m && r.source === s)).map((s) => [m, s]))[0]!;
    assert.deepEqual((await report(['--filter', `model=${model}`, '--filter', `source=${source}`], false, 1000)).split('\n').slice(2), [
      `No usage in this window matches --filter model=${model} and --filter source=${source} together (each matches some on its own).`,
    ]);
    const today = usageReport(db, { since: resolveWindow({ period: 'today' }, NOW, new Zone(ZONE)).since, until: NOW, by: ['model'] }).rows.map((r) => r.model);
    const absent = usageReport(db, { by: ['model'] }).rows.map((r) => String(r.model)).find((m) => !today.includes(m))!;
    const lines = (await report(['--period', 'today', '--filter', `model=${absent}`], false, 1000)).split('\n').slice(2);
    assert.equal(lines[0], `--filter model=${absent} matches no usage in this window.`);
    assert.equal(lines.at(-1), 'The filter matches usage outside this window: try --period all.');
    // A window with no usage at all is not the filter's doing.
    assert.equal((await report(['--since', '2020-01-01', '--until', '2020-01-31', '--filter', 'model=nonexistent'])).split('\n')[2], 'No usage was recorded in this window (try --period all).');
  });
});

describe('an older dataset', () => {
  it('is upgraded in place by the first report (which says so on stderr), then reported', async () => {
    const { dir: d, cleanup: done } = tempDir('hermetic-report-old-');
    try {
      const g = generate({ out: join(d, 'hermes', 'state.db'), sessions: 12, messages: 120, seed: 'old', end: NOW, days: 3 });
      const rig = forwarderRig([g.path], { dir: d, timeZone: 'UTC' });
      rig.forwarder.backfill();
      rig.forwarder.close();
      const ro = new Database(join(rig.home, 'hermetic.db'), { readonly: true });
      const before = usageReport(ro, { by: ['day'] });
      ro.close();
      const old = new Database(join(rig.home, 'hermetic.db'));
      for (const t of ['usage_ledger', 'tool_usage', 'session_activity', 'tool_activity', 'dataset_meta']) old.exec(`DROP TABLE ${t}`);
      old.pragma('user_version = 1');
      old.close();
      const tz = process.env.HERMETIC_TZ;
      process.env.HERMETIC_TZ = 'UTC'; // a version-1 dataset has no ledger zone yet: the upgrade takes the named one
      const { value, out, err } = await printed(() => reportCommand(['--home', rig.home, '--period', 'all', '--by', 'day', '--json'], { now: () => NOW * 1000 }))
        .finally(() => {
          if (tz === undefined) delete process.env.HERMETIC_TZ;
          else process.env.HERMETIC_TZ = tz;
        });
      assert.equal(value, 0);
      assert.deepEqual(err, [`hermetic: upgrading the dataset from version 1 to ${DATASET_VERSION} (building its usage ledger) before the first report…`]);
      assert.deepEqual(JSON.parse(out.join('\n')), before);
    } finally {
      done();
    }
  });
});

describe('several stores', () => {
  it('sessions are counted per store (two profiles may hold the same id) and every grouping adds up', () => {
    const { dir: d, cleanup: done } = tempDir('hermetic-report-stores-');
    try {
      // The same seed and end twice: two stores with the same session ids, each counted once per store.
      const options = { sessions: 20, messages: 200, seed: 'stores', end: NOW, days: 5 };
      const a = generate({ ...options, out: join(d, 'a', 'state.db') });
      const b = generate({ ...options, out: join(d, 'b', 'state.db') });
      const rig = forwarderRig([a.path, b.path], { dir: d, timeZone: 'UTC' });
      rig.forwarder.backfill();
      rig.forwarder.close();
      const ro = new Database(join(rig.home, 'hermetic.db'), { readonly: true });
      try {
        const bySession = usageReport(ro, { by: ['session'] });
        assert.deepEqual([bySession.totals.sessions, bySession.rows.length], [40, 40]);
        assert.equal(new Set(bySession.rows.map((r) => r.session_id)).size, 20);
        for (const by of [['day'], ['model'], ['source', 'task'], ['session']]) addsUp(usageReport(ro, { by }), by.join('+'));
        const tools = usageReport(ro, { by: ['tool'] });
        assert.equal(tools.rows.reduce((t, r) => t + Number(r.tool_calls), 0), tools.totals.tool_calls);
        addsUp(usageReport(ro, { by: ['model'], top: 2 }), 'top 2 models');
        addsUp(usageReport(ro, { by: ['session'], top: 3 }), 'top 3 sessions');
        assert.equal(usageReport(ro, { by: ['source'] }).rows.reduce((t, r) => t + Number(r.sessions), 0), 40, 'a session has one source');
        // Terminal commands: each store's calls its own, the same session id counted in each (decision 0149).
        const commands = usageReport(ro, { by: ['command', 'session'] });
        const terminal = tools.rows.find((r) => r.tool === 'terminal')!;
        assert.deepEqual([commands.totals.commands!.tool_calls, commands.totals.commands!.tool_errors], [terminal.tool_calls, terminal.tool_errors]);
        assert.equal(commands.rows.reduce((t, r) => t + Number(r.tool_calls), 0), terminal.tool_calls);
        const one = usageReport(ro, { by: ['command'], place: { store: a.path } });
        assert.equal(one.totals.commands!.tool_calls * 2, terminal.tool_calls, 'one store holds half');
        assert.equal(one.totals.commands!.sessions * 2, commands.totals.commands!.sessions, 'sessions counted per store');
      } finally {
        ro.close();
      }
    } finally {
      done();
    }
  });
});
