// The identity Hermes stamps on a state.db it opens for writing (hermes_state.py, SessionDB._ensure_db_file_generation;
// decision 0134): a uuid4().hex token in state_meta.db_file_generation, minted once per file (the first opener wins),
// and PRAGMA application_id derived from it while the header still says 0, so a file copied over another is told apart.
import type { Db } from '../../shared/sqlite.js';
import { pyInt } from '../../shared/python/index.js';

/** _STATE_DB_GENERATION_KEY. */
export const GENERATION_KEY = 'db_file_generation';

/**
 * `(int(token[:8], 16) & 0x7FFFFFFF) or 1`: the application_id Hermes writes for a generation token, or null for a
 * token Hermes would stop at (its int() raises; Hermes only ever mints hex).
 * @example applicationIdFor('5eed0000000000000000000000000001') // 0x5EED0000
 */
export function applicationIdFor(token: string): number | null {
  const head = pyInt(Array.from(token).slice(0, 8).join(''), 16);
  if (head === null) return null;
  return Number(head & 0x7fffffffn) || 1;
}

/**
 * Stamps a store as _ensure_db_file_generation does: the token unless the file has one already, then the
 * application_id of the token the file keeps, only while the header's is 0. Returns the token the file keeps.
 */
export function stampIdentity(db: Db, token: string): string {
  db.prepare('INSERT OR IGNORE INTO state_meta (key, value) VALUES (?, ?)').run(GENERATION_KEY, token);
  const kept = db.prepare('SELECT value FROM state_meta WHERE key = ?').pluck().get(GENERATION_KEY) as string | null;
  const current = String(kept || token);
  if (Number(db.pragma('application_id', { simple: true })) === 0) {
    // A token Hermes could not read (a test's hand-made name): the header is left at 0.
    const id = applicationIdFor(current);
    if (id !== null) db.pragma(`application_id = ${id}`);
  }
  return current;
}
