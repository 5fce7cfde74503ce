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
