// What a pass says of a store beside its counts: a schema newer than any known that lacks core columns, sessions whose
// id is not valid UTF-8, messages whose session has no row, a read worker that ended. Sentences, each null when there is
// nothing to say.
import type { SessionMark, StoreReader } from '../reader/index.js';

/** The newest schema version Hermes has shipped that this Hermetic was built against (state-db.md). */
const NEWEST_KNOWN_SCHEMA = 30;
/** Columns every schema Hermes has shipped has: one a newer schema lacks is read as empty, which a pass says. */
const CORE_COLUMNS: readonly [string, string][] = [['sessions', 'source'], ['sessions', 'started_at'], ['sessions', 'model'], ['messages', 'role'], ['messages', 'content'], ['messages', 'timestamp']];

/** What a pass says of a store newer than any this Hermetic knows that lacks a column every known one has. */
export function newerSchemaWarning(version: number | null, reader: StoreReader): string | null {
  if (version === null || version <= NEWEST_KNOWN_SCHEMA) return null;
  const missing = CORE_COLUMNS.filter(([t, c]) => !reader.has(t, c)).map(([t, c]) => `${t}.${c}`);
  if (missing.length === 0) return null;
  return `the store is at schema version ${version}, newer than any this Hermetic knows (${NEWEST_KNOWN_SCHEMA}), and has no ${missing.join(', ')}: ${missing.length === 1 ? 'it is' : 'they are'} read as empty; a newer Hermetic may read ${missing.length === 1 ? 'it' : 'them'}`;
}

/** What a pass says of sessions whose id is not valid UTF-8 (plan.ts): they cannot be read by their id. */
export function undecodableWarning(marks: readonly SessionMark[]): string | null {
  if (marks.length === 0) return null;
  const shown = marks.slice(0, 3).map((m) => m.undecodable).join(', ');
  const one = marks.length === 1;
  return `${one ? '1 session has an id' : `${marks.length} sessions have ids`} that ${one ? 'is' : 'are'} not valid UTF-8 text (${shown}${marks.length > 3 ? ', …' : ''}): ${one ? 'it' : 'they'} cannot be read by ${one ? 'its id' : 'their ids'} and ${one ? 'is' : 'are'} not forwarded`;
}

/** What a pass says of messages whose session has no row (plan.ts): how many, and whose. */
export function orphanWarning(orphans: ReadonlyMap<string, number>): string | null {
  if (orphans.size === 0) return null;
  const messages = [...orphans.values()].reduce((a, b) => a + b, 0);
  const names = [...orphans.keys()].slice(0, 3).join(', ');
  const whose = orphans.size === 1 ? `session ${names}, which has` : `${orphans.size} sessions (${names}${orphans.size > 3 ? ', …' : ''}), which have`;
  return `${messages} message${messages === 1 ? '' : 's'} of ${whose} no row in the store's sessions table: not read until Hermes writes ${orphans.size === 1 ? 'it' : 'them'}`;
}

/** What a pass says when its read worker's thread ended in it (feed.ts): nothing is missing, this thread read the rest. */
export function workerStoppedWarning(why: string | null): string | null {
  if (why === null) return null;
  return `the read worker stopped during the pass (${why}); the sessions it had taken were read by the writing thread, and nothing is missing`;
}
