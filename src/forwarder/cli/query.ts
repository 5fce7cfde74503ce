// `hermetic query "SQL"`: read-only SQL on the dataset; a table on a terminal, a JSON array with --json.
import { parseFlags, usageError } from '../../cli/args.js';
import { HermeticError } from '../../shared/errors.js';
import { hermeticHome } from '../pipeline/forwarder.js';
import { openDatasetReadOnly } from '../sinks/sqlite/dataset.js';
import { COMMON_FLAGS } from './common.js';
import { FORWARDER_HELP } from './help.js';

const cell = (v: unknown): string => (v === null || v === undefined ? 'NULL' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** A plain text table: a header, a rule, one line per row; long cells cut at 60 characters. */
export function formatTable(columns: string[], rows: Record<string, unknown>[]): string {
  const cut = (s: string) => (s.length > 60 ? `${s.slice(0, 59)}…` : s).replace(/\n/g, ' ');
  const cells = rows.map((r) => columns.map((c) => cut(cell(r[c]))));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(columns), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line), `(${rows.length} row${rows.length === 1 ? '' : 's'})`].join('\n');
}

export async function queryCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, { home: COMMON_FLAGS.home, json: COMMON_FLAGS.json, help: COMMON_FLAGS.help }, 1);
  if (values.help) return console.log(FORWARDER_HELP), 0;
  const sql = positionals[0];
  if (sql === undefined || sql.trim() === '') usageError('query needs one SQL statement, e.g. hermetic query "SELECT source, SUM(input_tokens) FROM sessions GROUP BY source".');
  const db = openDatasetReadOnly(hermeticHome(values.home));
  try {
    let stmt;
    try {
      stmt = db.prepare(sql);
    } catch (e) {
      throw new HermeticError('HERMETIC_QUERY_INVALID', `SQLite cannot run this query: ${(e as Error).message}.`);
    }
    if (!stmt.reader || !stmt.readonly) throw new HermeticError('HERMETIC_QUERY_WRITE', 'hermetic query only reads the dataset; use a SELECT (or WITH … SELECT) statement.');
    let rows: Record<string, unknown>[];
    try {
      rows = stmt.all() as Record<string, unknown>[];
    } catch (e) {
      throw new HermeticError('HERMETIC_QUERY_INVALID', `SQLite cannot run this query: ${(e as Error).message}.`);
    }
    const columns = stmt.columns().map((c) => c.name);
    console.log(values.json ? JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)) : formatTable(columns, rows));
    return 0;
  } finally {
    db.close();
  }
}
