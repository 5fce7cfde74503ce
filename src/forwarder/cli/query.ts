// `hermetic query "SQL"`: read-only SQL on the dataset or the fleet store; a table (fitted to a terminal's width, BLOBs
// in hex), or a JSON array with --json. Both are written as the rows are read, and the reading stops when stdout is
// gone (`| head`), so a result of any size holds bounded memory (decision 0074).
import { randomUUID } from 'node:crypto';
import { parseFlags, usageError } from '../../cli/args.js';
import { datasetNames, namesHint } from './query-names.js';
import { stdoutRoom } from '../../cli/output.js';
import { HermeticError } from '../../shared/errors.js';
import { damagedFile, primaryCode } from '../../shared/sqlite-errors.js';
import { hermeticHome } from '../home.js';
import { displayWidth, fitText, padText, widthUpTo, wrapWords } from '../report/wrap.js';
import { terminalSafeJson, terminalText } from '../../shared/terminal-text.js';
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
  // C1 controls, line separators and bidi overrides as \u escapes: the same value, harmless on a terminal.
  return terminalSafeJson(text.includes(mark) ? text.replace(new RegExp(`"${mark}(-?\\d+)"`, 'g'), '$1') : text);
}

/** Said under a table whose values were cut. */
export const CUT_HINT = '(values cut to fit are marked …; hermetic query --json shows them whole)';

/** Rows a table holds while it measures them; a longer result is measured, then read again to print (bounded memory). */
export const HELD_ROWS = 10_000;

/** A value as a table line shows it: harmless (terminalText), before it is cut to its column. */
const shown = (v: unknown): string => terminalText(cell(v));

/** The most columns a value is measured to: wider than any terminal, so a long message is not read to its end. */
const MEASURED = 4096;

/** Widens `natural` (the columns' widths so far, in terminal columns, at most MEASURED + 1) to fit the row. */
export function measureRow(natural: number[], columns: readonly string[], row: Record<string, unknown>): void {
  for (let i = 0; i < columns.length; i++) natural[i] = Math.max(natural[i]!, widthUpTo(shown(row[columns[i]!]), MEASURED));
}

/** The columns' widths before any row: their headers'. */
export const headerWidths = (columns: readonly string[]): number[] => columns.map((c) => displayWidth(terminalText(c)));

/** A table's frame for the columns' widths `natural`: its head lines, a row's line, its foot lines after `count` rows. */
function tableFrame(columns: readonly string[], natural: readonly number[], width?: number) {
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
  return {
    head: (): string[] => [line(heads.map((h, i) => fit(h, widths[i]!))), widths.map((w) => '-'.repeat(w)).join('  ')],
    row: (r: Record<string, unknown>): string => line(columns.map((c, i) => fit(shown(r[c]), widths[i]!))),
    // On a terminal the hint wraps to its width too.
    foot: (count: number): string[] => [`(${count} row${count === 1 ? '' : 's'})`, ...(!cut ? [] : width === undefined ? [CUT_HINT] : wrapWords(CUT_HINT, width))],
  };
}

/**
 * A plain text table, line by line: a header, a rule, one line per row, and the row count. Values are shown harmless
 * (line breaks as ⏎, other control characters visibly: terminalText) and measured in terminal columns (CJK takes two).
 * Long values are cut at 60 columns, or, given the terminal's width, so that each line fits it; a table with a cut
 * value says so. `natural` is every row's widest value per column (measureRow), so the rows can be read as they are
 * printed.
 */
export function* tableLines(columns: readonly string[], natural: readonly number[], rows: Iterable<Record<string, unknown>>, width?: number): Generator<string> {
  const frame = tableFrame(columns, natural, width);
  yield* frame.head();
  let count = 0;
  for (const r of rows) {
    count++;
    yield frame.row(r);
  }
  yield* frame.foot(count);
}

/** A table of rows held in memory (tableLines), as one text. */
export function formatTable(columns: string[], rows: Record<string, unknown>[], width?: number): string {
  const natural = headerWidths(columns);
  for (const r of rows) measureRow(natural, columns, r);
  return [...tableLines(columns, natural, rows, width)].join('\n');
}

/** Rows a line of --json holds. */
const JSON_LINE_ROWS = 1000;

/**
 * A JSON array written as its rows arrive, in lines of a thousand rows, each line ending after a row's comma: `push`
 * gives a line once a thousand rows wait and one more comes, `end` the last line. `encode` writes an array of rows.
 */
export function jsonWriter(encode: (rows: Record<string, unknown>[]) => string = queryJson) {
  let batch: Record<string, unknown>[] = [];
  let first = true;
  const w = {
    /** Rows in the lines given so far. */
    printed: 0,
    /** Rows held until their line is written. */
    held: () => batch.length,
    push(r: Record<string, unknown>): string | null {
      let line: string | null = null;
      if (batch.length === JSON_LINE_ROWS) {
        line = `${first ? '[' : ''}${encode(batch).slice(1, -1)},`;
        w.printed += batch.length;
        first = false;
        batch = [];
      }
      batch.push(r);
      return line;
    },
    end(): string {
      w.printed += batch.length;
      return `${first ? '[' : ''}${batch.length > 0 ? encode(batch).slice(1, -1) : ''}]`;
    },
  };
  return w;
}

