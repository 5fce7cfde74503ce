// The dataset's shipped rows as the shipper sends a backfill: batches of at most 2,000 rows, table by table, with
// consecutive sequence numbers (bench/postgres.ts and its child).
import { datasetBatch } from '../src/forwarder/sinks/postgres/testing/rows.js';
import type { DeltaBatch, Origin } from '../src/forwarder/sinks/remote/contract.js';

export const BATCH_ROWS = 2000;

export function batchesOf(path: string, origin: Origin): DeltaBatch[] {
  const all = datasetBatch(path, origin);
  const out: DeltaBatch[] = [];
  for (const u of all.upserts) {
    for (let i = 0; i < u.rows.length; i += BATCH_ROWS) {
      out.push({ origin, fromSeq: out.length, toSeq: out.length + 1, upserts: [{ table: u.table, rows: u.rows.slice(i, i + BATCH_ROWS) }], deletes: [] });
    }
  }
  return out;
}
