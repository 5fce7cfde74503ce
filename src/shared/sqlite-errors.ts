// SQLite's errors read without loading SQLite (the CLI's last resort imports this for every command): a result code
// by name, and a damaged file said in words.
import { HermeticError } from './errors.js';

/** SQLite's primary result code (the low byte of an extended code such as SQLITE_BUSY_SNAPSHOT), by name. */
export function primaryCode(e: unknown): string | null {
  const code = (e as { code?: unknown })?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return null;
  const m = /^SQLITE_[A-Z]+/.exec(code);
  return m ? m[0] : null;
}

/** SQLITE_BUSY or SQLITE_LOCKED (extended codes included): another connection holds a lock; later may work. */
export function isLockedOut(e: unknown): boolean {
  const code = primaryCode(e);
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

/**
 * A damaged or unreadable database file met by a command that only reads what Hermetic wrote (the dataset): said in
 * words with what to do, as HERMETIC_DATASET_OPEN, instead of as a bug. Null for any other error.
 * @example damagedFile(e, 'dataset')?.message
 */
export function damagedFile(e: unknown, known: 'dataset' | 'unknown' = 'unknown'): HermeticError | null {
  const p = primaryCode(e);
  if (p !== 'SQLITE_CORRUPT' && p !== 'SQLITE_NOTADB' && p !== 'SQLITE_IOERR' && p !== 'SQLITE_FORMAT') return null;
  const rebuild = 'move it aside and run hermetic backfill to build it again from Hermes\'s stores, which Hermetic never writes';
  return new HermeticError('HERMETIC_DATASET_OPEN', known === 'dataset'
    ? `The dataset is damaged or unreadable (SQLite: ${(e as Error).message}): ${rebuild}.`
    : `A database file this command read is damaged or unreadable (SQLite: ${(e as Error).message}). If it is the dataset (hermetic.db under Hermetic's home), ${rebuild}.`);
}
