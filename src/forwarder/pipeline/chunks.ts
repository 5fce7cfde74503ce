// A session longer than a chunk (read-session.ts LONG), read and projected a chunk of rows at a time inside one read
// transaction of the store, each chunk handed on to be written before the next is read (decision 0055): memory holds
// one chunk, whatever the session's length. The first chunk replaces what the dataset had of the session (or
// continues the tail its cursor keeps, when Hermes only appended since); the others are appended to it. What each
// chunk needs from the rows before it comes from one look at all the session's identities first (WholeSession), so
// the records are those one whole read gives.
import { wholeSessionOf, type Row } from '../normalize/index.js';
import { projectAppended, projectSession, TAIL_VERSION, type Projection, type Tail } from '../projector/index.js';
import type { StoreReader } from '../reader/index.js';
import { CHUNK_ROWS, sessionFailure, type Prior, type ReadContext } from './read-session.js';

/** What became of a long session: read to its end, stopped by the writer, gone from the store, or failed to read. */
export type ChunksRead = 'done' | 'stopped' | 'gone' | { error: string };

/**
 * Reads session `id` in chunks of `ctx.chunkRows` rows and hands each chunk's projection to `write` (`last`: the
 * session's rows end there) in order; `write` commits it and says whether to go on. A failure of the session's own is
 * returned, never thrown.
 */
export function readInChunks(reader: StoreReader, id: string, prior: Prior | null, ctx: ReadContext, write: (p: Projection, last: boolean) => boolean): ChunksRead {
  const chunk = ctx.chunkRows ?? CHUNK_ROWS;
  try {
    return reader.snapshot((): ChunksRead => {
      const session = reader.session(id);
      if (!session) return 'gone';
      const whole = wholeSessionOf(runsOf(reader, id, chunk));
      const base = {
        store: ctx.ref.path, profile: ctx.ref.profile, hermesHome: ctx.ref.hermesHome, session, modelUsage: reader.modelUsage(id),
        parents: reader.parents(session), systemPrompt: reader.systemPrompt(session), dailyUsage: reader.dailyUsage(id),
        redact: ctx.redact, origin: ctx.origin, whole,
      };
      const t = prior?.tail;
      // The tail its cursor keeps is continued while the rows it saw are unchanged (a pass stopped half-way through
      // the session, or Hermes appended more than a chunk since); else the session is written again from its start.
      let tail: Tail | null = t && !prior?.whole && t.v === TAIL_VERSION && t.redact === ctx.redact && reader.prefixUnchanged(id, t.rows) ? t : null;
      let ledger = prior?.ledger ?? null;
      // From the first row, every call is known to the chunks after it; a tail from another pass knows its latest.
      let calls = tail ? undefined : new Map<string, string>();
      for (;;) {
        const rows = tail ? reader.messagesAfter(id, tail.rows.maxMessageId, chunk) : reader.messages(id, chunk);
        const input = { ...base, messages: rows, ledger, ...(calls ? { calls } : {}) };
        const p = tail ? projectAppended({ ...input, tail }) : projectSession({ ...input, tail: null });
        if (p === null) {
          // A tail from another pass could not be continued alone (a tool result answers a call older than it keeps,
          // a route changed): the session is written again from its first row.
          tail = null;
          calls = new Map();
          continue;
        }
        const last = rows.length < chunk;
        if (!write(p, last)) return 'stopped';
        if (last) return 'done';
        tail = p.tail;
        ledger = p.ledger;
      }
    });
  } catch (e) {
    const failure = sessionFailure(e);
    if (failure === null) throw e;
    return { error: failure };
  }
}

/** The session's rows, a run of `chunk` at a time (each run may be let go once the next is asked for). */
function* runsOf(reader: StoreReader, id: string, chunk: number): Generator<Row[]> {
  let after: number | null = null;
  for (;;) {
    const rows: Row[] = after === null ? reader.messages(id, chunk) : reader.messagesAfter(id, after, chunk);
    if (rows.length > 0) yield rows;
    if (rows.length < chunk) return;
    after = Number(rows[rows.length - 1]!.id);
  }
}
