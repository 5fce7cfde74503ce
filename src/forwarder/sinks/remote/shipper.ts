// The shipper (decision 0035): feeds every remote sink from the dataset, each on its own cursor. Per sink: register
// (a new one gets a snapshot, then the change log), open, ask once what the destination already applied, then read a
// bounded batch, write it, and only when the sink says it is durable move that sink's cursor in one local
// transaction (and prune what every sink has). A retriable SinkError backs off with jitter (recorded in the sink's
// row for `status`); a fatal one stops that sink for this process with a clear message; the others go on. Sinks run
// concurrently and never inside the forwarder's write: a slow or down sink holds nothing else back.
import type { Db } from '../../../shared/sqlite.js';
import { REMOTE_SINKS } from '../../dataset/columns.js';
import { logDigest, logHead, prune, registerSink, sinkRow, type SinkRow } from './changelog.js';
import { SinkError, type AppliedMark, type DeltaBatch, type Origin, type RemoteSink } from './contract.js';
import { DeltaReader, type BatchLimits, type CursorAfter, type NextBatch } from './deltas.js';

/** The longest a destination's Retry-After holds a sink back. */
const RETRY_AFTER_MAX_MS = 3_600_000;

export interface ShipperOptions {
  /** The dataset, opened for writing (its own connection; sinks/sqlite/dataset.ts openDataset). */
  db: Db;
  sinks: readonly RemoteSink[];
  origin: Origin;
  /** Redact rows for sinks that leave the machine (default true; `--no-redact` turns it off), or per sink. */
  redact?: boolean | ((sink: RemoteSink) => boolean);
  /** Milliseconds since the epoch (injected). */
  now?: () => number;
  /** [0, 1) (injected): the jitter of the backoff. */
  random?: () => number;
  limits?: Partial<BatchLimits>;
  /** Backoff after the n-th consecutive failure: base × 2^(n-1) capped, then half of it plus a random half. */
  backoff?: { baseMs: number; maxMs: number };
  /** Batches per sink in one pass (default: until caught up). */
  maxBatches?: number;
  /** Said once per event worth a line (a sink failing, stopping, catching up again). */
  say?: (line: string) => void;
  /** One pass and done (`backfill`, `forward --once`): a sink that failed is tried again by the next run, said so. */
  once?: boolean;
  /** Told what each pass did, when it ends (a `forward` loop's --json lines: kick() answers nobody else). */
  onShipped?: (result: ShipResult) => void;
  /** Test hook: called after a sink acknowledged a batch and before the local cursor moves. */
  afterWrite?: (sink: RemoteSink, batch: DeltaBatch) => Promise<void> | void;
}

/** What one pass did for one sink. */
export interface ShipResult {
  sink: string;
  display: string;
  state: 'caught-up' | 'behind' | 'waiting' | 'retrying' | 'stopped';
  batches: number;
  /** Batches the destination already held (its applied sequence number covered them): acknowledged, not sent. */
  skipped: number;
  rows: number;
  error: { code: string; message: string; retriable: boolean } | null;
  /** When a retriable failure may be tried again, epoch seconds. */
  retryAt: number | null;
}

interface SinkState {
  sink: RemoteSink;
  opened: boolean;
  /** Its write under way was cut short by close(): what that write throws is not the sink's failure. */
  cut: boolean;
  applied: number | null;
  /** Set by a fatal error: this sink is not tried again in this process. */
  stopped: SinkError | null;
  retryAtMs: number;
  running: Promise<ShipResult> | null;
}

const DEFAULT_BACKOFF = { baseMs: 1000, maxMs: 5 * 60_000 };

/**
 * How long close() lets a batch under way finish (its cursor then moves, so nothing is sent twice for no reason)
 * before cutting it short: Ctrl-C never waits out a receiver's 10 s timeout.
 */
export const CLOSE_GRACE_MS = 2000;

/** Any failure as a SinkError: one that is not is a bug in the sink, so it stops that sink (never the others). */
function asSinkError(e: unknown): SinkError {
  if (e instanceof SinkError) return e;
  return new SinkError('HERMETIC_SINK_FAILED', `the sink failed unexpectedly: ${(e as Error)?.message ?? String(e)}`, false, { cause: e });
}

/**
 * Runs a step on the local dataset: its failure (a lock held past the busy timeout, a full disk) is the dataset's,
 * not the sink's, and passes: retried like a sink that is down.
 */
function local<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof SinkError) throw e;
    throw new SinkError('HERMETIC_DATASET_WRITE', `the dataset could not be read or written: ${(e as Error)?.message ?? String(e)}`, true, { cause: e });
  }
}

