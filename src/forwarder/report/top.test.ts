// --top's rest row counts sessions as a session is counted everywhere in the report: once, however many of the left-out
// groups it is in (a session on two models, or two days, is one session), so the rest never holds more sessions than
// the window — computed here again from the ledger's rows, for the usage ledger and for tool calls.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { generatedStore } from '../../state-db/testing/generated.js';
import { forwarderRig } from '../testing/index.js';
import { usageReport, type ReportRow } from './index.js';

const NOW = Date.UTC(2026, 6, 15, 10, 30) / 1000;
let db: Database.Database;
let cleanup: () => void;

before(() => {
  const t = tempDir('hermetic-report-top-');
  cleanup = t.cleanup;
  const g = generatedStore({ out: join(t.dir, 'hermes', 'state.db'), sessions: 80, messages: 1600, seed: 'report-top', end: NOW, days: 20 });
  const rig = forwarderRig([g.path], { dir: t.dir, timeZone: 'UTC' });
  rig.forwarder.backfill();
  rig.forwarder.close();
  db = new Database(join(rig.home, 'hermetic.db'), { readonly: true });
});
after(() => {
  db.close();
  cleanup();
});

/** The distinct sessions with a row of `table` whose key (by `keyOf`) is not one of the kept rows'. */
function sessionsOutside(table: string, kept: readonly ReportRow[], keyOf: (r: Record<string, unknown>) => string): number {
  const keys = new Set(kept.map((r) => keyOf(r)));
  const sessions = new Set<string>();
  for (const r of db.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[]) if (!keys.has(keyOf(r))) sessions.add(`${r.store}\u0000${r.session_id}`);
  return sessions.size;
}

it('the rest of a --top by model, by day and model, and by tool and day counts each of its sessions once', () => {
  const cases: { by: ('model' | 'day' | 'tool')[]; top: number; table: string }[] = [
    { by: ['model'], top: 2, table: 'usage_ledger' },
    { by: ['day', 'model'], top: 5, table: 'usage_ledger' },
    { by: ['tool', 'day'], top: 4, table: 'tool_usage' },
  ];
  for (const c of cases) {
    const r = usageReport(db, { by: c.by, top: c.top });
    const keyOf = (row: Record<string, unknown>) => c.by.map((d) => String(d === 'tool' ? row.tool ?? row.tool_name : row[d] ?? '')).join('\u0000');
    const rest = r.rows.at(-1)!;
    assert.ok(Number(rest.other_rows ?? 0) > 0, `${c.by.join('+')}: a rest row`);
    const kept = r.rows.slice(0, -1);
    assert.equal(rest.sessions, sessionsOutside(c.table, kept, keyOf), `${c.by.join('+')}: the rest's distinct sessions`);
    assert.ok(Number(rest.sessions) <= Number(r.totals.sessions), `${c.by.join('+')}: ${rest.sessions} sessions in the rest, ${r.totals.sessions} in the window`);
    // Before: the groups' own counts added up, more than the window held.
    const summed = usageReport(db, { by: c.by }).rows.filter((x) => !kept.some((k) => keyOf(k) === keyOf(x))).reduce((t, x) => t + Number(x.sessions), 0);
    assert.ok(summed > Number(rest.sessions), `${c.by.join('+')}: sessions span the left-out groups (${summed} summed, ${rest.sessions} distinct)`);
  }
});

it('the rest of a --top by what is one value a session (source, project, profile, with a tree) holds the sessions the kept rows do not', () => {
  const cases: { by: ('source' | 'project' | 'profile' | 'tree')[]; top: number; filter?: { model: string[] } }[] = [
    { by: ['source'], top: 1 },
    { by: ['project'], top: 2 },
    { by: ['source', 'project'], top: 3 },
    { by: ['profile', 'source'], top: 1 },
    { by: ['project', 'tree'], top: 4 },
  ];
  const models = db.prepare('SELECT DISTINCT model FROM usage_ledger ORDER BY model').pluck().all() as string[];
  cases.push({ by: ['source'], top: 1, filter: { model: [models[0]!] } });
  for (const c of cases) {
    const label = `${c.by.join('+')}${c.filter ? ` of ${c.filter.model[0]}` : ''}`;
    const r = usageReport(db, { by: c.by, top: c.top, ...(c.filter ? { filter: c.filter } : {}) });
    const rest = r.rows.at(-1)!;
    assert.ok(Number(rest.other_rows ?? 0) > 0, `${label}: a rest row`);
    // Computed again from the ledger's rows: the distinct sessions (in the filter) outside the kept rows' keys.
    const kept = r.rows.slice(0, -1);
    const tree = c.by.includes('tree') ? new Map(kept.map((k) => [String(k.session_id ?? k.tree ?? ''), true])) : null;
    const keyOf = (row: Record<string, unknown>) => c.by.map((d) => String(d === 'tree' ? row.tree ?? row.lineage_root ?? row.session_id : row[d] ?? '')).join('\u0000');
    if (tree) {
      // By tree the rest is checked against the report without --top: the groups it left out, each session once.
      const all = usageReport(db, { by: c.by, ...(c.filter ? { filter: c.filter } : {}) }).rows;
      const left = all.filter((x) => !kept.some((k) => keyOf(k) === keyOf(x)));
      assert.equal(rest.sessions, left.reduce((t, x) => t + Number(x.sessions), 0), `${label}: the left-out groups' sessions`);
      continue;
    }
    const inFilter = c.filter ? ` WHERE model IN (${c.filter.model.map(() => '?').join(', ')})` : '';
    const keys = new Set(kept.map(keyOf));
    const sessions = new Set<string>();
    for (const row of db.prepare(`SELECT * FROM usage_ledger${inFilter}`).all(...(c.filter?.model ?? [])) as Record<string, unknown>[]) {
      if (!keys.has(keyOf(row))) sessions.add(`${row.store}\u0000${row.session_id}`);
    }
    assert.equal(rest.sessions, sessions.size, `${label}: the rest's distinct sessions`);
    // Each session in one row: the rows' sessions add up to the window's.
    assert.equal(r.rows.reduce((t, x) => t + Number(x.sessions), 0), Number(r.totals.sessions), `${label}: rows part the sessions`);
  }
});
