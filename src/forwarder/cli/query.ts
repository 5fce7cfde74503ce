// `hermetic query "SQL"`: read-only SQL on the dataset; a table (fitted to a terminal's width, BLOBs in hex), or a
// JSON array with --json. Both are written as the rows are read, so a result of any size holds bounded memory.
import { randomUUID } from 'node:crypto';
import { parseFlags, usageError } from '../../cli/args.js';
import { HermeticError } from '../../shared/errors.js';
import { damagedFile, primaryCode } from '../../shared/sqlite-errors.js';
import { hermeticHome } from '../pipeline/forwarder.js';
import { displayWidth, fitText, padText, terminalText, wrapWords } from '../report/wrap.js';
import { openDatasetReadOnly } from '../sinks/sqlite/dataset.js';
import { COMMON_FLAGS, fleetFrom } from './common.js';
import { QUERY_HELP } from './help.js';

/** The flags query parses (its help page documents each: help.test.ts). */
export const FLAGS = { home: COMMON_FLAGS.home, json: COMMON_FLAGS.json, help: COMMON_FLAGS.help, from: { type: 'string' } } as const;

/** A value as a table shows it: NULL, a BLOB in hex (x'…', as SQLite writes one), JSON for objects, else text. */
const cell = (v: unknown): string => {
  if (v === null || v === undefined) return 'NULL';
  if (v instanceof Uint8Array) return `x'${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}'`;
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
};

/**
 * The rows as JSON: a BLOB is its bytes in hex (its toJSON would give a list of numbers), an integer a JSON number
 * with every digit SQLite stored (one past 2^53 too, which a double would round).
 */
export function queryJson(rows: readonly Record<string, unknown>[]): string {
  // Such an integer is a marked string while JSON.stringify runs (the mark new each time, so no text can spell it),
  // then its digits replace the string.
  const mark = `big${randomUUID().replace(/-/g, '')}:`;
  const text = JSON.stringify(rows, function (this: Record<string, unknown>, k: string, v: unknown) {
    const raw = this[k];
    if (raw instanceof Uint8Array) return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('hex');
    if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : `${mark}${v}`;
    // JSON has no infinity (JSON.stringify would write null, a value that is not there): said as text.
    if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
    return v;
  });
  return text.includes(mark) ? text.replace(new RegExp(`"${mark}(-?\\d+)"`, 'g'), '$1') : text;
}

/** Said under a table whose values were cut. */
export const CUT_HINT = '(values cut to fit are marked …; hermetic query --json shows them whole)';

/** Rows a table holds while it measures them; a longer result is measured, then read again to print (bounded memory). */
export const HELD_ROWS = 10_000;

/** A value as a table line shows it: harmless (terminalText), before it is cut to its column. */
const shown = (v: unknown): string => terminalText(cell(v));

/** Widens `natural` (the columns' widths so far, in terminal columns) to fit the row. */
export function measureRow(natural: number[], columns: readonly string[], row: Record<string, unknown>): void {
  for (let i = 0; i < columns.length; i++) natural[i] = Math.max(natural[i]!, displayWidth(shown(row[columns[i]!])));
}

/** The columns' widths before any row: their headers'. */
export const headerWidths = (columns: readonly string[]): number[] => columns.map((c) => displayWidth(terminalText(c)));

/**
 * A plain text table, line by line: a header, a rule, one line per row, and the row count. Values are shown harmless
 * (line breaks as ⏎, other control characters visibly: terminalText) and measured in terminal columns (CJK takes two).
 * Long values are cut at 60 columns, or, given the terminal's width, so that each line fits it; a table with a cut
 * value says so. `natural` is every row's widest value per column (measureRow), so the rows can be read as they are
 * printed.
 */
