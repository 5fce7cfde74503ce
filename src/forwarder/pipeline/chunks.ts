// A session longer than a chunk (read-session.ts LONG), read and projected a chunk of rows at a time inside one read
// transaction of the store, each chunk handed on to be written before the next is read (decision 0055): memory holds
// one chunk, whatever the session's length. The first write continues the tail its cursor keeps (Hermes only
// appended since), replaces the session (nothing usable written), or rewrites it from the first message that differs
// (Hermes changed rows the tail saw); the chunks after it are appended. What each chunk needs from the rows before it
// comes from one look at all the session's identities first (WholeSession), so the records are those one whole read
// gives.
import type { RecordOf } from '../dataset/columns.js';
import { wholeSessionOf, type Row, type WholeSession } from '../normalize/index.js';
import { firstDifference, probesOf, projectAppended, projectSession, TAIL_VERSION, type ProjectInput, type Projection, type Tail } from '../projector/index.js';
import { HermeticError } from '../../shared/errors.js';
import type { StoreReader } from '../reader/index.js';
import { sessionFailure, type Prior, type ReadContext } from './read-session.js';

/**
 * What became of a long session: read to its end, stopped by the writer (quarantined or ignored), interrupted between
 * two chunks (the pass stops there), gone from the store, or failed to read.
 */
export type ChunksRead = 'done' | 'stopped' | 'interrupted' | 'gone' | { error: string };

/**
 * Reads session `id` in chunks of `ctx.chunk.rows` rows (fewer when their values pass `ctx.chunk.chars` characters:
 * StoreReader.messagesWithin, decision 0171) and hands each chunk's projection to `write` (`last`: the
 * session's rows end there) in order; `write` commits it and says whether to go on. Pauses after each chunk but the
 * last (whoever drives it may let the event loop run), then goes on while `more()` says so. A failure of the
 * session's own is returned, never thrown.
 */
export function* readInChunks(reader: StoreReader, id: string, prior: Prior | null, ctx: ReadContext, write: Write, more: () => boolean): Generator<void, ChunksRead> {
  // Writes one chunk; then, before the next, pauses and asks whether to go on.
  function* put(p: Projection, last: boolean): Generator<void, ChunksRead | null> {
    if (!write(p, last)) return 'stopped';
    if (last) return 'done';
    yield;
    return more() ? null : 'interrupted';
  }
  try {
    return yield* reader.snapshotSteps(function* (): Generator<void, ChunksRead> {
      const session = reader.session(id);
      if (!session) return 'gone';
      const whole = wholeSessionOf(runsOf(reader, id, ctx));
      const base: Base = {
        store: ctx.ref.path, profile: ctx.ref.profile, hermesHome: ctx.ref.hermesHome, session, modelUsage: reader.modelUsage(id),
        parents: reader.parents(session), systemPrompt: reader.systemPrompt(session), dailyUsage: reader.dailyUsage(id), usageCalls: reader.usageCalls(id),
        redact: ctx.redact, origin: ctx.origin, whole, ledger: prior?.ledger ?? null,
      };
      const t = prior?.tail;
      // What the dataset holds of the session, as its cursor's tail says (null: nothing usable).
      let written: Tail | null = t && t.v === TAIL_VERSION && t.redact === ctx.redact ? t : null;
      if (written && !prior?.whole && reader.prefixUnchanged(id, written.rows)) {
        // Hermes only appended since (or a pass stopped half-way through the session): its tail goes on.
        for (;;) {
          const { rows, more } = reader.messagesWithin(id, written.rows.maxMessageId, ctx.chunk);
          const p = projectAppended({ ...base, messages: rows, tail: written });
          // A tail from another pass keeps only its latest calls: a result may answer an older one (or a route moved).
          // Then what was written is rewritten from where it differs, below.
          if (p === null) break;
          const end = yield* put(p, !more);
          if (end) return end;
          written = p.tail;
          base.ledger = p.ledger;
        }
      }
      if (written === null) {
        // Nothing to compare with: written from its first row.
        for (const [p, last] of fromStart(reader, id, base, ctx)) {
          const end = yield* put(p, last);
          if (end) return end;
        }
        return 'done';
      }
      // Hermes changed rows the tail saw: the chunks are projected once for their hashes at the tail's checkpoints, and
      // again to write them from the first message that differs, as a whole read rewrites (tail.ts firstDifference).
      const hashes = new Map<number, string>();
      for (const [p] of fromStart(reader, id, base, ctx, probesOf(written))) for (const [seq, h] of p.probed!) hashes.set(seq, h);
      return yield* rewrite(fromStart(reader, id, base, ctx), written, firstDifference(written, hashes), put);
    });
  } catch (e) {
    const failure = sessionFailure(e);
    if (failure === null) throw e;
    return { error: failure };
  }
}

