// DeltaBatches for tests, read from a real dataset (a forwarder rig's hermetic.db): whole, or a session's transcript
// cut in two at a seq, as the change log would ship a session that grew between two ticks.
import type { RecordOf } from '../../../dataset/columns.js';
import type { DeltaBatch, Origin } from '../../remote/contract.js';

export const ORIGIN: Origin = { machineId: 'machine-0123', hostname: 'laptop.test' };

type Query = <T = RecordOf>(sql: string, ...params: unknown[]) => T[];

/** Every session, message and model_usage row of the dataset, as one batch. */
export function wholeBatch(query: Query, origin: Origin = ORIGIN): DeltaBatch {
  return {
    origin, fromSeq: 0, toSeq: 1,
    upserts: [
      { table: 'sessions', rows: query('SELECT * FROM sessions ORDER BY store, session_id') },
      { table: 'messages', rows: query('SELECT * FROM messages ORDER BY store, session_id, seq') },
      { table: 'model_usage', rows: query('SELECT * FROM model_usage ORDER BY store, session_id, model, task') },
    ],
    deletes: [],
  };
}

/** Two batches: messages with seq below `cut` (per session), then the rest; the session rows ride in both. */
export function splitBatches(query: Query, cut: number, origin: Origin = ORIGIN): [DeltaBatch, DeltaBatch] {
  const sessions = query('SELECT * FROM sessions ORDER BY store, session_id');
  const usage = query('SELECT * FROM model_usage ORDER BY store, session_id, model, task');
  const part = (where: string, fromSeq: number, toSeq: number): DeltaBatch => ({
    origin, fromSeq, toSeq,
    upserts: [
      { table: 'sessions', rows: sessions },
      { table: 'messages', rows: query(`SELECT * FROM messages WHERE ${where} ORDER BY store, session_id, seq`, cut) },
      { table: 'model_usage', rows: usage },
    ],
    deletes: [],
  });
  return [part('seq < ?', 0, 1), part('seq >= ?', 1, 2)];
}
