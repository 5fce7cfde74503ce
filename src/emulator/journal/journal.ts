// A namespace's request journal: a capped ring of what clients asked and what they were answered, metadata only
// (time, method, path, operation, status, duration, run id, replay, fault id — never bodies, query strings or
// headers). Recording is O(1) and, once the ring is full, allocates nothing; memory never exceeds the cap (decision 0022).
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

const FIRST_ALLOCATION = 64;
const REPLAY_NONE = 0;
const REPLAY_NO = 1;
const REPLAY_YES = 2;

export class RequestJournal {
  readonly capacity: number;
  // Struct of arrays: numbers in typed arrays, strings by reference (the request's own strings, no copies). The
  // arrays grow by doubling up to the cap, so an idle namespace costs nothing; at the cap the ring only overwrites.
  #seq = new Float64Array(0);
  #time = new Float64Array(0);
  #duration = new Float64Array(0);
  #status = new Uint16Array(0);
  #replay = new Uint8Array(0);
  #method: string[] = [];
  #path: string[] = [];
  #operation: RequestOperation[] = [];
  #runId: Array<string | null> = [];
  #faultId: Array<string | null> = [];
  /** Index of the oldest entry, and how many there are. */
  #start = 0;
  #size = 0;
  #nextSeq = 1;
  #evicted = 0;

  /** `capacity` 0 disables the journal: record() does nothing. */
  constructor(capacity: number) {
    this.capacity = Math.max(0, Math.floor(capacity));
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
  ): void {
    if (this.capacity === 0) return;
    let slot: number;
    if (this.#size < this.capacity) {
      // Not yet full: entries sit at 0 … size-1 (no wrap happens before the ring is full).
      if (this.#size === this.#seq.length) this.#grow();
      slot = this.#size++;
    } else {
      slot = this.#start;
      this.#start = this.#start + 1 === this.capacity ? 0 : this.#start + 1;
      this.#evicted++;
    }
    this.#seq[slot] = this.#nextSeq++;
    this.#time[slot] = time;
    this.#duration[slot] = durationMs;
    this.#status[slot] = status;
    this.#replay[slot] = replayed === null ? REPLAY_NONE : replayed ? REPLAY_YES : REPLAY_NO;
    this.#method[slot] = method;
    this.#path[slot] = path;
    this.#operation[slot] = operation;
    this.#runId[slot] = runId;
    this.#faultId[slot] = faultId;
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
    // Drop the string references so cleared requests' paths and ids can be collected.
    this.#method.fill('');
    this.#path.fill('');
    this.#runId.fill(null);
    this.#faultId.fill(null);
    return n;
  }

  /** As new: empty, numbering from 1, the arrays released. */
  reset(): void {
    this.clear();
    this.#nextSeq = 1;
    this.#allocate(0);
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
      this.record(e.time, e.method, e.path, e.operation, e.status, e.duration_ms, e.run_id, e.replayed, e.fault_id);
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
    for (let i = 0; i < this.#size; i++) {
      let slot = this.#start + i;
      if (slot >= this.capacity) slot -= this.capacity;
      if (after !== null && this.#seq[slot]! <= after) continue;
      if (since !== null && this.#time[slot]! < since) continue;
      if (operations && operations.size > 0 && !operations.has(this.#operation[slot]!)) continue;
      if (byStatus) {
        const status = this.#status[slot]!;
        if (!statuses?.has(status) && !classes?.has(Math.floor(status / 100))) continue;
      }
      if (runId != null && this.#runId[slot] !== runId) continue;
      if (method != null && this.#method[slot] !== method) continue;
      out.push(slot);
    }
    return out;
  }

  #entry(slot: number): JournalEntry {
    const replay = this.#replay[slot]!;
    return {
      seq: this.#seq[slot]!,
      time: this.#time[slot]!,
      method: this.#method[slot]!,
      path: this.#path[slot]!,
      operation: this.#operation[slot]!,
      status: this.#status[slot]!,
      duration_ms: Math.round(this.#duration[slot]! * 1000) / 1000,
      run_id: this.#runId[slot]!,
      replayed: replay === REPLAY_NONE ? null : replay === REPLAY_YES,
      fault_id: this.#faultId[slot]!,
    };
  }

  #grow(): void {
    this.#allocate(Math.min(this.capacity, Math.max(FIRST_ALLOCATION, this.#seq.length * 2)));
  }

  /** New arrays of `length` slots keeping entries 0 … size-1 (only called while the ring has not wrapped). */
  #allocate(length: number): void {
    const keep = Math.min(this.#size, length);
    const typed = <T extends Float64Array | Uint16Array | Uint8Array>(old: T, make: (n: number) => T): T => {
      const next = make(length);
      next.set(old.subarray(0, keep));
      return next;
    };
    this.#seq = typed(this.#seq, (n) => new Float64Array(n));
    this.#time = typed(this.#time, (n) => new Float64Array(n));
    this.#duration = typed(this.#duration, (n) => new Float64Array(n));
    this.#status = typed(this.#status, (n) => new Uint16Array(n));
    this.#replay = typed(this.#replay, (n) => new Uint8Array(n));
    const strings = <T>(old: T[], fill: T): T[] => {
      const next = new Array<T>(length).fill(fill);
      for (let i = 0; i < keep; i++) next[i] = old[i]!;
      return next;
    };
    this.#method = strings(this.#method, '');
    this.#path = strings(this.#path, '');
    this.#operation = strings<RequestOperation>(this.#operation, 'other');
    this.#runId = strings<string | null>(this.#runId, null);
    this.#faultId = strings<string | null>(this.#faultId, null);
  }
}
