// What `hermetic query` adds when SQLite names a table or column the dataset does not have: the names it most likely
// meant, from the dataset's own schema, so a first query does not need the reference open beside it (decision 0107).
import { suggest } from '../../shared/options.js';
import type { Db } from '../../shared/sqlite.js';

/** The dataset's tables and views (SQLite's own left out), each with its columns in order. */
export function datasetNames(db: Db): Map<string, string[]> {
  const names = db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name").pluck().all() as string[];
  return new Map(names.map((t) => [t, (db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(t) as string[])]));
}

/** At most this many columns are offered, each with at most this many of the tables that have it. */
const MAX_NAMES = 4;
const MAX_TABLES = 3;

/**
 * The name in `known` `typed` most likely slipped from: a letter or two off (two swapped count as one), fewer for a
 * short name (`foo` is not `tool`).
 */
const slip = (typed: string, known: readonly string[]): string | undefined =>
  suggest(typed, known, { most: Math.max(1, Math.floor(typed.length / 3)), swaps: true });

/**
 * The words to add to SQLite's "no such table: X" or "no such column: X" (null for any other message): the closest
 * table, else every table; the columns whose names are close to X or hold it (`cost_usd` → `estimated_cost_usd`), each
 * with tables that have it, the tables `sql` names first. Always ends with where every column is described.
 * @example namesHint('no such column: cost_usd', names, 'SELECT cost_usd FROM sessions') // '; did you mean …? (…)'
 */
export function namesHint(message: string, names: ReadonlyMap<string, readonly string[]>, sql = ''): string | null {
  const reference = 'docs/reference/dataset.md describes every table and column';
  const table = /^no such table: (?:\w+\.)?(.+)$/.exec(message);
  if (table) {
    const tables = [...names.keys()];
    const close = slip(table[1]!.toLowerCase(), tables);
    return close ? `; did you mean ${close}? (${reference})` : `; the dataset's tables: ${tables.join(', ')} (${reference})`;
  }
  const column = /^no such column: (?:.*\.)?([^.]+)$/.exec(message);
  if (!column) return null;
  const typed = column[1]!.toLowerCase();
  // The tables the query names (as words of it), whose columns come first.
  const words = new Set(sql.toLowerCase().match(/\w+/g) ?? []);
  const named = [...names.keys()].filter((t) => words.has(t.toLowerCase()));
  const where = new Map<string, string[]>();
  for (const t of [...named, ...[...names.keys()].filter((t) => !named.includes(t))]) for (const c of names.get(t)!) where.set(c, [...(where.get(c) ?? []), t]);
  const all = [...where.keys()];
  const inNamed = (c: string) => named.some((t) => names.get(t)!.includes(c));
  const close = slip(typed, all.filter(inNamed)) ?? slip(typed, all);
  // A column whose name holds what was typed, or the other way round (three letters at least: not every `id`).
  const holding = all.filter((c) => c !== close && (c.toLowerCase().includes(typed) || (c.length >= 3 && typed.includes(c.toLowerCase()))));
  // The query's tables' columns first; then the slip before the others; then the shorter.
  const order = (a: string, b: string) => Number(inNamed(b)) - Number(inNamed(a)) || Number(b === close) - Number(a === close) || a.length - b.length || a.localeCompare(b);
  const offered = [...(close ? [close] : []), ...holding].sort(order).slice(0, MAX_NAMES);
  if (offered.length === 0) return `; no table of the dataset has such a column (${reference})`;
  const tablesOf = (c: string) => {
    const ts = where.get(c)!;
    return ts.length > MAX_TABLES ? `${ts.slice(0, MAX_TABLES).join(', ')}, …` : ts.join(', ');
  };
  const listed = offered.map((c) => `${c} (${tablesOf(c)})`);
  const text = listed.length === 1 ? listed[0] : `${listed.slice(0, -1).join(', ')} or ${listed.at(-1)}`;
  return `; did you mean ${text}? (${reference})`;
}
