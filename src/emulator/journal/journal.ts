// A namespace's request journal: a capped ring of what clients asked and what they were answered, metadata only
// (time, method, path, operation, status, duration, run id, replay, fault id, checkpoint, and a submit's
// Idempotency-Key — never bodies, query strings or other headers). Recording is O(1) and, once the ring is full,
// allocates nothing; memory never exceeds the cap, nor the slots all journals share (decision 0022).
import type { RequestOperation } from '../namespaces/operation.js';

/** One journaled request, as GET /__admin/requests shows it (Hermes-style snake_case, like every control answer). */
export interface JournalEntry {
  /** 1, 2, 3, … in arrival order within the namespace (restarts at 1 after a reset). */
  seq: number;
  /** When the answer's head was ready, on the namespace's clock (epoch seconds). */
  time: number;
  method: string;
  /** The path as sent, after the /ns/<name> prefix; never the query string. */
  path: string;
  operation: RequestOperation;
  status: number;
  /** Wall-clock milliseconds from the request's arrival to its answer's head (an event stream's head, not its end). */
  duration_ms: number;
  /** The run the path names; for an admitted submit, the run it was answered with. */
  run_id: string | null;
  /** For a submit answered 202: whether it was an idempotent replay; null for everything else. */
  replayed: boolean | null;
  /** The fault rule that affected the request, if any. */
  fault_id: string | null;
  /** The checkpoint taken right after it (automatic checkpoints on; decision 0065), if any. */
  checkpoint: string | null;
  /**
   * A submit's Idempotency-Key as sent (cut at JOURNAL_TEXT_MAX), so a test can tell a client's retry kept its key;
   * null for a submit without one and for every other request.
   */
  idempotency_key: string | null;
}

/** Which entries a query or count selects; every field narrows (null or absent: any). */
export interface JournalFilter {
  readonly operations?: ReadonlySet<string> | null;
  /** Exact statuses, and status classes as their hundreds digit (4 for 4xx). */
  readonly statuses?: ReadonlySet<number> | null;
  readonly classes?: ReadonlySet<number> | null;
  readonly runId?: string | null;
  readonly method?: string | null;
  /** Entries whose time is at or after this (namespace clock, epoch seconds). */
  readonly since?: number | null;
  /** Entries with a seq greater than this (to page or poll without repeats). */
  readonly after?: number | null;
  /** The most recent `limit` matches (still oldest first). */
  readonly limit?: number | null;
}

/** A journal as a checkpoint keeps it (plain JSON). */
export interface JournalSnapshot {
  readonly version: 1;
  readonly next_seq: number;
  readonly evicted: number;
  readonly entries: readonly JournalEntry[];
}

/** Slots of a ring's first allocation (then doubling): small, so a namespace that answered one request costs little. */
const FIRST_ALLOCATION = 4;
const REPLAY_NONE = 0;
const REPLAY_NO = 1;
const REPLAY_YES = 2;

// Per slot: NUMS numbers (seq, time, duration, status × 4 + replay) and REFS references (method, path, operation,
// run id, fault id, checkpoint, idempotency key), each slot's fields side by side, so recording touches one or two cache lines, not ten arrays —
// with a thousand namespaces, each ring is cold when its next request comes.
const NUMS = 4;
const REFS = 7;

/** The characters a journal entry keeps of a path or a run id (a ring of thousands holds a bounded size). */
export const JOURNAL_TEXT_MAX = 512;

/**
 * A path or id as the journal keeps it: at most JOURNAL_TEXT_MAX characters, cut with an ellipsis, and a copy of its
 * own. A slice of a longer string (a path cut from an 8 KB request target, the cut itself) keeps the whole of that
 * string alive in V8 for as long as the entry lives: 7 KB an entry, found by a flood of long paths (decision 0022
 * addendum). Joining and slicing again makes V8 copy just these characters.
 */
export const clip = (text: string): string =>
  text.length < OWN_BELOW ? text : ` ${text.length > JOURNAL_TEXT_MAX ? `${text.slice(0, JOURNAL_TEXT_MAX - 1)}…` : text}`.slice(1);

/**
 * V8 never makes a slice or a join shorter than this (SlicedString::kMinLength, ConsString::kMinLength): such a string
 * always holds its own characters, so clip() need not copy it (a keyed POST's path, a short Idempotency-Key).
 */
const OWN_BELOW = 13;

/**
 * Slots every journal of an emulator holds together (decision 0022 addendum): each namespace's ring grows by taking
 * slots from here and, when none are left, keeps the slots it has and overwrites its oldest entries, so the sum over
 * 10,000 namespaces is bounded (an entry's texts are at most three of JOURNAL_TEXT_MAX characters). A ring's first
 * FIRST_ALLOCATION slots are always granted: every namespace journals its first requests.
 */
export class JournalSlots {
  #free: number;