/**
 * How a sink that failed before is said to ship again: "reachable again" after an outage (HERMETIC_SINK_UNAVAILABLE,
 * the code of a destination down or busy), else what it failed with (a schema or permission fixed, a restarted run).
 */
function recovered(lastError: string | null): string {
  const code = /\[(HERMETIC_[A-Z_]+)\]$/.exec(lastError ?? '')?.[1];
  return code === undefined || code === 'HERMETIC_SINK_UNAVAILABLE' ? 'is reachable again' : `ships again after ${code}`;
}

export class Shipper {
  readonly #db: Db;
  readonly #reader: DeltaReader;
  readonly #states: SinkState[];
  readonly #redact: (sink: RemoteSink) => boolean;
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #backoff: { baseMs: number; maxMs: number };
  readonly #options: ShipperOptions;
  readonly #ack;
  /** Set by close(): passes end after their current batch. */
  #closing = false;

  /**
   * @example const s = new Shipper({ db: openDataset(home), sinks: [sink], origin }); await s.shipAll(); await s.close();
   */
  constructor(options: ShipperOptions) {
    this.#options = options;
    this.#db = options.db;
    this.#reader = new DeltaReader(options.db, options.origin, options.limits);
    const redact = options.redact ?? true;
    this.#redact = typeof redact === 'function' ? redact : () => redact;
    this.#now = options.now ?? Date.now;
    this.#random = options.random ?? Math.random;
    this.#backoff = options.backoff ?? DEFAULT_BACKOFF;
    const ids = new Set<string>();
    for (const s of options.sinks) {
      if (ids.has(s.id)) throw new SinkError('HERMETIC_SINK_DUPLICATE', `the sink ${s.display} is given twice`, false);
      ids.add(s.id);
    }
    this.#states = options.sinks.map((sink) => ({ sink, opened: false, cut: false, applied: null, stopped: null, retryAtMs: 0, running: null }));
    this.#ack = options.db.transaction((from: SinkRow, after: CursorAfter, rows: number, caughtUp: boolean, nowS: number): boolean => {
      // Moved only from where it was read: another process that moved it meanwhile (two forwarders on one home) wins.
      const moved = this.#db.prepare(`UPDATE ${REMOTE_SINKS.name} SET acked_seq = ?, snapshot = ?, acked_at = ?, caught_up_at = CASE WHEN ? THEN ? ELSE caught_up_at END,
        shipped_rows = shipped_rows + ?, failures = 0, last_error = NULL, retry_at = NULL WHERE sink_id = ? AND acked_seq = ? AND snapshot IS ?`)
        .run(after.ackedSeq, after.snapshot, nowS, caughtUp ? 1 : 0, nowS, rows, from.sink_id, from.acked_seq, from.snapshot).changes === 1;
      if (moved) prune(this.#db);
      return moved;
    });
  }

  get sinks(): readonly RemoteSink[] {
    return this.#states.map((s) => s.sink);
  }

  /** One pass for every sink at once, each until it is caught up or fails; resolves when all are done. */
  async shipAll(): Promise<ShipResult[]> {
    return Promise.all(this.#states.map((s) => this.#start(s)));
  }

  /**
   * Starts a pass for every sink not already shipping and not waiting for its retry time, without waiting for it
   * (`hermetic forward` calls it after each tick: a slow sink's pass simply goes on).
   */
  kick(): void {
    if (this.#closing) return;
    for (const s of this.#states) if (!s.running) void this.#start(s);
  }

  /** Resolves when no pass is under way. */
  async idle(): Promise<void> {
    await Promise.all(this.#states.map((s) => s.running));
  }

  #start(s: SinkState): Promise<ShipResult> {
    s.running ??= this.#pass(s).then((r) => {
      this.#options.onShipped?.(r);
      return r;
    }).finally(() => {
      s.running = null;
    });
    return s.running;
  }

  #result(s: SinkState, state: ShipResult['state'], counts: { batches: number; skipped: number; rows: number }, error: SinkError | null = null): ShipResult {
    return {
      sink: s.sink.id, display: s.sink.display, state, ...counts,
      error: error ? { code: error.code, message: error.message, retriable: error.retriable } : null,
      retryAt: state === 'retrying' || state === 'waiting' ? s.retryAtMs / 1000 : null,
    };
  }

  async #pass(s: SinkState): Promise<ShipResult> {
    const counts = { batches: 0, skipped: 0, rows: 0 };
    if (s.stopped) return this.#result(s, 'stopped', counts, s.stopped);
    // A retry time further ahead than any wait this shipper sets was set by a clock since set back: tried now.
    const wait = s.retryAtMs - this.#now();
    if (wait > 0 && wait <= Math.max(RETRY_AFTER_MAX_MS, this.#backoff.maxMs)) return this.#result(s, 'waiting', counts);
    const redact = s.sink.leavesMachine && this.#redact(s.sink);
    try {
      // A sink given for the first time is registered once it opened, or failed in a way worth retrying: a URL the
      // destination refuses (a wrong password, no such database) is not kept, nor a change log grown for it.
      let opened = false;
      if (!s.opened && local(() => sinkRow(this.#db, s.sink.id)) === null) {
        try {
          await s.sink.open();
        } catch (e) {
          // A destination down for now is kept (status says it fails, and it is retried); one that refuses is not.
          if (asSinkError(e).retriable) local(() => registerSink(this.#db, s.sink, this.#now() / 1000));
          throw e;
        }
        s.opened = opened = true;
      }
      local(() => registerSink(this.#db, s.sink, this.#now() / 1000));
      if (!s.opened) {
        await s.sink.open();
        s.opened = opened = true;
      }
      // Asked once per connection: batches at or below it are already at the destination (a crash after its write),
      // once it is known to be this dataset's own.
      if (opened) s.applied = this.#trusted(s, await s.sink.applied(this.#options.origin));
      const max = this.#options.maxBatches ?? Infinity;
      const before = local(() => sinkRow(this.#db, s.sink.id));
      const back = (r: ShipResult) => {
        if ((before?.failures ?? 0) > 0) this.#options.say?.(`hermetic: sink ${s.sink.display} ${recovered(before!.last_error)} (${r.rows.toLocaleString('en-US')} ${r.rows === 1 ? 'row' : 'rows'} sent)${r.state === 'caught-up' ? ' and up to date' : ''}`);
        return r;
      };
      for (;;) {
        const row = local(() => sinkRow(this.#db, s.sink.id));
        if (!row) throw new SinkError('HERMETIC_SINK_REMOVED', `the sink ${s.sink.display} was removed while shipping`, false);
        if (s.applied !== null && s.applied > logHead(this.#db)) {
          // Higher than anything this dataset numbered: the destination's number is from another dataset (decision 0035).
          s.applied = null;
        }
        const next = local(() => this.#reader.next(row, redact));
        if (!next) {
          local(() => this.#touchCaughtUp(row));
          return back(this.#result(s, 'caught-up', counts));
        }
        // A stopping process ends the pass between batches: what is left goes on the next run.
        if (this.#closing || counts.batches + counts.skipped >= max) return back(this.#result(s, 'behind', counts));
        await this.#deliver(s, row, next, counts);
        if (next.caughtUp) return back(this.#result(s, 'caught-up', counts));
      }
    } catch (e) {
      // Cut short by close(): not the sink's failure; the batch was never acknowledged and goes again next run.
      if (s.cut) return this.#result(s, 'behind', counts);
      return this.#failed(s, asSinkError(e), counts);
    }
  }

  /**
   * The destination's applied number when this dataset may skip up to it. Above the sink's cursor it must be the batch
   * this dataset wrote and never saw acknowledged (a crash between the two): the log batch starting at the cursor, whose
   * entries are the ones the destination recorded. Anything else was sent by another copy of this dataset under the
   * same machine id (a home restored from a backup, or copied to a second machine): trusting it would skip changes the
   * destination never received, so the sink stops with a sentence saying what to do (decision 0035 addendum).
   */
  #trusted(s: SinkState, mark: AppliedMark | null): number | null {
    if (mark === null) return null;
    const acked = local(() => sinkRow(this.#db, s.sink.id))?.acked_seq ?? 0;
    const head = logHead(this.#db);
    // Nothing above the cursor: nothing to skip either.
    if (mark.seq <= acked) return mark.seq;
    // Recorded before the digest was kept: as before (a number above the log's head is another dataset's, ignored).
    if (mark.digest === null || mark.from === null) return mark.seq > head ? null : mark.seq;
    if (mark.seq <= head && mark.from === acked && local(() => logDigest(this.#db, acked, mark.seq)) === mark.digest) return mark.seq;
    throw new SinkError('HERMETIC_SINK_DIVERGED', `${s.sink.display} holds changes for this machine that this dataset did not send (up to change ${mark.seq}; this dataset has sent it up to ${acked}): its home was restored from a backup, or copied from another machine. Restored: send the sink a fresh copy (hermetic sinks remove it, then add it again). A copy: delete the file machine-id in the copy's home, so that it ships as a machine of its own`, false);
  }

