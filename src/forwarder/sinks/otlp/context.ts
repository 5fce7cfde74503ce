// What a delta leaves out, read from the local dataset (read-only): the session row and the earlier messages of the
// turn a batch continues. The sink never writes the dataset; without a dataset path it works from the batch alone.
import type { Db } from '../../../shared/sqlite.js';
import { openReadOnly } from '../../../shared/sqlite.js';
import type { RecordOf } from '../../dataset/columns.js';
import type { TraceContext } from './model/traces.js';

export interface DatasetContext extends TraceContext {
  close(): void;
}

export function datasetContext(path: string): DatasetContext {
  let db: Db | null = openReadOnly(path, 'HERMETIC_DATASET_OPEN');
  const session = db.prepare('SELECT * FROM sessions WHERE store = ? AND session_id = ?');
  // From the turn's user message (else the start) up to the message before `seq`.
  const turn = db.prepare(`
    SELECT * FROM messages WHERE store = @store AND session_id = @sessionId AND seq < @seq AND seq >= COALESCE((
      SELECT MAX(seq) FROM messages WHERE store = @store AND session_id = @sessionId AND seq < @seq AND role = 'user' AND kind = 'message'
    ), 0) ORDER BY seq`);
  return {
    session: (store, sessionId) => (session.get(store, sessionId) as RecordOf | undefined) ?? null,
    turnBefore: (store, sessionId, seq) => (seq > 0 ? (turn.all({ store, sessionId, seq }) as RecordOf[]) : []),
    close: () => {
      db?.close();
      db = null;
    },
  };
}
