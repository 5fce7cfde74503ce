// Records the runs the emulator plays into a Hermes-shaped state.db, as Hermes's API server does: the session
// (source api_server, the run's model) when the agent starts, the turn's messages flushed in one transaction when
// the agent returns (user, assistant tool calls, tool results, final answer), absolute-mode token counters, and the
// end stamp on a terminal status; and the sessions clients create and change through /api/sessions, as SessionDB
// writes them. Decisions 0004 and 0026 record the choices; record/turns.ts builds the turns.
import { existsSync } from 'node:fs';
import type { IdSource } from '../../shared/ids.js';
import { openReadWrite, type Db } from '../../shared/sqlite.js';
import { createStore, LATEST_LEVEL } from '../../state-db/schema/index.js';
import { StateDbWriter } from '../../state-db/writer/index.js';
import type { NewSession } from '../sessions/table.js';
import type { FinishedTurn, TurnSink, TurnStart } from './turns.js';

const END_REASONS: Record<string, string> = { completed: 'done', failed: 'failed', cancelled: 'cancelled' };

/** Opens an existing store as it is, or creates one at the current schema (WAL). */
export function openStateDb(path: string): Db {
  return existsSync(path) ? openReadWrite(path) : createStore({ path, level: LATEST_LEVEL, journal: 'wal' });
}

/** The row POST /api/sessions inserts (Hermes's INSERT names these columns; the title is set after). */
export type ApiSessionRow = Omit<NewSession, 'profile'> & { title: string | null };

export class StateDbRecorder implements TurnSink {
  #open: StateDbWriter | null = null;

  /** `eager`: open the file now (a bad path fails here); otherwise at the first record (decision 0028). */
  constructor(
    private readonly path: string,
    private readonly options: { now: () => number; ids: IdSource; eager?: boolean },
  ) {
    if (options.eager) void this.#writer;
  }

  get #writer(): StateDbWriter {
    return (this.#open ??= new StateDbWriter(openStateDb(this.path), { now: this.options.now, ids: this.options.ids }));
  }

  started(turn: TurnStart): void {
    this.#writer.createSession({ id: turn.sessionId, source: 'api_server', model: turn.model });
  }

  lastMessageAt(sessionId: string): number | null {
    const t = this.#writer.db.prepare('SELECT MAX(timestamp) FROM messages WHERE session_id = ?').pluck().get(sessionId);
    return typeof t === 'number' ? t : null;
  }

  finished(turn: FinishedTurn): void {
    this.#writer.tx(() => {
      this.#writer.appendMessages(turn.sessionId, [...turn.messages]);
      if (turn.usage) {
        this.#writer.updateTokenCounts(turn.sessionId, { input_tokens: turn.usage.input_tokens, output_tokens: turn.usage.output_tokens }, 'absolute');
      }
      const reason = END_REASONS[turn.status];
      if (reason) this.#writer.endSession(turn.sessionId, reason);
    });
  }

  /**
   * POST /api/sessions: the row as the API server's create transaction inserts it (system_prompt in its own column,
   * not content-addressed), then its title. A row the store already has (another namespace or profile sharing this
   * file) is kept; a title another row holds is left off (the file has Hermes's unique title index).
   */
  sessionCreated(row: ApiSessionRow): void {
    const w = this.#writer;
    w.tx(() => {
      const { changes } = w.insert('sessions', { id: row.id, source: row.source, model: row.model, model_config: row.model_config, system_prompt: row.system_prompt, started_at: row.started_at }, 'INSERT OR IGNORE');
      if (changes === 0 || row.title === null) return;
      const holder = w.stmt('SELECT id FROM sessions WHERE title = ? AND id != ?').get(row.title, row.id);
      if (!holder) w.updateSession(row.id, { title: row.title });
    });
  }

  /** PATCH /api/sessions/{id} and the Bot Chat resurrection: the columns SessionDB's set_* calls change (a title another row holds is left off). */
  sessionUpdated(id: string, fields: Record<string, unknown>): void {
    const w = this.#writer;
    w.tx(() => {
      const { title, ...rest } = fields;
      if (title !== undefined && (title === null || !w.stmt('SELECT id FROM sessions WHERE title = ? AND id != ?').get(title, id))) {
        w.stmt('UPDATE sessions SET title = ? WHERE id = ?').run(title, id);
      }
      // updateSession skips undefined values only: null clears a column (the resurrection's ended_at/end_reason).
      const cols = w.columns('sessions');
      const keys = Object.keys(rest).filter((k) => cols.has(k));
      if (keys.length > 0) w.stmt(`UPDATE sessions SET ${keys.map((k) => `${k} = ?`).join(', ')} WHERE id = ?`).run(...keys.map((k) => rest[k]), id);
    });
  }

  /** end_session through PATCH {"end_reason": …}: the first reason wins. */
  sessionEnded(id: string, reason: string, at: number): void {
    this.#writer.endSession(id, reason, at);
  }

  /** DELETE /api/sessions/{id}: SessionDB.delete_session (messages, then the row; children orphaned). */
  sessionDeleted(id: string): void {
    if (this.#writer.stmt('SELECT 1 FROM sessions WHERE id = ?').get(id)) this.#writer.deleteSession(id);
  }

  reset(): void {
    // Nothing is held between a turn's start and its flush here: record/turns.ts holds the turn.
  }

  close(): void {
    if (this.#open?.db.open) this.#open.db.close();
    this.#open = null;
  }
}