/**
 * The rows as a JSON array in lines of a thousand rows (jsonWriter), so a result of any size is printed as it is
 * read: the lines joined are queryJson of every row (one line, as before, up to a thousand rows).
 */
export function* jsonLines(rows: Iterable<Record<string, unknown>>): Generator<string> {
  const w = jsonWriter();
  for (const r of rows) {
    const line = w.push(r);
    if (line !== null) yield line;
  }
  yield w.end();
}

type Row = Record<string, unknown>;

/** One read of a result from its first row: its columns, then its rows a batch at a time. */
interface Read {
  columns: string[];
  batches: AsyncIterable<Row[]> | Iterable<Row[]>;
}

/** Reads a query's result from its first row, again each call, in one snapshot (SQLite's or PostgreSQL's). */
type Reader = () => Read | Promise<Read>;

/**
 * What a query read and held. HERMETIC_QUERY_TRACE=1 prints it on stderr as the process ends: how the tests see that
 * memory stays bounded whatever the result's size, and that a reader gone (`| head`) stopped the reading.
 */
export interface QueryTrace {
  /** Rows read from the store (twice for a long table), in `fetches` batches, the largest `largestFetch` rows. */
  rows: number;
  fetches: number;
  largestFetch: number;
  /** The most rows held at once beyond the batch in hand: a short table's, or a --json line's. */
  mostHeld: number;
}

export const newTrace = (): QueryTrace => ({ rows: 0, fetches: 0, largestFetch: 0, mostHeld: 0 });

/** Counts a fetched batch of `n` rows into `trace`. */
const fetchedInto = (trace: QueryTrace) => (n: number) => {
  trace.rows += n;
  trace.fetches++;
  trace.largestFetch = Math.max(trace.largestFetch, n);
};

/** Prints one line; false once stdout cannot be written (nobody reads the rest). */
type Say = (line: string) => Promise<boolean>;

interface PrintOptions {
  /** --json, with the encoder of an array of rows; null for a table. */
  json: ((rows: Row[]) => string) | null;
  /** The terminal's width, for a table fitted to it. */
  width?: number;
}

/** `e` with the news that what was printed before it is not the whole result. */
function incomplete(e: HermeticError, rows: number): HermeticError {
  const said = e.message.replace('; nothing was read', '');
  return new HermeticError(e.code, `${said} The output above is incomplete: it stops after ${rows} row${rows === 1 ? '' : 's'}.`);
}

/**
 * Prints the result `read` gives, line by line as its rows arrive, as a table (a short one held while it is measured,
 * a longer one measured then read again) or as JSON; stops reading as soon as `say` reports stdout gone. What the
 * store refused is `refused(e)`, said to leave incomplete output when lines were printed before it.
 */
async function printResult(read: Reader, o: PrintOptions, say: Say, trace: QueryTrace, refused: (e: unknown) => unknown): Promise<void> {
  let lines = 0;
  let rows = 0;
  const print = (line: string) => (lines++, say(line));
  const json = o.json === null ? null : jsonWriter(o.json);
  try {
    if (json !== null) {
      for await (const batch of (await read()).batches) {
        for (const r of batch) {
          const line = json.push(r);
          trace.mostHeld = Math.max(trace.mostHeld, json.held());
          if (line !== null && !(await print(line))) return;
        }
      }
      await print(json.end());
      return;
    }
    // A table needs every row's width before its first line: a short result is held, a long one read twice.
    const first = await read();
    const { columns } = first;
    const natural = headerWidths(columns);
    let held: Row[] | null = [];
    for await (const batch of first.batches) {
      for (const r of batch) {
        measureRow(natural, columns, r);
        if (held === null) continue;
        trace.mostHeld = Math.max(trace.mostHeld, held.push(r));
        if (held.length > HELD_ROWS) held = null;
      }
    }
    const frame = tableFrame(columns, natural, o.width);
    for (const line of frame.head()) if (!(await print(line))) return;
    for await (const batch of held !== null ? [held] : (await read()).batches) {
      for (const r of batch) {
        if (!(await print(frame.row(r)))) return;
        rows++;
      }
    }
    for (const line of frame.foot(rows)) if (!(await print(line))) return;
  } catch (e) {
    const said = refused(e);
    throw lines > 0 && said instanceof HermeticError ? incomplete(said, json?.printed ?? rows) : said;
  }
}

/** The rows of `all` in batches of a thousand, each counted by `fetched` as it is handed over. */
function* batchesOf(all: Iterable<Row>, fetched: (n: number) => void): Generator<Row[]> {
  let batch: Row[] = [];
  for (const r of all) {
    if (batch.push(r) === JSON_LINE_ROWS) {
      fetched(batch.length);
      yield batch;
      batch = [];
    }
  }
  fetched(batch.length);
  yield batch;
}

