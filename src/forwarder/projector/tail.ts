// What a session's cursor keeps of its transcript as last written (decision 0032): where the normalizer and the
// projector stopped, so the rows Hermes appends are projected alone, and a rolling hash of the live transcript with
// checkpoints along it, so a rewrite (/retry, a rewind, compaction, a /model route) rewrites only from the first
// checkpoint that differs. Pure; the same rows give the same tail however many ticks they came in.
import { EDITED_COLUMNS } from '../normalize/extras.js';
import { Lanes } from '../normalize/hash.js';
import type { RowsCarry } from '../normalize/rows.js';

export const TAIL_VERSION = 4;

export interface Tail {
  v: typeof TAIL_VERSION;
  /** Whether text went through the redactor (a tail written the other way is not continued). */
  redact: boolean;
  /** `started_at` as stored: a garbage one decides how the first garbage message times are repaired. */
  startedAt: number | string | null;
  /** The main-loop routes (model, first seen) and, without any, the session's model: what assistant rows' models came from. */
  models: string;
  /** The normalizer's carry (normalize/rows.ts): counts, the prefix's mark, the last good time, pending rewinds. */
  rows: RowsCarry;
  /** Messages written, live and compacted away (the next one's seq). */
  live: number;
  /** Of them, the ones in-place compaction summarized away (version 2). */
  compacted: number;
  /** The first live message's good time (the start, when `started_at` is garbage) and the latest live time. */
  firstTime: number | null;
  lastTime: number;
  /** The last `session_meta` model marker seen. */
  metaModel: string | null;
  /** The latest calls (id → name), most recent last: a tool result names the latest call before it with its id. */
  calls: [string, string][];
  /** Rolling hash of every live message's projection-dependent fields so far (see signature()). */
  hash: string;
  /** Checkpoints: [seq, hash of the messages before seq], every `step` messages; at most MAX_MARKS of them. */
  step: number;
  marks: [number, string][];
  /** Digests of the session-level rows as written: the end part, model usage, daily usage, session-level issues. */
  end: string | null;
  usage: string;
  daily: string;
  notes: string;
  /**
   * Digest of the columns Hermes edits in place on rows it already wrote (EDITED_COLUMNS), over every row read, in id
   * order (version 4): compared later with the store's rows to notice an edit no counter shows (pipeline/edits.ts).
   */
  edits: string;
}

/** Feeds one stored value: text as itself, NULL, a number or a BLOB each marked so no two kinds meet. */
function feedValue(l: Lanes, v: unknown): void {
  if (typeof v === 'string') l.feed(v);
  else if (v === null || v === undefined) l.feed('\u0000n');
  else if (v instanceof Uint8Array) l.feed(`\u0000b${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}`);
  else l.feed(`\u0000v${String(v)}`);
}

/**
 * The edits digest (Tail.edits) continued over `rows`, which follow the rows `from` covered (none: from the start).
 * Each row with one of EDITED_COLUMNS set is its id and those columns, read as the reader hands them over (objects,
 * or arrays in that order).
 */
export function editsDigest(rows: Iterable<Readonly<Record<string, unknown>> | readonly unknown[]>, from?: string): string {
  const l = new Lanes(from);
  const [kind, meta, api] = EDITED_COLUMNS;
  // Read in place, no array per row: a backfill runs this over every message.
  for (const r of rows) {
    const row = r as Readonly<Record<string, unknown>> & readonly unknown[];
    const list = Array.isArray(r);
    const a = list ? row[1] : row[kind];
    const b = list ? row[2] : row[meta];
    const c = list ? row[3] : row[api];
    // A row with none of them set adds nothing (the reader leaves such rows out): a value set, changed or cleared
    // still changes the digest, and rows coming or going are the prefix mark's to see (reader/store.ts).
    if ((a === null || a === undefined) && (b === null || b === undefined) && (c === null || c === undefined)) continue;
    l.num(Number(list ? row[0] : row.id));
    feedValue(l, a);
    feedValue(l, b);
    feedValue(l, c);
  }
  return l.hex();
}

/** Calls remembered for tool results that answer them in a later tick. */
export const MAX_CALLS = 64;
const BASE_STEP = 32;
const MAX_MARKS = 64;

/** A digest of a JSON-able value (small session-level row sets). */
export function digest(value: unknown): string {
  const l = new Lanes();
  l.feed(JSON.stringify(value) ?? 'undefined');
  return l.hex();
}

/** Checkpoints as messages are projected: a mark every `step` seqs, the step doubling when there are too many. */
export class Marks {
  step: number;
  marks: [number, string][];
  constructor(from?: Pick<Tail, 'step' | 'marks'>) {
    this.step = from?.step ?? BASE_STEP;
    this.marks = from ? from.marks.map(([s, h]) => [s, h]) : [];
  }

  /** Called before the message at `seq` is hashed, with the hash of those before it. */
  at(seq: number, hash: Lanes): void {
    if (seq % this.step !== 0) return;
    this.marks.push([seq, hash.hex()]);
    if (this.marks.length > MAX_MARKS) {
      this.step *= 2;
      this.marks = this.marks.filter(([s]) => s % this.step === 0);
    }
  }
}

/** The seqs a full projection reports its hash at, to be compared with an earlier tail (see firstDifference). */
export function probesOf(previous: Tail): Set<number> {
  return new Set([...previous.marks.map(([s]) => s), previous.live]);
}

/**
 * The first seq from which the messages projected now may differ from the ones written with `previous`: the largest
 * probe (a checkpoint, or where `previous` ended) at which both hashes agree. Every message before it is the same
 * message, projected the same way.
 */
export function firstDifference(previous: Tail, hashes: ReadonlyMap<number, string>): number {
  let from = 0;
  const old = new Map<number, string>(previous.marks);
  old.set(previous.live, previous.hash);
  for (const [seq, h] of old) if (seq > from && hashes.get(seq) === h) from = seq;
  return from;
}
