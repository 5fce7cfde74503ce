// Rows of one dataset table packed column by column, so they cross from the read worker to the writing thread
// cheaply (decision 0027): every value's kind and number in two typed arrays, the text of every short string value in
// one string, sent as UTF-8 bytes (all transferred, not copied); each value is then a slice of the text. A long string
// is encoded to UTF-8 once, here, and stays bytes until SQLite has it (decision 0175). A session's tables may share one
// text (packTables), where a long string met twice — a message's content and its text part's — is stored once
// (decision 0169). Pure.
import type { DatasetColumn, DatasetTable, RecordOf } from './columns.js';

/** Kinds below 0 (a kind >= 0 is a string value: the end of its text). */
const NULL = -1;
const NUMBER = -2;
/** -3 - i: the value is `other[i]` (anything but null, a number or a string: it travels by structured clone). */
const OTHER = -3;
/** BYTES - n and below: a long string, n bytes of UTF-8 in `bytes` from its number (decision 0175). */
const BYTES = -(2 ** 30);

export interface PackedRows {
  readonly packed: true;
  /** Rows. */
  readonly length: number;
  /** Values per row: the table's columns, in their order. */
  readonly width: number;
  /** Per value: the number, or where its text starts. */
  readonly nums: Float64Array;
  /** Per value: NULL, NUMBER, OTHER - i, BYTES - n, or where its text ends. */
  readonly kinds: Int32Array;
  readonly text: string;
  /** The long strings, as UTF-8 (null when there are none): bound to SQLite as they are, never decoded to bind. */
  readonly bytes: Uint8Array | null;
  /** The text as UTF-8 while it crosses between threads (`text` is then empty): see toWire. */
  readonly utf8: Uint8Array | null;
  /** On the wire: the text is the one the rows before it in the same post carry (toWireAll). */
  readonly sharesText?: boolean;
  readonly other: unknown[];
}

export const isPacked = (rows: readonly RecordOf[] | PackedRows): rows is PackedRows => (rows as PackedRows).packed === true;

/**
 * Strings at least this long are looked up in the pool of long strings, and stored once (decision 0169); they cross
 * as UTF-8 bytes of their own (decision 0175).
 */
export const LONG_TEXT = 256;

/** Where a long string is packed: the number and kind every value equal to it gets. */
interface Placed {
  text: string;
  num: number;
  kind: number;
}

/**
 * Long strings already placed, looked up by length and compared: hashing a transcript's texts to key a Map by them cost
 * a read worker about 5% of its time (decision 0175). A length shared by more than a few is stored again, not searched.
 */
const SAME_LENGTH = 8;

/** The long string placed equal to `v`, if any. */
function placed(long: Map<number, Placed[]>, v: string): Placed | undefined {
  const same = long.get(v.length);
  if (same !== undefined) for (const p of same) if (p.text === v) return p;
  return undefined;
}

/** Remembers where `p.text` went, unless its length already has SAME_LENGTH strings. */
function place(long: Map<number, Placed[]>, p: Placed): Placed {
  const same = long.get(p.text.length);
  if (same === undefined) long.set(p.text.length, [p]);
  else if (same.length < SAME_LENGTH) same.push(p);
  return p;
}

/** The text and bytes one or more tables are packed into: the short strings' pieces and length, the long ones' UTF-8. */
interface TextPool {
  pieces: string[];
  at: number;
  long: Map<number, Placed[]>;
  bytes: Uint8Array;
  used: number;
}

const newPool = (): TextPool => ({ pieces: [], at: 0, long: new Map(), bytes: new Uint8Array(0), used: 0 });

const encoder = new TextEncoder();
/** ignoreBOM: a text that begins with U+FEFF keeps it (by default TextDecoder takes it off as a byte order mark). */
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * A long string's UTF-8 appended to the pool's bytes (room grown by doubling), and where it went. Only for a string
 * that is well formed: UTF-8 cannot carry a lone surrogate (the caller keeps such a string in the text).
 */
