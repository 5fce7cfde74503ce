// The tool calls the writer keeps (decision 0069) equal the grouping of `parts` they stand for — after inserts from
// the rows in hand (records or packed), deletes, hand edits, repeated call ids, tied times and names SQLite orders
// otherwise than JavaScript — and the dashboard's slowest calls read from them are the plain query's answer, row for
// row, over a generated store, for every window, filter and limit, however few calls the first read looks at.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { tempDir } from '../../../state-db/testing/fixtures.js';
import { generatedStore } from '../../../state-db/testing/generated.js';
import { PARTS, type RecordOf } from '../../dataset/columns.js';
import { packRows } from '../../dataset/packed.js';
import { reportCondition, type ReportRequest } from '../../report/index.js';
import { forwarderRig, keptDifferences } from '../../testing/index.js';
import { sqliteSource } from '../../web/data/sqlite.js';
import { slowestKeptSql, slowestSql } from '../../web/data/rows.js';
import { openDataset } from './dataset.js';
import { rowInserter } from './insert.js';
import { RowCounts } from './row-counts.js';
import { InsertedToolCalls, recomputeToolCalls } from './tool-calls.js';

const STORE = '/home/u/.hermes/state.db';
const T0 = 1_780_000_000;

const kept = (db: { prepare(sql: string): { all(): unknown[] } }) => db.prepare('SELECT * FROM tool_calls ORDER BY store, session_id, call_id').all();

test('property: inserts, deletes and hand edits of tool parts — the kept calls equal the grouping of parts after each', () => {
  // Few ids, names and times, so ids repeat within a session and times and names tie; names SQLite orders by their
  // UTF-8 bytes (a character past U+FFFF after U+FFFF, where JavaScript's code units put it before).
  const id = fc.constantFrom('call_0', 'call_1', '');
  const name = fc.constantFrom('terminal', 'read_file', null, 'é', '\u{1F600}', '\uFFFF');
  const time = fc.constantFrom(0, 1, 2, 5, 5.5, 60);
  const part = fc.record({ s: fc.nat(2), type: fc.constantFrom('tool_call', 'tool_result', 'tool_result', 'text'), id: fc.option(id, { freq: 8 }), name, time });
  const op = fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('insert' as const), parts: fc.array(part, { minLength: 1, maxLength: 12 }), packed: fc.boolean() }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), s: fc.nat(2), from: fc.nat(40) }) },
    // Every third part of a session, say: some of a call id's parts go, others stay.
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('thin' as const), s: fc.nat(2), every: fc.integer({ min: 2, max: 4 }), at: fc.nat(3) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('forget' as const), s: fc.nat(2) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('edit' as const), s: fc.nat(2), k: fc.nat(40), id: fc.option(id), name, time: fc.oneof(time, fc.constant('soon')) }) },
  );
  let settled = 0;
  fc.assert(fc.property(fc.array(op, { minLength: 1, maxLength: 16 }), (ops) => {
    const { dir, cleanup } = tempDir();
    const db = openDataset(dir, { timeZone: 'UTC' });
    try {
      const counts = new RowCounts(db);
      const put = rowInserter(db, PARTS, counts);
      const calls = new InsertedToolCalls(db);
      let next = 0;
      for (const o of ops) {
        db.transaction(() => {
          if (o.kind === 'insert') {
            for (const s of [0, 1, 2]) {
              const rows: RecordOf[] = o.parts.filter((p) => p.s === s).map((p) => {
                const k = next++;
                return {
                  store: STORE, session_id: `s${s}`, part_id: `hermes-s${s}-${String(k).padStart(4, '0')}-0#0`, message_id: k, part_index: 0, role: 'tool',
                  part_type: p.type, tool_name: p.name, created_at: T0 + p.time,
                  tool_call_id: p.type === 'tool_call' || p.type === 'tool_result' ? p.id : null, tool_result_for: p.type === 'tool_result' ? p.id : null,
                };
              });
              if (rows.length === 0) continue;
              const given = o.packed ? packRows(PARTS, rows) : rows;
              put(given);
              calls.parts(STORE, `s${s}`, given);
            }
          } else if (o.kind === 'delete') {
            db.prepare('DELETE FROM parts WHERE session_id = ? AND message_id >= ?').run(`s${o.s}`, o.from);
          } else if (o.kind === 'thin') {
            db.prepare('DELETE FROM parts WHERE session_id = ? AND message_id % ? = ?').run(`s${o.s}`, o.every, o.at % o.every);
          } else if (o.kind === 'forget') {
            db.prepare('DELETE FROM parts WHERE session_id = ?').run(`s${o.s}`);
          } else {
            db.prepare(`UPDATE parts SET tool_call_id = CASE WHEN part_type = 'tool_call' THEN @id ELSE tool_call_id END,
              tool_result_for = CASE WHEN part_type = 'tool_result' THEN @id ELSE tool_result_for END, tool_name = @name, created_at = @time
              WHERE session_id = @s AND message_id = @k`).run({ id: o.id, name: o.name, time: typeof o.time === 'number' ? T0 + o.time : o.time, s: `s${o.s}`, k: o.k });
          }
          settled += db.prepare('SELECT COUNT(*) FROM tool_calls WHERE stale = 1').pluck().get() as number;
          calls.settle();
        })();
        const got = kept(db);
        recomputeToolCalls(db);
        assert.deepEqual(got, kept(db), `after ${JSON.stringify(o)}`);
      }
    } finally {
      db.close();
      cleanup();
    }
  }), { numRuns: 150 });
  assert.ok(settled > 0, `${settled} stale calls settled`);
});