export function* tableLines(columns: readonly string[], natural: readonly number[], rows: Iterable<Record<string, unknown>>, width?: number): Generator<string> {
  const heads = columns.map(terminalText);
  let widths = natural.map((w) => Math.min(w, 60));
  if (width !== undefined) {
    // The widest columns give way first, none below 8 columns (or its header), until the line fits.
    const floor = heads.map((h, i) => Math.min(natural[i]!, Math.max(8, displayWidth(h))));
    widths = [...natural];
    const total = () => widths.reduce((a, b) => a + b, 0) + 2 * (columns.length - 1);
    while (total() > width) {
      let widest = -1;
      for (let i = 0; i < widths.length; i++) if (widths[i]! > floor[i]! && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
      if (widest < 0) break;
      widths[widest]!--;
    }
  }
  let cut = false;
  const fit = (s: string, w: number) => {
    const text = fitText(s, w, true);
    if (text !== s) cut = true;
    return text;
  };
  const line = (vals: string[]) => vals.map((v, i) => padText(v, widths[i]!)).join('  ').trimEnd();
  yield line(heads.map((h, i) => fit(h, widths[i]!)));
  yield widths.map((w) => '-'.repeat(w)).join('  ');
  let count = 0;
  for (const r of rows) {
    count++;
    yield line(columns.map((c, i) => fit(shown(r[c]), widths[i]!)));
  }
  yield `(${count} row${count === 1 ? '' : 's'})`;
  // On a terminal the hint wraps to its width too.
  if (cut) yield* width === undefined ? [CUT_HINT] : wrapWords(CUT_HINT, width);
}

/** A table of rows held in memory (tableLines), as one text. */
export function formatTable(columns: string[], rows: Record<string, unknown>[], width?: number): string {
  const natural = headerWidths(columns);
  for (const r of rows) measureRow(natural, columns, r);
  return [...tableLines(columns, natural, rows, width)].join('\n');
}

/**
 * The rows as a JSON array in lines of a thousand rows, each line ending after a row's comma, so a result of any size
 * is printed as it is read: the lines joined are queryJson of every row (one line, as before, up to a thousand rows).
 */
export function* jsonLines(rows: Iterable<Record<string, unknown>>): Generator<string> {
  let batch: Record<string, unknown>[] = [];
  let first = true;
  for (const r of rows) {
    if (batch.length === 1000) {
      yield `${first ? '[' : ''}${queryJson(batch).slice(1, -1)},`;
      first = false;
      batch = [];
    }
    batch.push(r);
  }
  yield `${first ? '[' : ''}${batch.length > 0 ? queryJson(batch).slice(1, -1) : ''}]`;
}

/**
 * The statement on the fleet store: one statement (a prepared one: PostgreSQL refuses several), in a read-only
 * transaction with the fleet schema first on the search path.
 */
async function fleetQuery(url: string, sql: string): Promise<{ columns: string[]; rows: Record<string, unknown>[] }> {
  const { readFleet } = await import('../sinks/postgres/read.js');
  return readFleet(url, async (client) => {
    try {
      const r = await client.query({ name: 'hermetic_query', text: sql });
      return { columns: r.fields.map((f) => f.name), rows: r.rows as Record<string, unknown>[] };
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      if (code === '25006') throw new HermeticError('HERMETIC_QUERY_READ_ONLY', 'hermetic query --from reads the fleet store in a read-only transaction; PostgreSQL refused this statement because it would write. Use a SELECT (or WITH … SELECT) statement.');
      if (typeof code === 'string' && /^(42|22|0A|21|2F|34|3F)/.test(code)) throw new HermeticError('HERMETIC_QUERY_INVALID', `PostgreSQL cannot run this query: ${(e as Error).message}.`);
      throw e;
    }
  }, { requireSchema: false });
}

export async function queryCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, FLAGS, 1);
  if (values.help) return console.log(QUERY_HELP), 0;
  const sql = positionals[0];
  if (sql === undefined || sql.trim() === '') usageError('query needs one SQL statement, e.g. hermetic query "SELECT source, SUM(input_tokens) FROM sessions GROUP BY source".');
  if (values.from !== undefined) {
    fleetFrom(values.from);
    if (values.home !== undefined) usageError('--from and --home name two different datasets; give one.');
    const { columns, rows } = await fleetQuery(values.from, sql);
    console.log(values.json ? JSON.stringify(rows) : formatTable(columns, rows, process.stdout.isTTY ? process.stdout.columns || 80 : undefined));
    return 0;
  }
  const db = openDatasetReadOnly(hermeticHome(values.home));
  /** What SQLite refused: the dataset's damage, else the query's own fault. */
  const refused = (e: unknown) => damagedFile(e, 'dataset') ?? new HermeticError('HERMETIC_QUERY_INVALID', `SQLite cannot run this query: ${(e as Error).message}.`);
  try {
    let stmt;
    try {
      stmt = db.prepare(sql);
    } catch (e) {
      // better-sqlite3 refuses a text of two statements with a RangeError: the query's fault too.
      throw refused(e);
    }
    if (!stmt.reader || !stmt.readonly) throw new HermeticError('HERMETIC_QUERY_WRITE', 'hermetic query only reads the dataset; use a SELECT (or WITH … SELECT) statement.');
    // Integers as bigints, so one past 2^53 prints as stored, not rounded to a double.
    const read = () => stmt.safeIntegers(true).iterate() as IterableIterator<Record<string, unknown>>;
    const columns = stmt.columns().map((c) => c.name);
    // Both reads of a long table see one snapshot of the dataset (a forward may write between them).
    db.exec('BEGIN');
    try {
      // Printed line by line (stdout is written synchronously on Linux: nothing piles up in memory).
      if (values.json) {
        for (const line of jsonLines(read())) console.log(line);
        return 0;
      }
      // A table needs every row's width before its first line: a short result is held, a long one read twice.
      const natural = headerWidths(columns);
      let held: Record<string, unknown>[] | null = [];
      for (const r of read()) {
        measureRow(natural, columns, r);
        if (held !== null && held.push(r) > HELD_ROWS) held = null;
      }
      for (const line of tableLines(columns, natural, held ?? read(), process.stdout.isTTY ? process.stdout.columns || 80 : undefined)) console.log(line);
      return 0;
    } catch (e) {
      // While reading, only SQLite's own errors are the query's (or the dataset's): any other is a bug, with its stack.
      throw primaryCode(e) !== null ? refused(e) : e;
    } finally {
      db.exec('COMMIT');
    }
  } finally {
    db.close();
  }
}
