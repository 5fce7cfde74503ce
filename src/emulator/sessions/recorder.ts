// A run's turn in the API server's sessions, as Hermes's AIAgent writes it into the profile's state.db: the agent opens
// the run's session when it starts (a row the client created is kept), then persists the user message, each model
// response's tool calls and each tool result as they happen, its activity heartbeat, and the final answer with the
// turn's tokens when it returns (decision 0133). The agent cannot wait, and a row written per admitted run would cost
// keyed admission much of its throughput (decision 0005). So the writes wait in memory and are committed together, at
// most COALESCE_MS after the first of them, or at once when MAX_PENDING writes or MAX_PENDING_TEXT characters of text
// wait (an in-process caller that never lets the event loop turn never lets the timer fire: decision 0137), and before
// anything could show them: every session route first commits what is waiting (`settled`). A lock held by another
// connection keeps the writes waiting, in order, retried off the loop, up to record/held-writes.ts's bounds: past
// them a write is dropped and that is said (decision 0148).
import { dumps, scrubSurrogates, type PlainJson } from '../../shared/python/index.js';
import type { MessageInput } from '../../state-db/writer/types.js';
import { fitsHeld, heldDroppedText, heldFullText, ROW_TEXT } from '../record/held-writes.js';
import type { Beat, FinishedTurn, Opening, TurnSink, TurnStart } from '../record/turn-sink.js';
import { lockBackoff, StoreUnavailable, type LockWait } from '../runs/run-table.js';
import { CONTENT_JSON_PREFIX } from './object.js';
import type { NewMessage, SessionOps, SessionTable, UsageDelta } from './table.js';

/** A message row's stored form, as SessionDB encodes it (structured content behind `\x00json:`, tool calls as JSON). */
export function storedMessage(m: MessageInput): NewMessage {
  // SessionDB's text columns lose their lone surrogates (U+FFFD) before they are bound, as the --state-db writer's do.
  const text = (v: string | null | undefined): string | null => (typeof v === 'string' ? scrubSurrogates(v) : null);
  const content =
    m.content === undefined || m.content === null || typeof m.content === 'string' ? text(m.content) : CONTENT_JSON_PREFIX + dumps(m.content as PlainJson);
  return {
    role: m.role,
    content,
    tool_call_id: m.tool_call_id ?? null,
    tool_calls: m.tool_calls && m.tool_calls.length > 0 ? dumps(m.tool_calls as unknown as PlainJson) : null,
    tool_name: text(m.tool_name),
    timestamp: m.timestamp!,
    token_count: m.token_count ?? null,
    finish_reason: m.finish_reason ?? null,
    reasoning: text(m.reasoning),
    reasoning_content: text(m.reasoning_content),
    display_kind: text(m.display_kind),
  };
}

/** The characters of text a stored row holds (its string columns), and a little for the row itself. */
function rowText(row: NewMessage): number {
  let n = ROW_TEXT;
  for (const v of [row.content, row.tool_call_id, row.tool_calls, row.tool_name, row.reasoning, row.reasoning_content, row.display_kind]) {
    if (v !== null) n += v.length;
  }
  return n;
}

/** `text`: the characters it holds until it is committed (message rows; a write without rows holds next to none). */
type Write = { readonly what: string; readonly text: number; apply(ops: SessionOps): void };

/**
 * What an agent writes as it starts: its session (a row the client created is kept, a missing model filled), the user
 * message and the first heartbeat. Kept as data until applied: a run admitted and never looked at costs no more.
 */
class OpeningWrite implements Write {
  /** The rows it writes, made when it joins the waiting writes (they share the run's strings). */
  #rows: NewMessage[] | null = null;
  #text: number | null = null;

  constructor(
    private readonly turn: TurnStart,
    private readonly opening: Opening,
  ) {}

  get what(): string {
    return `opening session ${this.turn.sessionId}`;
  }

