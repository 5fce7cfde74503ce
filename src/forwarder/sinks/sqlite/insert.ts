// Inserting many rows of one dataset table from JavaScript: several rows per statement, so a backfill's hundreds of
// thousands of messages and parts cross into SQLite in few calls (decision 0040). Shared by the sink and the ledger,
// and the one way rows go into a forwarded table: what each statement inserted goes to the `row_counts` tally.
import type { Statement } from 'better-sqlite3';
import type { Db } from '../../../shared/sqlite.js';
import type { DatasetTable, RecordOf } from '../../dataset/columns.js';
import { isPacked, unpackRow, valueAt, type PackedRows } from '../../dataset/packed.js';
import type { RowCounts } from './row-counts.js';
import { quoteName } from '../../../shared/sql-name.js';

/** Rows per statement, largest first: a run of rows goes as 32s, and what is left as one statement per set bit. */
const SIZES = [32, 16, 8, 4, 2, 1];

/**
 * Whether better-sqlite3 would not take `v` as one value. Rows go as spread arguments, where an array binds as its
 * elements and a plain object as named parameters: such a value is refused as the array form refused it (decision 0163).
 */
const unbindable = (v: unknown): boolean => typeof v === 'object' && v !== null && !ArrayBuffer.isView(v);

/**
 * Inserts rows of `t` (records, or packed by the read worker: each value is then taken straight from the packing) and
 * returns how many. A session's 49 messages are two statements (32 + 16) and one more (1), not 32 + 17 single rows:
 * a one-row statement costs about twice as much per row as a 32-row one. The rows SQLite inserted (not those an
 * INSERT OR IGNORE skipped) are added to `counts`, which its owner flushes before the transaction ends.
 * @example const put = rowInserter(db, MESSAGES, counts); put(projection.messages);
 */