function putBytes(pool: TextPool, v: string): Placed {
  // Room for the most UTF-8 a string can take, three bytes a character; a string past a megabyte is measured instead,
  // so a huge text never reserves three times itself.
  const most = v.length > 1 << 20 ? Buffer.byteLength(v, 'utf8') : v.length * 3;
  if (pool.used + most > pool.bytes.length) {
    const grown = new Uint8Array(Math.max(pool.bytes.length * 2, pool.used + most, 1 << 16));
    grown.set(pool.bytes.subarray(0, pool.used));
    pool.bytes = grown;
  }
  const { written } = encoder.encodeInto(v, pool.bytes.subarray(pool.used));
  const where = { text: v, num: pool.used, kind: BYTES - written };
  pool.used += written;
  return where;
}

interface Helpers {
  putBytes: typeof putBytes;
  placed: typeof placed;
  place: typeof place;
}

type Packer = (records: readonly RecordOf[], nums: Float64Array, kinds: Int32Array, pool: TextPool, other: unknown[], helpers: Helpers) => void;

/**
 * A packing loop for one table, generated once: each column read by name at its own site (a lookup by a variable key
 * costs several times more over hundreds of thousands of rows), and a string equal to the same column's in the row
 * before (the store, the session, the role) pointing at that row's text instead of adding it again; a long string
 * (LONG_TEXT) stored once, and every value equal to it, in any column of any table packed with it, pointing at it. It
 * is stored in the bytes when first met in a TEXT column (the writing thread binds those bytes), else in the text.
 */
function packer(columns: readonly DatasetColumn[]): Packer {
  const column = ({ name, type }: DatasetColumn, c: number) => `
      v = r[${JSON.stringify(name)}];
      if (typeof v === 'string') {
        if (v === p${c}) { nums[k] = s${c}; kinds[k] = e${c}; }
        else if (v.length >= ${LONG_TEXT}) {
          if ((seen = placed(long, v)) === undefined) {
            if (${type === 'TEXT' ? 'v.isWellFormed()' : 'false'}) seen = place(long, putBytes(pool, v));
            else { seen = place(long, { text: v, num: at, kind: at + v.length }); at += v.length; pieces.push(v); }
          }
          nums[k] = s${c} = seen.num; kinds[k] = e${c} = seen.kind; p${c} = v;
        } else { nums[k] = s${c} = at; at += v.length; pieces.push(v); kinds[k] = e${c} = at; p${c} = v; }
      } else if (typeof v === 'number') { nums[k] = v; kinds[k] = ${NUMBER}; }
      else if (v === null || v === undefined) kinds[k] = ${NULL};
      else { kinds[k] = ${OTHER} - other.length; other.push(v); }
      k++;`;
  const body = `
    const pieces = pool.pieces, long = pool.long, { putBytes, placed, place } = helpers;
    let at = pool.at, k = 0, v, seen;
    ${columns.map((_, c) => `let p${c} = null, s${c} = 0, e${c} = 0;`).join(' ')}
    for (let i = 0; i < records.length; i++) {
      const r = records[i];${columns.map(column).join('')}
    }
    pool.at = at;`;
  return new Function('records', 'nums', 'kinds', 'pool', 'other', 'helpers', body) as Packer;
}

const packers = new WeakMap<DatasetTable, Packer>();
const HELPERS: Helpers = { putBytes, placed, place };

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
    if (!pack) packers.set(table, (pack = packer(table.columns)));
    const width = table.columns.length;
    const nums = new Float64Array(records.length * width);
    const kinds = new Int32Array(records.length * width);
    const other: unknown[] = [];
    pack(records, nums, kinds, pool, other, HELPERS);
    return { length: records.length, width, nums, kinds, other };
  });
  // One flat string (not a rope of `+=`): it is encoded whole.
  const text = pool.pieces.join('');
  // The bytes cross with their whole buffer: room reserved for three bytes a character and never used is cut off, so
  // what the read-ahead window counts (packedSize) is about what crosses.
  const room = pool.bytes.length - pool.used;
  const bytes = pool.used === 0 ? null : room > pool.used / 4 + 65_536 ? pool.bytes.slice(0, pool.used) : pool.bytes.subarray(0, pool.used);
  return packed.map((p) => ({ packed: true, ...p, text, bytes, utf8: null }));
}