  async #deliver(s: SinkState, row: SinkRow, next: NextBatch, counts: { batches: number; skipped: number; rows: number }): Promise<void> {
    const { batch } = next;
    const covered = next.kind === 'log' && s.applied !== null && batch.toSeq <= s.applied;
    const empty = batch.upserts.length === 0 && batch.deletes.length === 0;
    if (covered || empty) {
      if (covered) counts.skipped++;
    } else {
      await s.sink.write(batch);
      counts.batches++;
      counts.rows += next.rows;
      await this.#options.afterWrite?.(s.sink, batch);
    }
    if (!local(() => this.#ack.immediate(row, next.after, covered ? 0 : next.rows, next.caughtUp, this.#now() / 1000))) {
      throw new SinkError('HERMETIC_SINK_CURSOR_MOVED', `the cursor of ${s.sink.display} was moved by another process meanwhile; it is read again`, true);
    }
  }

  /**
   * Nothing left to send: the sink holds everything (once its first copy is done). A failure recorded before is over
   * too: after a failure the pass opened the sink again to get here, so status stops saying it fails, and the next
   * pass does not say it is back again.
   */
  #touchCaughtUp(row: SinkRow): void {
    this.#db.prepare(`UPDATE ${REMOTE_SINKS.name} SET caught_up_at = CASE WHEN snapshot IS NULL THEN ? ELSE caught_up_at END, failures = 0, last_error = NULL, retry_at = NULL WHERE sink_id = ?`)
      .run(this.#now() / 1000, row.sink_id);
  }