test('a deleted part that held a call\'s earliest time or greatest name, with others of its id left, is counted again', () => {
  const { dir, cleanup } = tempDir();
  const db = openDataset(dir, { timeZone: 'UTC' });
  try {
    const put = rowInserter(db, PARTS, new RowCounts(db));
    const calls = new InsertedToolCalls(db);
    const at = (k: number, type: string, t: number, name: string | null = null): RecordOf => ({
      store: STORE, session_id: 's', part_id: `p${k}`, message_id: k, part_index: 0, role: 'tool', part_type: type, tool_name: name, created_at: T0 + t,
      tool_call_id: 'c', tool_result_for: type === 'tool_result' ? 'c' : null,
    });
    const rows = [at(1, 'tool_call', 0, 'b'), at(2, 'tool_call', 3, 'a'), at(3, 'tool_call', 0, 'z'), at(4, 'tool_result', 9), at(5, 'tool_result', 7), at(6, 'tool_result', 8)];
    db.transaction(() => { put(rows); calls.parts(STORE, 's', rows); calls.settle(); })();
    const row = () => db.prepare('SELECT tool, called, answered, calls, results, stale FROM tool_calls').get() as Record<string, number | string>;
    assert.deepEqual(row(), { tool: 'z', called: T0, answered: T0 + 7, calls: 3, results: 3, stale: 0 });
    // Each delete below either keeps the row exact (a later time, a smaller name) or makes it stale until settled.
    for (const [part, stale] of [['p4', 0], ['p3', 1], ['p5', 1], ['p2', 0], ['p1', 0]] as const) {
      db.transaction(() => {
        db.prepare('DELETE FROM parts WHERE part_id = ?').run(part);
        assert.equal(row().stale, stale, `deleting ${part}`);
        calls.settle();
      })();
      const got = kept(db);
      recomputeToolCalls(db);
      assert.deepEqual(got, kept(db), `after deleting ${part}`);
    }
    assert.deepEqual(row(), { tool: null, called: null, answered: T0 + 8, calls: 0, results: 1, stale: 0 });
    db.prepare("DELETE FROM parts WHERE part_id = 'p6'").run();
    assert.deepEqual(kept(db), [], 'the last part takes the row');
  } finally {
    db.close();
    cleanup();
  }
});

