// A run's turn in the API server's sessions: the agent opens the run's session when it starts (a row the client
// created is kept) and flushes the turn's messages and token totals when it returns, as Hermes's AIAgent does in the
// profile's state.db. The agent cannot wait: a write the store refuses now (a lock held by another connection) is
// kept, in order, and retried off the loop; readers wait for those first (`settled`), so nobody reads around them.
import { dumps, type PlainJson } from '../../shared/python/index.js';
import type { MessageInput } from '../../state-db/writer/index.js';
import type { FinishedTurn, TurnSink, TurnStart } from '../record/turns.js';
import { lockBackoff, StoreUnavailable, type LockWait } from '../runs/run-table.js';
import { CONTENT_JSON_PREFIX } from './object.js';
import type { NewMessage, SessionOps, SessionTable } from './table.js';

/** A message row's stored form, as SessionDB encodes it (structured content behind `\x00json:`, tool calls as JSON). */
export function storedMessage(m: MessageInput): NewMessage {
  const content =
    m.content === undefined || m.content === null || typeof m.content === 'string' ? (m.content ?? null) : CONTENT_JSON_PREFIX + dumps(m.content as PlainJson);
  return {
    role: m.role,
    content,
    tool_call_id: m.tool_call_id ?? null,
    tool_calls: m.tool_calls && m.tool_calls.length > 0 ? dumps(m.tool_calls as unknown as PlainJson) : null,
    tool_name: m.tool_name ?? null,
    timestamp: m.timestamp!,
    token_count: m.token_count ?? null,
    finish_reason: m.finish_reason ?? null,
    reasoning: m.reasoning ?? null,
    reasoning_content: m.reasoning_content ?? null,
    display_kind: m.display_kind ?? null,
  };
}

type Write = { what: string; apply: (ops: SessionOps) => void };

export class SessionRecorder implements TurnSink {
  /** Writes the store refused, oldest first; while any is waiting, new ones queue behind it. */
  #pending: Write[] = [];
  #flushing: Promise<void> | null = null;
  #generation = 0;

  constructor(
    private readonly table: SessionTable,
    private readonly lock: LockWait,
    private readonly onError: (error: unknown) => void,
  ) {}

  started(turn: TurnStart): void {
    this.#write(`opening session ${turn.sessionId}`, (ops) =>
      ops.ensure({ profile: turn.profile, id: turn.sessionId, source: 'api_server', model: turn.model, model_config: null, system_prompt: null, started_at: turn.at }),
    );
  }

  finished(turn: FinishedTurn): void {
    const messages = turn.messages.map(storedMessage);
    const tokens = turn.usage ? { input: turn.usage.input_tokens, output: turn.usage.output_tokens } : null;
    this.#write(`recording a turn of session ${turn.sessionId}`, (ops) => ops.append(turn.profile, turn.sessionId, messages, tokens));
  }

  /** null when nothing is waiting; else a promise that settles once every waiting write is committed (or given up). */
  settled(): Promise<void> | null {
    return this.#pending.length === 0 ? null : (this.#flushing ?? this.#flush());
  }

  /** An emulated crash: a write still waiting is tried once more, then lost with the process. */
  reset(): void {
    try {
      for (const w of this.#pending) this.table.writeNow(w.what, w.apply);
    } catch {
      // lost with the emulated process
    }
    this.clear();
  }

  /** Drops what is waiting (a namespace reset, a checkpoint restore). */
  clear(): void {
    this.#pending = [];
    this.#generation++;
  }

  #write(what: string, apply: (ops: SessionOps) => void): void {
    if (this.#pending.length === 0) {
      try {
        this.table.writeNow(what, apply);
        return;
      } catch (e) {
        if (!(e instanceof StoreUnavailable) || e.reason === 'closed') {
          this.onError(e);
          return;
        }
      }
    }
    this.#pending.push({ what, apply });
    void this.settled();
  }

  #flush(): Promise<void> {
    const generation = this.#generation;
    this.#flushing = (async () => {
      for (let attempt = 0; this.#pending.length > 0 && generation === this.#generation; attempt++) {
        const next = this.#pending[0]!;
        try {
          this.table.writeNow(next.what, next.apply);
          this.#pending.shift();
          attempt = -1;
        } catch (e) {
          if (!(e instanceof StoreUnavailable) || e.reason !== 'busy') {
            // A statement that fails for another reason will not succeed later: reported, and dropped.
            this.onError(e);
            this.#pending.shift();
            continue;
          }
          await this.lock.sleep(lockBackoff(attempt));
        }
      }
    })().finally(() => {
      this.#flushing = null;
    });
    return this.#flushing;
  }
}