  constructor(readonly max: number) {
    this.#free = max;
  }

  /** Up to `n` slots (at least `atLeast`, even past the max); how many were taken. */
  take(n: number, atLeast = 0): number {
    const k = Math.max(atLeast, Math.min(n, Math.max(0, this.#free)));
    this.#free -= k;
    return k;
  }

  give(n: number): void {
    this.#free += n;
  }

  /** Slots held by the journals now. */
  get used(): number {
    return this.max - this.#free;
  }
}

/** The slots an emulator's journals share unless its journal size asks for more (`JournalSlots`): 500,000. */
export const JOURNAL_SLOTS = 500_000;

export class RequestJournal {
  readonly capacity: number;
  // The arrays grow by doubling up to the cap, so an idle namespace costs nothing; at the cap the ring only overwrites.
  #nums = new Float64Array(0);
  #refs: Array<string | null> = [];
  /** Slots allocated so far (≤ capacity). */
  #allocated = 0;
  /** Slot of the oldest entry, and how many there are. */
  #start = 0;
  #size = 0;
  #nextSeq = 1;
  #evicted = 0;
  /** The ring's size: `capacity`, or the slots it had when the shared ones ran out (until a reset). */
  #cap: number;
  /**
   * The copies the last entry keeps of its path and run id: an entry with the same texts shares them rather than
   * copying again (a client polling one run asks the same path over and over).
   */
  #lastPath = '';
  #lastRunId = '';
  readonly #slots: JournalSlots | null;

  /** `capacity` 0 disables the journal: record() does nothing. `slots`: the pool shared with other journals. */
  constructor(capacity: number, slots: JournalSlots | null = null) {
    this.capacity = Math.max(0, Math.floor(capacity));
    this.#cap = this.capacity;
    this.#slots = slots;
  }

  get enabled(): boolean {
    return this.capacity > 0;
  }

  /** Entries held now. */
  get size(): number {
    return this.#size;
  }

  /** Entries pushed out by newer ones since the last clear (or reset). */
  get evicted(): number {
    return this.#evicted;
  }

  record(
    time: number,
    method: string,
    path: string,
    operation: RequestOperation,
    status: number,
    durationMs: number,
    runId: string | null,
    replayed: boolean | null,
    faultId: string | null,
    checkpoint: string | null = null,
    idempotencyKey: string | null = null,
  ): number {
    if (this.capacity === 0) return -1;
    let slot: number;
    if (this.#size === this.#allocated && this.#size < this.#cap) this.#grow();
    if (this.#size < this.#cap) {
      // Not yet full: entries sit at 0 … size-1 (no wrap happens before the ring is full).
      slot = this.#size++;
    } else {
      slot = this.#start;
      this.#start = this.#start + 1 === this.#cap ? 0 : this.#start + 1;
      this.#evicted++;
    }
    const n = slot * NUMS;
    const nums = this.#nums;
    nums[n] = this.#nextSeq++;
    nums[n + 1] = time;
    nums[n + 2] = durationMs;
    nums[n + 3] = status * 4 + (replayed === null ? REPLAY_NONE : replayed ? REPLAY_YES : REPLAY_NO);
    const r = slot * REFS;
    const refs = this.#refs;
    refs[r] = method;
    refs[r + 1] = this.#lastPath = path === this.#lastPath ? this.#lastPath : clip(path);
    refs[r + 2] = operation;
    refs[r + 3] = runId === null ? null : (this.#lastRunId = runId === this.#lastRunId ? this.#lastRunId : clip(runId));
    refs[r + 4] = faultId;
    refs[r + 5] = checkpoint;
    refs[r + 6] = idempotencyKey === null ? null : clip(idempotencyKey);
    return nums[n]!;
  }

  /**
   * Names the fault rule that affected an entry after it was recorded (a stream cut or stalled once its head was
   * answered); nothing when the entry has been pushed out or cleared.
   */
  setFault(seq: number, faultId: string): void {
    if (this.#size === 0 || seq < 0) return;
    const offset = seq - this.#nums[this.#start * NUMS]!;
    if (offset < 0 || offset >= this.#size) return;
    this.#refs[((this.#start + offset) % this.#cap) * REFS + 4] = faultId;
  }

  /** Matching entries, oldest first (with a limit: the most recent `limit` of them). */
  query(filter: JournalFilter = {}): JournalEntry[] {
    const slots = this.#matching(filter);
    const limit = filter.limit ?? null;
    const from = limit !== null && slots.length > limit ? slots.length - limit : 0;
    const out: JournalEntry[] = [];
    for (let i = from; i < slots.length; i++) out.push(this.#entry(slots[i]!));
    return out;
  }

  /** How many entries query() would give for the same filter. */
  count(filter: JournalFilter = {}): number {
    const n = this.#matching(filter).length;
    return filter.limit != null ? Math.min(n, filter.limit) : n;
  }

  /** Forgets every entry; numbering goes on (a client polling with `after` sees no repeats). Returns how many went. */
  clear(): number {
    const n = this.#size;
    this.#start = 0;
    this.#size = 0;
    this.#evicted = 0;
    // Drop the references so cleared requests' paths and ids can be collected.
    this.#refs.fill(null);
    this.#lastPath = '';
    this.#lastRunId = '';
    return n;
  }

  /** As new: empty, numbering from 1, the arrays and their shared slots released (also when its namespace goes). */
  reset(): void {
    this.clear();
    this.#nextSeq = 1;
    this.#slots?.give(this.#allocated);
    this.#allocate(0);
    this.#cap = this.capacity;
  }

  snapshot(): JournalSnapshot {
    return { version: 1, next_seq: this.#nextSeq, evicted: this.#evicted, entries: this.query() };
  }

  /** Back to a snapshot's entries (the newest `capacity` of them when it held more than this journal's cap). */
  restore(snapshot: JournalSnapshot): void {
    this.reset();
    const entries = snapshot.entries;
    const from = Math.max(0, entries.length - this.capacity);
    for (let i = from; i < entries.length; i++) {
      const e = entries[i]!;
      this.#nextSeq = e.seq;
      // A checkpoint taken before the journal kept keys has none: null.
      this.record(e.time, e.method, e.path, e.operation, e.status, e.duration_ms, e.run_id, e.replayed, e.fault_id, e.checkpoint ?? null, e.idempotency_key ?? null);
    }
    this.#nextSeq = snapshot.next_seq;
    this.#evicted = snapshot.evicted + from;
  }

  /** Slots of matching entries, oldest first. */
  #matching(f: JournalFilter): number[] {
    const out: number[] = [];
    const { operations, statuses, classes, runId, method } = f;
    const since = f.since ?? null;
    const after = f.after ?? null;
    const byStatus = (statuses?.size ?? 0) + (classes?.size ?? 0) > 0;
    const nums = this.#nums;
    const refs = this.#refs;
    for (let i = 0; i < this.#size; i++) {
      let slot = this.#start + i;
      if (slot >= this.#cap) slot -= this.#cap;
      const n = slot * NUMS;
      const r = slot * REFS;
      if (after !== null && nums[n]! <= after) continue;
      if (since !== null && nums[n + 1]! < since) continue;
      if (operations && operations.size > 0 && !operations.has(refs[r + 2]!)) continue;
      if (byStatus) {
        const status = Math.floor(nums[n + 3]! / 4);
        if (!statuses?.has(status) && !classes?.has(Math.floor(status / 100))) continue;
      }
      if (runId != null && refs[r + 3] !== runId) continue;
      if (method != null && refs[r] !== method) continue;
      out.push(slot);
    }
    return out;
  }

  #entry(slot: number): JournalEntry {
    const n = slot * NUMS;
    const r = slot * REFS;
    const nums = this.#nums;
    const refs = this.#refs;
    const replay = nums[n + 3]! % 4;
    return {
      seq: nums[n]!,
      time: nums[n + 1]!,
      method: refs[r]!,
      path: refs[r + 1]!,
      operation: refs[r + 2] as RequestOperation,
      status: Math.floor(nums[n + 3]! / 4),
      duration_ms: Math.round(nums[n + 2]! * 1000) / 1000,
      run_id: refs[r + 3]!,
      replayed: replay === REPLAY_NONE ? null : replay === REPLAY_YES,
      fault_id: refs[r + 4]!,
      checkpoint: refs[r + 5]!,
      idempotency_key: refs[r + 6]!,
    };
  }

  /** Twice the slots (up to the cap), as many as the shared pool gives; none given: the ring is full as it is. */
  #grow(): void {
    const want = Math.min(this.#cap, Math.max(FIRST_ALLOCATION, this.#allocated * 2));
    const add = this.#slots ? this.#slots.take(want - this.#allocated, Math.max(0, Math.min(want, FIRST_ALLOCATION) - this.#allocated)) : want - this.#allocated;
    if (add > 0) this.#allocate(this.#allocated + add);
    if (this.#allocated < want) this.#cap = this.#allocated;
  }

  /** New arrays of `slots` slots keeping entries 0 … size-1 (only called while the ring has not wrapped). */
  #allocate(slots: number): void {
    const keep = Math.min(this.#size, slots);
    const nums = new Float64Array(slots * NUMS);
    nums.set(this.#nums.subarray(0, keep * NUMS));
    const refs = new Array<string | null>(slots * REFS).fill(null);
    for (let i = 0; i < keep * REFS; i++) refs[i] = this.#refs[i]!;
    this.#nums = nums;
    this.#refs = refs;
    this.#allocated = slots;
  }
}
