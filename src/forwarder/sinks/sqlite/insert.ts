// Inserting many rows of one dataset table from JavaScript: several rows per statement, so a backfill's hundreds of
// thousands of messages and parts cross into SQLite in few calls (decision 0040). Shared by the sink and the ledger,
// and the one way rows go into a forwarded table: what each statement inserted goes to the `row_counts` tally.
import type { Db } from '../../../shared/sqlite.js';
import type { DatasetTable, RecordOf } from '../../dataset/columns.js';
import { isPacked, unpackRow, type PackedRows } from '../../dataset/packed.js';
import type { RowCounts } from './row-counts.js';

/** Rows per statement, largest first: a run of rows goes as 32s, and what is left as one statement per set bit. */
const SIZES = [32, 16, 8, 4, 2, 1];

/**
 * Inserts rows of `t` (records, or packed by the read worker: each value is then taken straight from the packing) and
 * returns how many. A session's 49 messages are two statements (32 + 16) and one more (1), not 32 + 17 single rows:
 * a one-row statement costs about twice as much per row as a 32-row one. The rows SQLite inserted (not those an
 * INSERT OR IGNORE skipped) are added to `counts`, which its owner flushes before the transaction ends.
 * @example const put = rowInserter(db, MESSAGES, counts); put(projection.messages);
 */
export function rowInserter(db: Db, t: DatasetTable, counts: RowCounts, verb = 'INSERT'): (rows: readonly RecordOf[] | PackedRows) => number {
  const names = t.columns.map((c) => c.name);
  const tuple = `(${names.map(() => '?').join(', ')})`;
  const head = `${verb} INTO "${t.name}" (${names.map((n) => `"${n}"`).join(', ')}) VALUES `;
  // Prepared on first use: most tables never see a run of 32.
  const stmts: (ReturnType<Db['prepare']> | undefined)[] = SIZES.map(() => undefined);
  const buffers = SIZES.map((n) => new Array<unknown>(names.length * n));
  const statement = (s: number) => (stmts[s] ??= db.prepare(head + Array.from({ length: SIZES[s]! }, () => tuple).join(', ')));
  const fromRecord = (r: RecordOf, into: unknown[], at: number): number => {
    for (const n of names) {
      const v = r[n];
      into[at++] = v === undefined ? null : v;
    }
    return at;
  };
  return (rows) => {
    const packed = isPacked(rows) ? rows : null;
    if (packed && packed.width !== names.length) throw new Error(`packed ${t.name} rows have ${packed.width} values, not ${names.length}`);
    const records = packed ? null : (rows as readonly RecordOf[]);
    let i = 0;
    let inserted = 0;
    for (let s = 0; s < SIZES.length; s++) {
      const size = SIZES[s]!;
      const values = buffers[s]!;
      for (; i + size <= rows.length; i += size) {
        let k = 0;
        for (let j = i; j < i + size; j++) k = packed ? unpackRow(packed, j, values, k) : fromRecord(records![j]!, values, k);
        inserted += statement(s).run(values).changes;
      }
    }
    counts.add(t.name, inserted);
    return rows.length;
  };
}
