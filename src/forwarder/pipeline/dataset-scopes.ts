// The scopes that governed a session, rebuilt from the dataset's own rows (for `forget`, and for the policy's later
// changes applied to what was forwarded: policy-moves.ts): projector/scope.ts scopesOf, the function `forward` judged
// the session with, over the dataset's copy of the fields it reads, under the Hermes home the store's row names.
import { dirname, isAbsolute } from 'node:path';
import type { Db } from '../../shared/sqlite.js';
import { scopesOf } from '../projector/scope.js';

export interface DatasetSession {
  store: string;
  session_id: string;
  scope: string | null;
  source: string | null;
  cwd: string | null;
  parent_session_id: string | null;
  /** Of the session's attributes, the two scopesOf reads, taken out in SQL (parsing every session's whole JSON costs more). */
  handoff_platform: unknown;
  /** `model_config` as JSON text (a string value quoted, as JSON.stringify writes it), or null. */
  model_config: string | null;
  /** The class the session was written under: `full` or `local-only`. */
  policy: string;
}

/** Ancestors followed at most this far (a cycle in parent ids, or a chain longer than any Hermes makes, stops there). */
const MAX_PARENTS = 64;

/**
 * Every scope that governed the session when `forward` judged it (projector/scope.ts scopesOf, the same function): its
 * own, the channel it was handed off to, and for a delegate its parents' — rebuilt from the dataset's rows, under the
 * Hermes home the store's row names (the store's folder before dataset version 9).
 */
export function datasetScopes(row: DatasetSession, bySession: Map<string, DatasetSession>, hermesHome: string, hermesRow: (r: DatasetSession) => Record<string, unknown>): string[] {
  const parents: Record<string, unknown>[] = [];
  const seen = new Set([row.session_id]);
  for (let p = row.parent_session_id; p !== null && !seen.has(p) && parents.length < MAX_PARENTS; ) {
    seen.add(p);
    const parent = bySession.get(p);
    if (!parent) break;
    parents.push(hermesRow(parent));
    p = parent.parent_session_id;
  }
  const scopes = scopesOf(hermesRow(row), parents, hermesHome);
  // A row written with a scope this rebuild does not give (rules of an older Hermetic) is judged by it too.
  return row.scope !== null && !scopes.includes(row.scope) ? [row.scope, ...scopes] : scopes;
}

/** The fields scopesOf reads, as Hermes's session row holds them (its attributes parsed once per session). */
export function hermesRows(): (r: DatasetSession) => Record<string, unknown> {
  const made = new Map<DatasetSession, Record<string, unknown>>();
  return (r) => {
    let row = made.get(r);
    if (row) return row;
    row = { source: r.source, cwd: r.cwd, handoff_platform: r.handoff_platform ?? null, model_config: r.model_config };
    made.set(r, row);
    return row;
  };
}

/** Every session of the dataset with the scopes that govern it, in store and id order. */
export function sessionsWithScopes(db: Db): { row: DatasetSession; scopes: string[] }[] {
  // A dataset before version 7 has no attributes: nothing beyond the columns is known.
  const has = db.prepare("SELECT 1 FROM pragma_table_info('sessions') WHERE name = 'attributes'").get() !== undefined;
  const attribute = (path: string) => (has ? `CASE WHEN json_valid(attributes) THEN ${path} END` : 'NULL');
  const rows = db.prepare(`SELECT store, session_id, scope, source, cwd, parent_session_id, policy,
      ${attribute("json_extract(attributes, '$.handoff_platform')")} AS handoff_platform,
      ${attribute("CASE json_type(attributes, '$.model_config') WHEN 'text' THEN json_quote(json_extract(attributes, '$.model_config')) ELSE json_extract(attributes, '$.model_config') END")} AS model_config
    FROM sessions ORDER BY store, session_id`).all() as DatasetSession[];
  const homes = new Map((db.prepare('SELECT store, hermes_home FROM stores').all() as { store: string; hermes_home: string | null }[]).map((r) => [r.store, r.hermes_home]));
  const byStore = new Map<string, Map<string, DatasetSession>>();
  for (const r of rows) {
    let m = byStore.get(r.store);
    if (!m) byStore.set(r.store, (m = new Map()));
    m.set(r.session_id, r);
  }
  const hermesRow = hermesRows();
  return rows.map((row) => {
    // The Hermes home the store's row names; before dataset version 9 a state.db's folder. A PostgreSQL store's key
    // is no path: until its row names its home, the session is judged by the scope the dataset recorded.
    const home = homes.get(row.store) ?? (isAbsolute(row.store) ? dirname(row.store) : null);
    return { row, scopes: home === null ? (row.scope === null ? [] : [row.scope]) : datasetScopes(row, byStore.get(row.store)!, home, hermesRow) };
  });
}