  /** Counted once: the rows it writes are made once, and a partial commit counts what is left again. */
  get text(): number {
    return (this.#text ??= this.#stored().reduce((n, row) => n + rowText(row), ROW_TEXT));
  }

  #stored(): NewMessage[] {
    return (this.#rows ??= this.opening.messages.map(storedMessage));
  }

  apply(ops: SessionOps): void {
    const { turn, opening } = this;
    ops.ensure({
      profile: turn.profile,
      id: turn.sessionId,
      started_at: turn.at,
      model: turn.model,
      system_prompt: null,
      ...(turn.delegatedFrom === undefined
        ? { source: 'api_server', model_config: null }
        : { source: 'subagent', model_config: dumps({ _delegate_from: turn.delegatedFrom }), parent_session_id: turn.delegatedFrom }),
    });
    if (opening.messages.length > 0) ops.append(turn.profile, turn.sessionId, this.#stored(), null);
    if (opening.beat) ops.touch(turn.profile, turn.sessionId, opening.beat.at);
  }
}

/** Wall-clock milliseconds the agent's writes may wait for company before they are committed. */
const COALESCE_MS = 20;
/** Waiting writes that are committed at once, whatever the time. */
const MAX_PENDING = 512;
/**
 * Characters of text waiting that are committed at once, whatever the time: what waits stays this small however large
 * the messages (a 10 MB input is committed with its run's end, not held with 511 others; decision 0137).
 */
export const MAX_PENDING_TEXT = 1_048_576;

export class SessionRecorder implements TurnSink {
  /** Writes not committed yet, oldest first: flushed together at the end of the event-loop turn (group commit). */
  #pending: Write[] = [];
  /** The characters of text the waiting writes hold (their `text`). */
  #pendingText = 0;
  /**
   * What runs wrote as their agent started (the session row, the user message, the first heartbeat) that no one could
   * see yet, by profile and session id: written before anything that could show them, or ahead of the next write into
   * the session. A row per admitted run would cost keyed admission much of its throughput (decision 0133 measured it).
   */
  #opened = new Map<string, Write[]>();
  #timer: ReturnType<typeof setTimeout> | null = null;
  /** While another connection holds the lock: the retry loop readers wait for. */
  #retrying: Promise<void> | null = null;
  #generation = 0;
  /** Writes dropped while the lock is held (record/held-writes.ts's bounds): said once at the first, counted to its end. */
  #dropped = 0;
  /** Runs whose turn's messages a session chat stream keeps (decision 0145), by run id. */
  #watched = new Map<string, MessageInput[]>();

  constructor(
    private readonly table: SessionTable,
    private readonly lock: LockWait,
    private readonly onError: (error: unknown) => void,
  ) {}

  started(turn: TurnStart, opening: Opening): void {
    const key = `${turn.profile}\0${turn.sessionId}`;
    const write = new OpeningWrite(turn, opening);
    const writes = this.#opened.get(key);
    if (writes) writes.push(write);
    else this.#opened.set(key, [write]);
  }

  /** Keeps the messages `runId`'s own turn writes (not a subagent's), until `stop` (TurnMessages, decision 0145). */
  watch(runId: string): { messages: MessageInput[]; stop(): void } {
    const messages: MessageInput[] = [];
    this.#watched.set(runId, messages);
    return { messages, stop: () => void (this.#watched.get(runId) === messages && this.#watched.delete(runId)) };
  }

  #keep(turn: TurnStart, messages: readonly MessageInput[]): void {
    if (turn.delegatedFrom === undefined) this.#watched.get(turn.runId)?.push(...messages);
  }

  appended(turn: TurnStart, messages: readonly MessageInput[]): void {
    this.#keep(turn, messages);
    this.#takeSession(turn);
    const rows = messages.map(storedMessage);
    this.#write(`recording messages of session ${turn.sessionId}`, (ops) => ops.append(turn.profile, turn.sessionId, rows, null), rows);
  }

  touched(turn: TurnStart, beat: Beat): void {
    this.#takeSession(turn);
    this.#write(`recording the activity of session ${turn.sessionId}`, (ops) => ops.touch(turn.profile, turn.sessionId, beat.at), []);
  }

  finished(turn: FinishedTurn): void {
    this.#keep(turn, turn.messages);
    this.#takeSession(turn);
    const messages = turn.messages.map(storedMessage);
    const u = turn.usage;
    // Hermes's agent adds each API call's usage as it returns; the turn counts its calls (record/turns.ts).
    const usage: UsageDelta | null = u && {
      input: u.input_tokens,
      output: u.output_tokens,
      reasoning: u.reasoning_tokens ?? 0,
      apiCalls: u.api_calls,
      cost: u.estimated_cost_usd ?? 0,
    };
    if (messages.length === 0 && usage === null) return;
    this.#write(`recording a turn of session ${turn.sessionId}`, (ops) => ops.append(turn.profile, turn.sessionId, messages, usage), messages);
  }

  /**
   * A session the agent opened joins the waiting writes before the first write into it (its run may end with nothing
   * more to write: what it opened is then committed as any waiting write is, not left for the next run's).
   */
  #takeSession(turn: TurnStart): void {
    const key = `${turn.profile}\0${turn.sessionId}`;
    const opened = this.#opened.get(key);
    if (opened) {
      this.#opened.delete(key);
      this.#enqueue(opened);
    }
  }

  /**
   * null when nothing is waiting (or it could be committed now); else a promise that settles once every waiting write
   * is committed or given up. Every session route calls this before it reads or writes: nobody reads around a turn.
   */
  settled(): Promise<void> | null {
    this.#takeOpened();
    if (this.#pending.length === 0) return null;
    if (this.#retrying) return this.#retrying;
    return this.flush() ? null : this.#retrying;
  }

  /** Commits what is waiting now, in one transaction; true when nothing is left waiting. */
  flush(): boolean {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#takeOpened();
    if (this.#pending.length === 0) return true;
    if (this.#retrying) return false;
    if (this.#attempt()) return true;
    this.#retry();
    return false;
  }

  /** One try at everything waiting; false when another connection holds the lock (nothing is lost then). */
  #attempt(): boolean {
    const batch = this.#pending;
    try {
      this.table.writeNow('recording turns into their sessions', (ops) => {
        for (const w of batch) w.apply(ops);
      });
      this.#pending = this.#pending.slice(batch.length);
      this.#pendingText = this.#pending.reduce((n, w) => n + w.text, 0);
      return true;
    } catch (e) {
      if (e instanceof StoreUnavailable && e.reason === 'busy') return false;
    }
    // One write fails for another reason (rolled back with the batch): each alone, so only that one is lost.
    while (this.#pending.length > 0) {
      const next = this.#pending[0]!;
      try {
        this.table.writeNow(next.what, next.apply);
      } catch (e) {
        if (e instanceof StoreUnavailable && e.reason === 'busy') return false;
        this.onError(e);
      }
      this.#pending.shift();
      this.#pendingText -= next.text;
    }
    return true;
  }

  /** An emulated crash: what is still waiting is tried once more, then lost with the process. */
  reset(): void {
    this.flush();
    this.clear();
  }

  /** Drops what is waiting (a namespace reset, a checkpoint restore). */
  clear(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#pending = [];
    this.#pendingText = 0;
    this.#opened.clear();
    this.#generation++;
    this.#retrying = null;
    this.#dropped = 0;
  }

  /**
   * What the agents opened joins the waiting writes, after them: every write into a session already waiting is older
   * than what is still held for it (#takeSession moves that first), so each session keeps its order.
   */
  #takeOpened(): void {
    if (this.#opened.size === 0) return;
    for (const writes of this.#opened.values()) this.#add(writes);
    this.#opened.clear();
  }

  #add(writes: readonly Write[]): void {
    for (const w of writes) {
      this.#pending.push(w);
      this.#pendingText += w.text;
    }
  }

  #write(what: string, apply: (ops: SessionOps) => void, rows: readonly NewMessage[]): void {
    this.#enqueue([{ what, apply, text: rows.reduce((n, row) => n + rowText(row), ROW_TEXT) }]);
  }

  /**
   * Writes join the waiting ones: committed at once past either bound, else within COALESCE_MS. While another
   * connection holds the lock they wait up to the held bounds; past them they are dropped (said at the first).
   */
  #enqueue(writes: readonly Write[]): void {
    if (this.#retrying) {
      const text = writes.reduce((n, w) => n + w.text, 0);
      if (!fitsHeld(this.#pending.length, this.#pendingText, writes.length, text)) {
        if (this.#dropped === 0) this.onError(new Error(heldFullText(this.#pending.length, this.#pendingText)));
        this.#dropped += writes.length;
        return;
      }
      this.#add(writes);
      return;
    }
    this.#add(writes);
    if (this.#pending.length >= MAX_PENDING || this.#pendingText >= MAX_PENDING_TEXT) {
      this.flush();
      return;
    }
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.flush();
    }, COALESCE_MS);
    this.#timer.unref?.();
  }

  /** Retries off the loop while another connection holds the lock; the writes keep their order. */
  #retry(): void {
    const generation = this.#generation;
    const retrying = (async () => {
      for (let attempt = 0; this.#pending.length > 0 && generation === this.#generation; attempt++) {
        await this.lock.sleep(lockBackoff(attempt));
        if (generation === this.#generation && this.#attempt()) return;
      }
    })().finally(() => {
      if (this.#retrying === retrying) this.#retrying = null;
      if (generation !== this.#generation) return; // cleared: a count of its own, reset there
      if (this.#dropped > 0) this.onError(new Error(heldDroppedText(this.#dropped)));
      this.#dropped = 0;
    });
    this.#retrying = retrying;
  }
}