/** The characters and bytes the rows hold: what their post weighs against the read-ahead window. */
export const packedSize = (p: PackedRows): number => p.text.length + (p.bytes?.length ?? 0);

/** A long string's bytes (value k: kinds[k] <= BYTES). */
const bytesOf = (p: PackedRows, k: number): Uint8Array => p.bytes!.subarray(p.nums[k]!, p.nums[k]! + (BYTES - p.kinds[k]!));

/**
 * Writes row `row`'s values from column `from` into `into` from `at`; returns the index after the last one written.
 * A long string comes as its UTF-8 bytes where `asBytes` says its column takes them (a statement that reads the
 * parameter as `CAST(? AS TEXT)`: SQLite stores the very bytes, as text), else as a string.
 */
export function unpackRow(p: PackedRows, row: number, into: unknown[], at: number, from = 0, asBytes?: readonly boolean[]): number {
  const { nums, kinds, text, width } = p;
  const first = row * width;
  const end = first + width;
  for (let k = first + from; k < end; k++) {
    const kind = kinds[k]!;
    into[at++] = kind >= 0 ? text.slice(nums[k]!, kind) : kind === NUMBER ? nums[k]! : kind === NULL ? null
      : kind <= BYTES ? (asBytes?.[k - first] === true ? bytesOf(p, k) : decoder.decode(bytesOf(p, k))) : p.other[OTHER - kind];
  }
  return at;
}

/** The value of column `col` in row `row` (a long string decoded). */
export function valueAt(p: PackedRows, row: number, col: number): unknown {
  const k = row * p.width + col;
  const kind = p.kinds[k]!;
  return kind >= 0 ? p.text.slice(p.nums[k]!, kind) : kind === NUMBER ? p.nums[k]! : kind === NULL ? null
    : kind <= BYTES ? decoder.decode(bytesOf(p, k)) : p.other[OTHER - kind];
}

/** The UTF-8 of column `col` in row `row` when it is a long string the packing kept as bytes, else null. */
export function longBytesAt(p: PackedRows, row: number, col: number): Uint8Array | null {
  const k = row * p.width + col;
  return p.kinds[k]! <= BYTES ? bytesOf(p, k) : null;
}

/**
 * The rows as they cross to another thread, and the buffers to transfer with them. The text goes as UTF-8: a
 * JavaScript string with a single character beyond Latin-1 is two bytes a character, and is copied as it is posted.
 * A text with a lone surrogate stays a string (UTF-8 cannot carry it; SQLite would get other bytes).
 */
export function toWire(p: PackedRows): { rows: PackedRows; transfer: ArrayBuffer[] } {
  const transfer = [p.nums.buffer as ArrayBuffer, p.kinds.buffer as ArrayBuffer];
  if (p.bytes !== null) transfer.push(p.bytes.buffer as ArrayBuffer);
  // String.prototype.isWellFormed is in Node 20 (V8 11), not yet in TypeScript's ES2022 library.
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
    const before = ps[i - 1];
    if (before !== undefined && p.text === before.text && p.bytes === before.bytes && (p.text !== '' || p.bytes !== null)) {
      transfer.push(p.nums.buffer as ArrayBuffer, p.kinds.buffer as ArrayBuffer);
      rows.push({ ...p, text: '', bytes: null, utf8: null, sharesText: true });
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
    const before = out[out.length - 1]!;
    out.push(sharesText === true ? { ...rest, text: before.text, bytes: before.bytes } : fromWire(rest));
  }
  return out;
}