type Write = (p: Projection, last: boolean) => boolean;
type Put = (p: Projection, last: boolean) => Generator<void, ChunksRead | null>;
type Base = Omit<ProjectInput, 'messages' | 'tail'> & { whole: WholeSession };

/**
 * The session's chunks projected from its first row, each continuing the one before with every call seen so far
 * (`last`: the rows end there). `probes`: seqs whose transcript hash each projection reports (and then no records).
 */
function* fromStart(reader: StoreReader, id: string, base: Base, ctx: ReadContext, probes?: ReadonlySet<number>): Generator<[Projection, boolean]> {
  const calls = new Map<string, string>();
  let tail: Tail | null = null;
  let ledger = base.ledger ?? null;
  for (;;) {
    const { rows, more } = reader.messagesWithin(id, tail ? tail.rows.maxMessageId : Number.NEGATIVE_INFINITY, ctx.chunk);
    // Looked at for the hashes at those seqs only: no records are built.
    const input = { ...base, messages: rows, ledger, calls, ...(probes ? { probes, hashOnly: true } : {}) };
    const p: Projection | null = tail ? projectAppended({ ...input, tail }) : projectSession({ ...input, tail: null });
    // Knowing every row's identity and every call before it, a chunk never needs the rows before it.
    if (p === null) throw new HermeticError('HERMETIC_INTERNAL', `A chunk of session ${id} could not be projected after the one before it.`);
    const last = !more;
    yield [p, last];
    if (last) return;
    tail = p.tail;
    ledger = p.ledger;
  }
}

/**
 * Writes the chunks (projected from the first row) as a rewrite from `fromSeq` of what `old` describes: nothing before
 * the chunk that holds `fromSeq`; that chunk's messages from `fromSeq` on, with the usage event, end and row issues of
 * every chunk before it, as one rewrite; the chunks after it appended. Exported for its test.
 */
export function* rewrite(chunks: Iterable<[Projection, boolean]>, old: Tail, fromSeq: number, put: Put): Generator<void, ChunksRead> {
  const issues: RecordOf[] = [];
  let event: RecordOf | null = null;
  let endPart: RecordOf | null = null;
  let started = false;
  for (const [p, last] of chunks) {
    if (started) {
      const end = yield* put(p, last);
      if (end) return end;
      continue;
    }
    // The first chunk replaces whole: its parts hold the session's end, its issues the session's own.
    // One by one: a chunk may hold more issues than a call takes arguments (15 values of each of 10,000 rows).
    for (const issue of p.issues) issues.push(issue);
    event ??= p.usageEvent;
    endPart ??= p.parts.find((x) => x.message_id === null) ?? null;
    if (p.tail.live <= fromSeq && !last) continue;
    const messages = p.messages.filter((m) => (m.seq as number) >= fromSeq);
    const kept = new Set(messages.map((m) => m.message_id));
    const changed = { replaceEnd: p.tail.end !== old.end, usage: p.tail.usage !== old.usage, daily: p.tail.daily !== old.daily };
    const parts = p.parts.filter((x) => x.message_id !== null && kept.has(x.message_id));
    if (endPart && changed.replaceEnd) parts.push(endPart);
    started = true;
    const end = yield* put({ ...p, messages, parts, issues, usageEvent: event, delta: { kind: 'rewrite', fromSeq, ...changed, issues: 'all' } }, last);
    if (end) return end;
  }
  return 'done';
}

/** The session's rows, a chunk at a time (each run may be let go once the next is asked for). */
function* runsOf(reader: StoreReader, id: string, ctx: ReadContext): Generator<Row[]> {
  let after: number | null = null;
  for (;;) {
    const { rows, more } = reader.messagesWithin(id, after ?? Number.NEGATIVE_INFINITY, ctx.chunk);
    if (rows.length > 0) yield rows;
    if (!more) return;
    after = Number(rows[rows.length - 1]!.id);
  }
}