/**
 * The statement on the fleet store, printed as its rows arrive: a server-side cursor (sinks/postgres/cursor.ts) in a
 * read-only transaction with the fleet schema first on the search path; one statement (PostgreSQL refuses several).
 * --json writes the values by the dataset's rules (queryJson): bytea in hex, infinities and NaN as text.
 */
async function printFleet(url: string, sql: string, o: PrintOptions, say: Say, trace: QueryTrace): Promise<void> {
  const { readFleet, fleetError } = await import('../sinks/postgres/read.js');
  const { statementReader } = await import('../sinks/postgres/cursor.js');
  await readFleet(url, async (client, _dialect, target) => {
    const refused = (e: unknown) => {
      const code = (e as { code?: unknown }).code;
      if (code === '25006') return new HermeticError('HERMETIC_QUERY_READ_ONLY', 'hermetic query --from reads the fleet store in a read-only transaction; PostgreSQL refused this statement because it would write. Use a SELECT (or WITH … SELECT) statement.');
      if (code === '57014' || code === '55P03') return new HermeticError('HERMETIC_QUERY_CANCELLED', `PostgreSQL cancelled the query: ${(e as Error).message}.`);
      // PostgreSQL's hint, where it gives one, is said too ("Perhaps you meant to reference the column …").
      const hint = (e as { hint?: unknown }).hint;
      if (typeof code === 'string' && /^(42|22|0A|21|2F|34|3F)/.test(code)) return new HermeticError('HERMETIC_QUERY_INVALID', `PostgreSQL cannot run this query: ${(e as Error).message}${typeof hint === 'string' && hint !== '' ? ` (${hint.replace(/\.$/, '')})` : ''}.`);
      return fleetError(e, target);
    };
    await printResult(statementReader(client, sql, fetchedInto(trace)), o, say, trace, refused);
  }, { requireSchema: false });
}

/**
 * `hermetic query`. `trace` counts what was read and held (HERMETIC_QUERY_TRACE=1 prints it at exit).
 * @example process.exitCode = await queryCommand(['--json', 'SELECT COUNT(*) AS n FROM messages']);
 */
export async function queryCommand(argv: string[], trace: QueryTrace = newTrace()): Promise<number> {
  const { values, positionals } = parseFlags(argv, FLAGS, 1);
  if (values.help) return console.log(QUERY_HELP), 0;
  const sql = positionals[0];
  if (sql === undefined || sql.trim() === '') usageError('query needs one SQL statement, e.g. hermetic query "SELECT source, SUM(input_tokens) FROM sessions GROUP BY source".');
  if (process.env.HERMETIC_QUERY_TRACE === '1') process.once('exit', () => process.stderr.write(`hermetic query trace: ${JSON.stringify(trace)}\n`));
  // Printed line by line, each line out (or stdout's buffer below its mark) before the next row is read.
  const say: Say = (line) => (console.log(line), stdoutRoom());
  const width = process.stdout.isTTY ? process.stdout.columns || 80 : undefined;
  if (values.from !== undefined) {
    fleetFrom(values.from);
    if (values.home !== undefined) usageError('--from and --home name two different datasets; give one.');
    await printFleet(values.from, sql, { json: values.json ? queryJson : null, width }, say, trace);
    return 0;
  }
  const db = openDatasetReadOnly(hermeticHome(values.home));
  /** What SQLite refused: the dataset's damage, else the query's own fault (a name it lacks: the names it has, 0107). */
  const refused = (e: unknown) => {
    const message = (e as Error).message;
    const names = /^no such (table|column): /.test(message) ? namesHint(message, datasetNames(db), sql) : null;
    return damagedFile(e, 'dataset') ?? new HermeticError('HERMETIC_QUERY_INVALID', `SQLite cannot run this query: ${message}${names ?? ''}.`);
  };
  try {
    let stmt;
    try {
      stmt = db.prepare(sql);
    } catch (e) {
      // better-sqlite3 refuses a text of two statements with a RangeError: the query's fault too.
      throw refused(e);
    }
    if (!stmt.reader || !stmt.readonly) throw new HermeticError('HERMETIC_QUERY_WRITE', 'hermetic query only reads the dataset; use a SELECT (or WITH … SELECT) statement.');
    const columns = stmt.columns().map((c) => c.name);
    // Integers as bigints, so one past 2^53 prints as stored, not rounded to a double.
    const read = () => ({ columns, batches: batchesOf(stmt.safeIntegers(true).iterate() as IterableIterator<Row>, fetchedInto(trace)) });
    // Both reads of a long table see one snapshot of the dataset (a forward may write between them).
    db.exec('BEGIN');
    try {
      // While reading, only SQLite's own errors are the query's (or the dataset's): any other is a bug, with its stack.
      await printResult(read, { json: values.json ? queryJson : null, width }, say, trace, (e) => (primaryCode(e) !== null ? refused(e) : e));
      return 0;
    } finally {
      db.exec('COMMIT');
    }
  } finally {
    db.close();
  }
}