export function rowInserter(db: Db, t: DatasetTable, counts: RowCounts, verb = 'INSERT'): (rows: readonly RecordOf[] | PackedRows) => number {
  const names = t.columns.map((c) => c.name);
  // Tables keyed by store and session first: a statement whose rows share both binds them once, as named parameters
  // (@store, @session) that every row's tuple refers to, not once a row (decision 0111).
  const keyed = names[0] === 'store' && names[1] === 'session_id';
  const head = `${verb} INTO ${quoteName(t.name)} (${names.map(quoteName).join(', ')}) VALUES `;
  // Packed rows holding long strings read them in a TEXT column as `CAST(? AS TEXT)`, bound as their UTF-8 bytes: never
  // decoded to a string on this thread, nor encoded again to bind (decision 0175). In a column declared TEXT the cast
  // stores what its affinity would (a number becomes the same text); the rows take the plain statements when one of
  // their values is itself a BLOB, which must stay one, or when the database's text is not UTF-8 (a file made UTF-16
  // elsewhere: SQLite would read the bytes as UTF-16; given strings, it converts them).
  let utf8: boolean | undefined;
  const asBytes = t.columns.map((c) => c.type === 'TEXT');
  const param = (c: number, cast: boolean) => (cast && asBytes[c] ? 'CAST(? AS TEXT)' : '?');
  const tuple = (cast: boolean) => `(${names.map((_, c) => param(c, cast)).join(', ')})`;
  const sharedTuple = (cast: boolean) => `(@store, @session${names.slice(2).map((_, c) => `, ${param(c + 2, cast)}`).join('')})`;
  // Prepared on first use, per form (a row's own key or the shared one; plain or cast) and size: most tables never see
  // a run of 32.
  const cache: (Statement<unknown[]> | undefined)[][] = [[], [], [], []];
  const statement = (s: number, one: boolean, cast: boolean): Statement<unknown[]> => {
    const form = (one ? 1 : 0) + (cast ? 2 : 0);
    return (cache[form]![s] ??= db.prepare(head + Array.from({ length: SIZES[s]! }, () => (one ? sharedTuple(cast) : tuple(cast))).join(', ')));
  };
  const buffers = SIZES.map((n) => new Array<unknown>(names.length * n));
  const sharedBuffers = SIZES.map((n) => new Array<unknown>((names.length - 2) * n));
  const shared = { store: null as unknown, session: null as unknown };
  const refused = (c: number) => new TypeError(`${t.name}.${names[c]}: SQLite3 can only bind numbers, strings, bigints, buffers, and null`);
  const fromRecord = (r: RecordOf, into: unknown[], at: number, from: number): number => {
    for (let c = from; c < names.length; c++) {
      const v = r[names[c]!];
      // unbindable(v), written out: V8 left the call in place, 15 ns a value (decision 0164).
      if (typeof v === 'object' && v !== null && !ArrayBuffer.isView(v)) throw refused(c);
      into[at++] = v === undefined ? null : v;
    }
    return at;
  };
  /** Whether rows [i, end) hold one store and one session (strings), so the shared statement can carry them. */
  const sharesKey = (packed: PackedRows | null, records: readonly RecordOf[] | null, i: number, end: number): boolean => {
    if (packed) {
      const { kinds, nums, width } = packed;
      const k0 = i * width;
      if (kinds[k0]! < 0 || kinds[k0 + 1]! < 0) return false;
      for (let k = k0 + width; k < end * width; k += width) {
        // The packer points a string equal to the row before's at the same text: the same offsets, the same value.
        if (kinds[k] !== kinds[k0] || nums[k] !== nums[k0] || kinds[k + 1] !== kinds[k0 + 1] || nums[k + 1] !== nums[k0 + 1]) return false;
      }
      return true;
    }
    const first = records![i]!;
    if (typeof first.store !== 'string' || typeof first.session_id !== 'string') return false;
    for (let j = i + 1; j < end; j++) if (records![j]!.store !== first.store || records![j]!.session_id !== first.session_id) return false;
    return true;
  };
  return (rows) => {
    const packed = isPacked(rows) ? rows : null;
    if (packed && packed.width !== names.length) throw new Error(`packed ${t.name} rows have ${packed.width} values, not ${names.length}`);
    // Values that are not a string, number or null travel in `other`: looked for only when one is unbindable.
    if (packed && packed.other.some(unbindable)) {
      for (let k = 0; k < rows.length * packed.width; k++) if (unbindable(valueAt(packed, Math.floor(k / packed.width), k % packed.width))) throw refused(k % packed.width);
    }
    const records = packed ? null : (rows as readonly RecordOf[]);
    const cast = packed !== null && packed.bytes !== null && !packed.other.some((v) => ArrayBuffer.isView(v))
      && (utf8 ??= db.pragma('encoding', { simple: true }) === 'UTF-8');
    let i = 0;
    let inserted = 0;
    for (let s = 0; s < SIZES.length; s++) {
      const size = SIZES[s]!;
      for (; i + size <= rows.length; i += size) {
        const one = keyed && size > 1 && sharesKey(packed, records, i, i + size);
        const values = one ? sharedBuffers[s]! : buffers[s]!;
        const from = one ? 2 : 0;
        let k = 0;
        for (let j = i; j < i + size; j++) k = packed ? unpackRow(packed, j, values, k, from, cast ? asBytes : undefined) : fromRecord(records![j]!, values, k, from);
        // Spread, not the array: better-sqlite3 reads arguments directly but an array element by element through V8's
        // API, ~20 ns a value more (decision 0060, December 7 addendum: messages insert 15% faster).
        if (one) {
          shared.store = packed ? valueAt(packed, i, 0) : records![i]!.store;
          shared.session = packed ? valueAt(packed, i, 1) : records![i]!.session_id;
          inserted += statement(s, true, cast).run(...values, shared).changes;
        } else {
          inserted += statement(s, false, cast).run(...values).changes;
        }
      }
    }
    counts.add(t.name, inserted);
    return rows.length;
  };
}
