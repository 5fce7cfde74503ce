// `hermetic statedb inspect`: what a store is (version, journal mode, counts) and where its columns differ from the
// known layout of that version. Never writes, and leaves the store's folder exactly as it found it (decision 0013).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readSnapshot, type Db } from '../shared/sqlite.js';
import { expectedTableInfo, tablesAt } from './schema/layout.js';
import { LATEST_LEVEL, type TableInfoRow } from './schema/types.js';
import { quoteName } from '../shared/sql-name.js';

export interface InspectReport {
  path: string;
  schemaVersion: number | null;
  /** Our level (31 when a v30 store has session_daily_usage). */
  level: number | null;
  journalMode: string;
  applicationId: number;
  counts: Record<string, number>;
  /** Level the physical layout matches as "created at N, migrated" (null when it matches no known layout). */
  createdAt: number | null;
  /** Human-readable column differences from the fresh layout of `level`. */
  differences: string[];
  fts: boolean;
  /** Notes such as a PostgreSQL backend configured next to the store. */
  notes: string[];
}

const same = (a: TableInfoRow[], b: TableInfoRow[]) => JSON.stringify(a) === JSON.stringify(b);

/** Differences between a live table and its expected layout, in words. */
function diffTable(name: string, live: TableInfoRow[], want: TableInfoRow[]): string[] {
  const out: string[] = [];
  const byName = new Map(live.map((c) => [c.name, c]));
  const wantNames = new Set(want.map((c) => c.name));
  for (const w of want) {
    const l = byName.get(w.name);
    if (!l) out.push(`${name}.${w.name}: missing`);
    else if (l.type !== w.type || l.notnull !== w.notnull || l.dflt_value !== w.dflt_value || l.pk !== w.pk) {
      out.push(`${name}.${w.name}: ${l.type} notnull=${l.notnull} default=${l.dflt_value} pk=${l.pk} (known: ${w.type} notnull=${w.notnull} default=${w.dflt_value} pk=${w.pk})`);
    }
  }
  for (const l of live) if (!wantNames.has(l.name)) out.push(`${name}.${l.name}: not in the known schema`);
  const common = live.filter((c) => wantNames.has(c.name)).map((c) => c.name);
  const wantOrder = want.filter((c) => byName.has(c.name)).map((c) => c.name);
  if (out.length === 0 && common.join() !== wantOrder.join()) out.push(`${name}: column order differs from a fresh store (migrated layout)`);
  return out;
}

/**
 * Reports what the store at `path` is; throws HERMETIC_STATEDB_OPEN (missing, a folder, unreadable, damaged) or
 * HERMETIC_STATEDB_NOT_SQLITE (empty, or not SQLite at all).
 * @example formatReport(inspectStore('/home/me/.hermes/state.db'))
 */
export function inspectStore(path: string): InspectReport {
  return readSnapshot(path, (db) => report(path, db), { open: 'HERMETIC_STATEDB_OPEN', notSqlite: 'HERMETIC_STATEDB_NOT_SQLITE' });
}

function report(path: string, db: Db): InspectReport {
  const names = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
  const counts: Record<string, number> = {};
  for (const n of names) counts[n] = (db.prepare(`SELECT COUNT(*) AS n FROM ${quoteName(n)}`).get() as { n: number }).n;
  const version = names.includes('schema_version')
    ? ((db.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number | null }).v ?? null) : null;
  const level = version === null ? null : version >= 30 && names.includes('session_daily_usage') ? LATEST_LEVEL : Math.min(version, 30);
  const live = (t: string) => db.prepare(`PRAGMA table_info(${quoteName(t)})`).all() as TableInfoRow[];
  const differences: string[] = [];
  let createdAt: number | null = null;
  if (level !== null) {
    const tables = tablesAt(level);
    for (let c = level; c >= 1 && createdAt === null; c--) {
      if (tables.every((t) => !names.includes(t.name) || same(live(t.name), expectedTableInfo(t.name, level, c)))) createdAt = c;
    }
    for (const t of tables) {
      if (!names.includes(t.name)) differences.push(`${t.name}: table missing`);
      else if (createdAt === null) differences.push(...diffTable(t.name, live(t.name), expectedTableInfo(t.name, level)));
    }
    if (createdAt !== null && createdAt !== level) differences.push(`layout of a store created at v${Math.min(createdAt, 30)} and migrated (columns appended)`);
  }
  const notes: string[] = [];
  if (!names.includes('schema_version')) notes.push('no schema_version table: this SQLite database is not a Hermes state.db.');
  const config = join(dirname(path), 'config.yaml');
  if (existsSync(config) && /backend:\s*postgres/.test(readFileSync(config, 'utf8'))) {
    notes.push('config.yaml selects the PostgreSQL backend: sessions and messages are not in this state.db (it may be stale).');
  }
  return {
    path, schemaVersion: version, level, journalMode: String(db.pragma('journal_mode', { simple: true })),
    applicationId: Number(db.pragma('application_id', { simple: true })), counts, createdAt, differences,
    fts: names.includes('messages_fts'), notes,
  };
}

export function formatReport(r: InspectReport): string {
  const lines = [
    `store:          ${r.path}`,
    `schema_version: ${r.schemaVersion ?? 'none'}${r.level === LATEST_LEVEL ? ' (with session_daily_usage)' : ''}`,
    `journal mode:   ${r.journalMode}`,
    `application_id: ${r.applicationId}`,
    `full-text:      ${r.fts ? 'FTS5 tables present' : 'none'}`,
    'tables:',
    ...Object.entries(r.counts).map(([k, v]) => `  ${k.padEnd(30)} ${v}`),
    // Without a schema version there is no known schema to compare with (the note below says what the file is not).
    r.level === null ? 'columns:        not compared (no schema version)' : r.differences.length === 0 ? 'columns:        match the known schema of this version' : 'columns that differ from the known version:',
    ...r.differences.map((d) => `  ${d}`),
    ...r.notes.map((n) => `note: ${n}`),
  ];
  return lines.join('\n');
}
