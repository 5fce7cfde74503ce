// A store from before Hermes kept costs (schema v2) reports its sessions' $0.00 as "no cost recorded", not as a
// measured cost; so does usage Hermes could not price (decision 0132); a count of none says nothing of the kind.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { generate } from '../../state-db/generate/index.js';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { forwarderRig } from '../testing/index.js';
import { renderSummary, summaryTables, uncostedIn, type SummaryView } from './index.js';

const NOW = Date.UTC(2026, 6, 15, 10, 30) / 1000;
let tmp: { dir: string; cleanup: () => void };
const dbs: Database.Database[] = [];

/** A dataset backfilled from a generated store of `profile`, read-only. */
function dataset(profile: string): Database.Database {
  const g = generate({ out: join(tmp.dir, profile, 'state.db'), profile, sessions: 12, messages: 120, seed: `uncosted-${profile}`, end: NOW, days: 5 });
  const rig = forwarderRig([g.path], { dir: join(tmp.dir, profile), timeZone: 'UTC' });
  rig.forwarder.backfill();
  rig.forwarder.close();
  const db = new Database(join(rig.home, 'hermetic.db'), { readonly: true });
  dbs.push(db);
  return db;
}

before(() => { tmp = tempDir('hermetic-uncosted-'); });
after(() => { for (const db of dbs) db.close(); tmp.cleanup(); });

it('sessions with no cost at all are counted and said under the cost; none counted, nothing said', () => {
  const old = dataset('v2-early');
  const sessions = (old.prepare('SELECT COUNT(*) AS n FROM sessions').get() as { n: number }).n;
  assert.equal(uncostedIn(old, {}), sessions);
  const view: SummaryView = { ...summaryTables(old, {}, NOW), zoneName: 'UTC', uncosted: uncostedIn(old, {}) };
  assert.match(renderSummary(view, false, 80), new RegExp(`Hermes recorded no cost for any of these ${sessions} sessions: their \\$0\\.00 is\\n +not a measured cost`));
  // One session, or one of several, in the singular (as the dashboard says it).
  const one = (uncosted: number, all: number) => renderSummary({ ...view, totals: { ...view.totals, totals: { ...view.totals.totals, sessions: all } }, uncosted }, false, 200);
  assert.match(one(1, 1), /Hermes recorded no cost for this session: its \$0\.00 is not a measured cost/);
  assert.match(one(3, 3), /Hermes recorded no cost for any of these 3 sessions: their \$0\.00 is not a measured cost/);
  assert.match(one(1, 5), /Hermes recorded no cost for 1 of these 5 sessions: its \$0\.00 is not a measured cost/);
  const current = dataset('v30');
  assert.doesNotMatch(renderSummary({ ...summaryTables(current, {}, NOW), zoneName: 'UTC', uncosted: 0 }, false, 80), /no cost for/);
});

it('usage Hermes could not price (a cost status of unknown, an estimate of 0) is counted too (decision 0132)', () => {
  const path = join(tmp.dir, 'unpriced', 'state.db');
  generate({ out: path, profile: 'v30', sessions: 12, messages: 120, seed: 'uncosted-unpriced', end: NOW, days: 5 });
  const store = new Database(path);
  // As Hermes's delta SQL leaves a session whose calls it could not price: COALESCE(estimated, 0) + COALESCE(NULL, 0).
  const ids = store.prepare("SELECT id FROM sessions WHERE parent_session_id IS NULL ORDER BY id LIMIT 2").pluck().all() as string[];
  for (const id of ids) store.prepare("UPDATE sessions SET estimated_cost_usd = 0, actual_cost_usd = NULL, cost_status = 'unknown', cost_source = 'none' WHERE id = ?").run(id);
  store.prepare(`UPDATE session_model_usage SET estimated_cost_usd = 0, actual_cost_usd = 0, cost_status = 'unknown', cost_source = 'none' WHERE session_id IN (${ids.map(() => '?').join(', ')})`).run(...ids);
  // The generated store's own unpriced sessions (its local model: decision 0132), read from Hermes's rows.
  const own = store.prepare("SELECT COUNT(*) FROM sessions WHERE cost_status = 'unknown' AND estimated_cost_usd = 0 AND COALESCE(actual_cost_usd, 0) = 0 AND id NOT IN (SELECT session_id FROM session_model_usage WHERE estimated_cost_usd <> 0 OR actual_cost_usd <> 0)").pluck().get() as number;
  store.close();
  const rig = forwarderRig([path], { dir: join(tmp.dir, 'unpriced'), timeZone: 'UTC' });
  rig.forwarder.backfill();
  rig.forwarder.close();
  const db = new Database(join(rig.home, 'hermetic.db'), { readonly: true });
  dbs.push(db);
  assert.ok(own >= ids.length, `${own} unpriced sessions, the two made so among them`);
  assert.equal(uncostedIn(db, {}), own);
});