test('a call id that is not text (a number bound where text belongs) is merged by SQLite with the text it is stored as', () => {
  const { dir, cleanup } = tempDir();
  const db = openDataset(dir, { timeZone: 'UTC' });
  try {
    const put = rowInserter(db, PARTS, new RowCounts(db));
    const calls = new InsertedToolCalls(db);
    const at = (k: number, fields: RecordOf): RecordOf => ({ store: STORE, session_id: 's', part_id: `p${k}`, message_id: k, part_index: 0, role: 'tool', created_at: T0 + k, ...fields });
    const rows = [at(1, { part_type: 'tool_call', tool_call_id: 7, tool_name: 'a' }), at(2, { part_type: 'tool_result', tool_call_id: '7.0', tool_result_for: '7.0' }), at(3, { part_type: 'tool_call', tool_call_id: 7.5, tool_name: 'b' })];
    db.transaction(() => { put(rows); calls.parts(STORE, 's', rows); calls.settle(); })();
    const got = kept(db);
    recomputeToolCalls(db);
    assert.deepEqual(got, kept(db));
    // The number 7 is bound as a REAL and stored in the text column as '7.0': the result naming '7.0' answers it.
    assert.deepEqual((got as { call_id: string; calls: number; results: number }[]).map((r) => [r.call_id, r.calls, r.results]), [['7.0', 1, 1], ['7.5', 1, 0]]);
  } finally {
    db.close();
    cleanup();
  }
});

test('the slowest calls read from tool_calls are the plain query\'s, for every window, filter and limit, and after a hand edit', async () => {
  const { dir, cleanup } = tempDir();
  const end = Date.UTC(2026, 6, 15, 10, 30) / 1000;
  const g = generatedStore({ out: `${dir}/hermes/state.db`, sessions: 80, messages: 4000, seed: 'slowest-calls', days: 30, end, fts: false });
  const rig = forwarderRig([g.path], { dir, timeZone: 'UTC' });
  try {
    assert.equal(rig.forwarder.backfill()[0]!.error, null);
    assert.deepEqual(keptDifferences(rig), []);
    rig.forwarder.close();
    const db = openDataset(rig.home, { timeZone: 'UTC' });
    try {
      const models = db.prepare('SELECT DISTINCT model FROM usage_ledger ORDER BY model').pluck().all() as string[];
      const sources = db.prepare('SELECT DISTINCT source FROM tool_usage ORDER BY source').pluck().all() as string[];
      const requests: ReportRequest[] = [
        {}, { since: end - 86_400 }, { since: end - 7 * 86_400 }, { since: end - 20 * 86_400, until: end - 10 * 86_400 }, { until: end - 25 * 86_400 },
        { since: end + 86_400 }, { filter: { model: [models[0]!] } }, { filter: { source: [sources.at(-1)!] }, since: end - 3 * 86_400 },
        { filter: { task: ['main'], model: models.slice(0, 2) } }, { filter: { session: ['no such session'] } },
      ];
      const source = sqliteSource(db);
      const plain = (r: ReportRequest, limit: number) => {
        const { tools, params } = reportCondition(r);
        return db.prepare(slowestSql(r, tools, limit)).all(params);
      };
      for (const r of requests) {
        for (const limit of [1, 5, 10, 100]) {
          const want = plain(r, limit);
          assert.deepEqual(await source.slowestCalls(r, limit), want, `${JSON.stringify(r)} limit ${limit}`);
          const { tools, params } = reportCondition(r);
          assert.deepEqual(db.prepare(slowestKeptSql(r, tools, limit)).all(params), want);
        }
      }
      assert.ok(plain({}, 10).length === 10);
      // A hand edit that leaves a call stale (a second result given to a call, then the earlier of the two deleted): read
      // from the parts until a write settles it, the same answer.
      const [a, b] = db.prepare("SELECT part_id, tool_result_for FROM parts WHERE part_type = 'tool_result' AND session_id = (SELECT session_id FROM tool_calls WHERE answered >= called GROUP BY session_id HAVING COUNT(*) > 1 LIMIT 1) ORDER BY created_at LIMIT 2").all() as { part_id: string; tool_result_for: string }[];
      db.prepare('UPDATE parts SET tool_result_for = ? WHERE part_id = ?').run(b!.tool_result_for, a!.part_id);
      assert.equal(db.prepare('SELECT COUNT(*) FROM tool_calls WHERE stale = 1').pluck().get(), 0);
      db.prepare('DELETE FROM parts WHERE part_id = ?').run(a!.part_id);
      assert.equal(db.prepare('SELECT COUNT(*) FROM tool_calls WHERE stale = 1').pluck().get(), 1);
      for (const r of requests) assert.deepEqual(await source.slowestCalls(r, 10), plain(r, 10), JSON.stringify(r));
    } finally {
      db.close();
    }
  } finally {
    rig.cleanup();
    cleanup();
  }
});
