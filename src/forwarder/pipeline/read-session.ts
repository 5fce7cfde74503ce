// One session read and projected in one read transaction, as a delta against its cursor's tail (decision 0032): when
// the rows the tail saw are unchanged, only the rows appended since are read and projected; else the session is read
// whole and compared with the tail's checkpoints. The same function runs on the writing thread and in the read worker
// (read-worker.ts); the usage policy is judged after it, on the writing thread (project.ts).
import { projectAppended, projectSession, TAIL_VERSION, type Ledger, type Projection, type Tail } from '../projector/index.js';
import type { StoreRef } from '../reader/discover.js';
import type { StoreReader } from '../reader/index.js';
import { isStoreCondition, primaryCode } from '../../shared/sqlite.js';
import type { ChunkSize } from './chunk-size.js';

export interface ReadContext {
  ref: Pick<StoreRef, 'path' | 'profile' | 'hermesHome'>;
  redact: boolean;
  origin: 'backfill' | 'forward';
  /**
   * The most a session is read with at once (CHUNK unless a test says otherwise): a longer one is left to the writing
   * thread, which reads and writes it in chunks of this size (chunks.ts; decision 0055).
   */
  chunk: ChunkSize;
}

/** A session too long to read at once: the writing thread reads and writes it in chunks (chunks.ts). */
export interface Long { long: true }
export const LONG: Long = Object.freeze({ long: true });

/** What the session's cursor holds: its usage ledger and the tail of its last write (null: none, or not to be used). */
export interface Prior {
  ledger: Ledger | null;
  tail: Tail | null;
  /** Hermes edited rows the tail saw in place (pipeline/edits.ts): read whole, never as appended rows. */
  whole?: boolean;
}

/**
 * What reading one session gave: its records, null when it is gone, the error that keeps it in quarantine, or LONG
 * when it has more rows to read than a chunk.
 */
export type SessionRead = Projection | null | { error: string } | Long;

/**
 * Why a session could not be read, when that is the session's own trouble: a damaged page of the store under it, or
 * data that nests deeper than the projector can follow. Null for anything else: a locked or unreadable store fails
 * the whole pass (reader/connection.ts), and any other error is a bug and surfaces with its stack.
 */
export function sessionFailure(e: unknown): string | null {
  const primary = primaryCode(e);
  if (isStoreCondition(e) && primary !== 'SQLITE_BUSY' && primary !== 'SQLITE_LOCKED' && primary !== 'SQLITE_IOERR') return `the store cannot be read under it: ${(e as Error).message}`;
  if (e instanceof RangeError && /call stack/i.test(e.message)) return `its data nests too deep to project (${e.message})`;
  return null;
}

/**
 * Reads and projects one session in one read transaction; a failure of the session's own is returned, never thrown.
 * @example const read = readSession(reader, 'sess_1', { ledger: null, tail: cursor.tail }, { ref, redact: false, origin: 'forward' });
 */
export function readSession(reader: StoreReader, id: string, prior: Prior | null, ctx: ReadContext): SessionRead {
  try {
    return reader.snapshot(() => {
      const session = reader.session(id);
      if (!session) return null;
      const input = {
        store: ctx.ref.path, profile: ctx.ref.profile, hermesHome: ctx.ref.hermesHome, session, modelUsage: reader.modelUsage(id),
        parents: reader.parents(session), systemPrompt: reader.systemPrompt(session), dailyUsage: reader.dailyUsage(id), usageCalls: reader.usageCalls(id),
        ledger: prior?.ledger ?? null, redact: ctx.redact, origin: ctx.origin, tail: prior?.tail ?? null,
      };
      const tail = prior?.tail;
      const usable = tail && tail.v === TAIL_VERSION && tail.redact === ctx.redact;
      if (usable && !prior?.whole && reader.prefixUnchanged(id, tail.rows)) {
        const { rows: after, more, chars } = reader.messagesWithin(id, tail.rows.maxMessageId, ctx.chunk);
        if (more) return LONG;
        // With archived rows in the prefix, a new row's logical id depends on whether it repeats one of them.
        const archived = tail.rows.inactive + tail.rows.compacted > 0;
        if (!archived || !reader.repeatsIdentity(id, tail.rows.maxMessageId, after)) {
          const appended = projectAppended({ ...input, messages: after, tail });
          if (appended) return Object.assign(appended, { chars });
        }
        // The rows before cannot be left aside: a long session then goes on in chunks, which know all its rows.
        if (tail.rows.rows + after.length > ctx.chunk.rows) return LONG;
      }
      // Nothing written to compare with, or a transcript Hermes changed under its tail (then rewritten from the first
      // message that differs): read whole, unless it is longer than a chunk.
      const { rows, more, chars } = reader.messagesWithin(id, Number.NEGATIVE_INFINITY, ctx.chunk);
      return more ? LONG : Object.assign(projectSession({ ...input, messages: rows }), { chars });
    });
  } catch (e) {
    const failure = sessionFailure(e);
    if (failure === null) throw e;
    return { error: failure };
  }
}
