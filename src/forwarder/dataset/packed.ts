// Rows of one dataset table packed column by column, so they cross from the read worker to the writing thread
// cheaply (decision 0027): every value's kind and number in two typed arrays, the text of every string value in one
// string, sent as UTF-8 bytes (all three transferred, not copied); each value is then a slice of the text. A session's
// tables may share one text (packTables), where a long string met twice — a message's content and its text part's —
// is stored once (decision 0169). Pure.
import type { DatasetTable, RecordOf } from './columns.js';

/** Kinds below 0 (a kind >= 0 is a string value: the end of its text). */
const NULL = -1;
const NUMBER = -2;
/** -3 - i: the value is `other[i]` (anything but null, a number or a string: it travels by structured clone). */
const OTHER = -3;

export interface PackedRows {
  readonly packed: true;
  /** Rows. */
  readonly length: number;
  /** Values per row: the table's columns, in their order. */
  readonly width: number;
  /** Per value: the number, or where its text starts. */
  readonly nums: Float64Array;
  /** Per value: NULL, NUMBER, OTHER - i, or where its text ends. */
  readonly kinds: Int32Array;
  readonly text: string;
  /** The text as UTF-8 while it crosses between threads (`text` is then empty): see toWire. */
  readonly utf8: Uint8Array | null;
  /** On the wire: the text is the one the rows before it in the same post carry (toWireAll). */
  readonly sharesText?: boolean;
  readonly other: unknown[];
}

export const isPacked = (rows: readonly RecordOf[] | PackedRows): rows is PackedRows => (rows as PackedRows).packed === true;

/** Strings at least this long are looked up in the text's pool of long strings, and stored once (decision 0169). */
export const LONG_TEXT = 256;

/** The text one or more tables are packed into: its pieces, its length so far, and where each long string is. */
interface TextPool {
  pieces: string[];
  at: number;
  long: Map<string, number>;
}

const newPool = (): TextPool => ({ pieces: [], at: 0, long: new Map() });

type Packer = (records: readonly RecordOf[], nums: Float64Array, kinds: Int32Array, pool: TextPool, other: unknown[]) => void;

/**
 * A packing loop for one table, generated once: each column read by name at its own site (a lookup by a variable key
 * costs several times more over hundreds of thousands of rows), and a string equal to the same column's in the row
 * before (the store, the session, the role) pointing at that row's text instead of adding it again; a long string
 * (LONG_TEXT) already in the text, in any column of any table packed into it, pointing at it too.
 */
function packer(names: readonly string[]): Packer {
  const column = (name: string, c: number) => `
      v = r[${JSON.stringify(name)}];
      if (typeof v === 'string') {
        if (v === p${c}) { nums[k] = s${c}; kinds[k] = e${c}; }
        else if (v.length >= ${LONG_TEXT} && (seen = long.get(v)) !== undefined) { nums[k] = s${c} = seen; kinds[k] = e${c} = seen + v.length; p${c} = v; }
        else {
          if (v.length >= ${LONG_TEXT}) long.set(v, at);
          nums[k] = s${c} = at; at += v.length; pieces.push(v); kinds[k] = e${c} = at; p${c} = v;
        }
      } else if (typeof v === 'number') { nums[k] = v; kinds[k] = ${NUMBER}; }
      else if (v === null || v === undefined) kinds[k] = ${NULL};
      else { kinds[k] = ${OTHER} - other.length; other.push(v); }
      k++;`;
  const body = `
    const pieces = pool.pieces, long = pool.long;
    let at = pool.at, k = 0, v, seen;
    ${names.map((_, c) => `let p${c} = null, s${c} = 0, e${c} = 0;`).join(' ')}
    for (let i = 0; i < records.length; i++) {
      const r = records[i];${names.map(column).join('')}
    }
    pool.at = at;`;
  return new Function('records', 'nums', 'kinds', 'pool', 'other', body) as Packer;
}

const packers = new WeakMap<DatasetTable, Packer>();

/**
 * The records of one table, packed in its column order (a column a record lacks is NULL, as the sink writes it).
 * @example const p = packRows(MESSAGES, projection.messages); const back = unpackRow(p, 0, [], 0);
 */
export function packRows(table: DatasetTable, records: readonly RecordOf[]): PackedRows {
  return packTables([[table, records]])[0]!;
}