  async #failed(s: SinkState, error: SinkError, counts: { batches: number; skipped: number; rows: number }): Promise<ShipResult> {
    let row: SinkRow | null = null;
    try {
      row = sinkRow(this.#db, s.sink.id);
    } catch { /* the dataset itself is failing: the failure is still said and returned */ }
    const failures = (row?.failures ?? 0) + 1;
    // The connection is dropped on any failure: the next attempt opens again and asks the applied number again.
    if (s.opened) {
      s.opened = false;
      await s.sink.close().catch(() => undefined);
    }
    let state: ShipResult['state'];
    if (error.retriable) {
      const d = Math.min(this.#backoff.maxMs, this.#backoff.baseMs * 2 ** Math.min(30, failures - 1));
      // A destination that said how long to leave it alone (HTTP Retry-After) is not tried before then (contract.ts),
      // up to an hour: a receiver's mistake cannot park the sink for good.
      const asked = Math.min(RETRY_AFTER_MAX_MS, error.retryAfterMs ?? 0);
      s.retryAtMs = this.#now() + Math.max(asked, d / 2 + this.#random() * (d / 2));
      state = 'retrying';
      const when = this.#options.once ? 'the next run tries it again' : `retrying in ${Math.ceil((s.retryAtMs - this.#now()) / 1000)} s`;
      this.#options.say?.(`hermetic: sink ${s.sink.display} failed (${error.message}) [${error.code}]; ${when}`);
    } else {
      s.stopped = error;
      state = 'stopped';
      const kept = row ? '' : '; it is not kept as a sink';
      this.#options.say?.(`hermetic: sink ${s.sink.display} stopped: ${error.message} [${error.code}]${kept}; the other sinks go on`);
    }
    if (row) {
      try {
        this.#db.prepare(`UPDATE ${REMOTE_SINKS.name} SET failures = ?, last_error = ?, retry_at = ? WHERE sink_id = ?`)
          .run(failures, `${error.message} [${error.code}]`, error.retriable ? s.retryAtMs / 1000 : null, s.sink.id);
      } catch { /* as above */ }
    }
    return this.#result(s, state, counts, error);
  }

  /**
   * Ends the passes under way after their current batch, waits `graceMs` for that batch, then cuts short the writes
   * still going (sinks that can: RemoteSink.abort), and closes every sink.
   */
  async close(graceMs = CLOSE_GRACE_MS): Promise<void> {
    this.#closing = true;
    let timer: NodeJS.Timeout | undefined;
    const late = await Promise.race([
      this.idle().then(() => false),
      new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(true), graceMs); }),
    ]);
    clearTimeout(timer);
    if (late) {
      for (const s of this.#states) {
        if (s.running && s.sink.abort) {
          s.cut = true;
          s.sink.abort();
        }
      }
    }
    await this.idle();
    for (const s of this.#states) {
      if (s.opened) {
        s.opened = false;
        await s.sink.close().catch(() => undefined);
      }
    }
  }
}
