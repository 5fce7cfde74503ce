// `backfill_unread` (decision 0102): what windowed backfills left unread, over every store, as the one row a remote
// sink receives. Kept from `stores.unread` by the sink in the transaction that writes a store's row, so the change
// log carries it as any shipped row (idempotent upserts, a replay or a kill -9 before the ack sending it again). Only
// the numbers leave: each store's spans rebuilt from their `sessions`, `from` and `to`, no path, no other text; a
// value that is not what the pass writes (a hand edit) is left out, never copied.
import type { Db } from '../../../shared/sqlite.js';
import { BACKFILL_UNREAD } from '../../dataset/columns.js';

const NUMBER = "IN ('integer', 'real')";

/** The row as `stores` says it now; written only when it differs (an unchanged value logs no change). */
export const KEEP_BACKFILL_UNREAD = `INSERT INTO ${BACKFILL_UNREAD.name} (scope, stores)
  SELECT 'stores', (SELECT json_group_array(json(spans)) FROM (
    SELECT (SELECT json_group_array(json_object('sessions', json_extract(e.value, '$.sessions'), 'from', json_extract(e.value, '$.from'), 'to', json_extract(e.value, '$.to')))
        FROM json_each(s.unread) e
        WHERE e.type = 'object' AND json_type(e.value, '$.sessions') ${NUMBER} AND json_type(e.value, '$.from') ${NUMBER} AND json_type(e.value, '$.to') ${NUMBER}) AS spans
      FROM stores s WHERE s.unread IS NOT NULL AND json_valid(s.unread) AND json_type(s.unread) = 'array' ORDER BY s.store)
    WHERE json_array_length(spans) > 0) WHERE true
  ON CONFLICT (scope) DO UPDATE SET stores = excluded.stores WHERE stores IS NOT excluded.stores`;

/** Brings `backfill_unread` up to date with `stores.unread` (the migration's fill; the sink runs the same statement). */
export function keepBackfillUnread(db: Db): void {
  db.prepare(KEEP_BACKFILL_UNREAD).run();
}