/**
 * Rows of several tables packed over one text (a session's messages and parts): a long string met in more than one
 * place is stored once, so it crosses to the writing thread once. Each table's rows read the same text.
 * @example const [messages, parts] = packTables([[MESSAGES, read.messages], [PARTS, read.parts]]);
 */
export function packTables(tables: readonly (readonly [DatasetTable, readonly RecordOf[]])[]): PackedRows[] {
  const pool = newPool();
  const packed = tables.map(([table, records]) => {
    let pack = packers.get(table);
    if (!pack) packers.set(table, (pack = packer(table.columns.map((c) => c.name))));
    const width = table.columns.length;
    const nums = new Float64Array(records.length * width);
    const kinds = new Int32Array(records.length * width);
    const other: unknown[] = [];
    pack(records, nums, kinds, pool, other);
    return { length: records.length, width, nums, kinds, other };
  });
  // One flat string (not a rope of `+=`): it is encoded whole.
  const text = pool.pieces.join('');
  return packed.map((p) => ({ packed: true, ...p, text, utf8: null }));
}

/** Writes row `row`'s values from column `from` into `into` from `at`; returns the index after the last one written. */
export function unpackRow(p: PackedRows, row: number, into: unknown[], at: number, from = 0): number {
  const { nums, kinds, text, width } = p;
  const end = (row + 1) * width;
  for (let k = row * width + from; k < end; k++) {
    const kind = kinds[k]!;
    into[at++] = kind >= 0 ? text.slice(nums[k]!, kind) : kind === NUMBER ? nums[k]! : kind === NULL ? null : p.other[OTHER - kind];
  }
  return at;
}

/** The value of column `col` in row `row`. */
export function valueAt(p: PackedRows, row: number, col: number): unknown {
  const k = row * p.width + col;
  const kind = p.kinds[k]!;
  return kind >= 0 ? p.text.slice(p.nums[k]!, kind) : kind === NUMBER ? p.nums[k]! : kind === NULL ? null : p.other[OTHER - kind];
}

// String.prototype.isWellFormed is in Node 20 (V8 11), not yet in TypeScript's ES2022 library.
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The rows as they cross to another thread, and the buffers to transfer with them. The text goes as UTF-8: a
 * JavaScript string with a single character beyond Latin-1 is two bytes a character, and is copied as it is posted.
 * A text with a lone surrogate stays a string (UTF-8 cannot carry it; SQLite would get other bytes).
 */
export function toWire(p: PackedRows): { rows: PackedRows; transfer: ArrayBuffer[] } {
  const transfer = [p.nums.buffer as ArrayBuffer, p.kinds.buffer as ArrayBuffer];
  if (!(p.text as string & { isWellFormed(): boolean }).isWellFormed()) return { rows: p, transfer };
  const utf8 = encoder.encode(p.text);
  transfer.push(utf8.buffer as ArrayBuffer);
  return { rows: { ...p, text: '', utf8 }, transfer };
}

/** The rows as toWire sent them, ready for unpackRow. */
export const fromWire = (p: PackedRows): PackedRows => (p.utf8 === null ? p : { ...p, text: decoder.decode(p.utf8), utf8: null });

/**
 * Rows of tables packed over one text (packTables), as they cross: the text encoded once, carried by the first; the
 * others say they share it. Rows of separate texts each carry their own.
 */
export function toWireAll(ps: readonly PackedRows[]): { rows: PackedRows[]; transfer: ArrayBuffer[] } {
  const rows: PackedRows[] = [];
  const transfer: ArrayBuffer[] = [];
  for (let i = 0; i < ps.length; i++) {
    const p = ps[i]!;
    if (i > 0 && p.text === ps[i - 1]!.text && p.text !== '') {
      transfer.push(p.nums.buffer as ArrayBuffer, p.kinds.buffer as ArrayBuffer);
      rows.push({ ...p, text: '', utf8: null, sharesText: true });
      continue;
    }
    const one = toWire(p);
    rows.push(one.rows);
    transfer.push(...one.transfer);
  }
  return { rows, transfer };
}

/** The rows as toWireAll sent them, ready for unpackRow: a shared text decoded once. */
export function fromWireAll(ps: readonly PackedRows[]): PackedRows[] {
  const out: PackedRows[] = [];
  for (const p of ps) {
    const { sharesText, ...rest } = p;
    out.push(sharesText === true ? { ...rest, text: out[out.length - 1]!.text } : fromWire(rest));
  }
  return out;
}
