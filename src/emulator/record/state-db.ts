// Records the runs the emulator plays into a Hermes-shaped state.db, as Hermes's API server does: the session
// (source api_server, the run's model, its profile and session key; an earlier run's end stamp cleared) when the
// agent starts, then each message as the agent persists it — the user message, a model response's tool calls, each
// tool result — and its activity heartbeat, each write its own transaction as Hermes's flushes are; when the agent
// returns, the final answer, the run's tokens added as the agent's per-call updates add them, and the end stamp on a
// terminal status; and the sessions clients create and change through /api/sessions, as SessionDB writes them. The
// file is another process's too: a write it finds locked waits in order and is tried again, off the request, up to
// held-writes.ts's bounds; one that fails or finds them full is said, never thrown into a run. Decisions 0004, 0026,
// 0133, 0147 and 0148 record the choices; record/turns.ts builds the turns.
import { existsSync } from 'node:fs';
import type { IdSource } from '../../shared/ids.js';
import { isLockedOut, openReadWrite, type Db } from '../../shared/sqlite.js';
import { createStore, LATEST_LEVEL, securePrivateFiles } from '../../state-db/schema/index.js';
import { StateDbWriter, type MessageInput } from '../../state-db/writer/index.js';
import type { ForkRecord, ModelLockRecord } from '../sessions/service.js';
import type { NewSession } from '../sessions/table.js';
import { recordFork } from './fork.js';
import { fitsHeld, HELD_BOUNDS, heldDroppedText, heldFullText, messagesText, ROW_TEXT, type HeldBounds } from './held-writes.js';
import { recordModelLock } from './model-lock.js';
import { endAsHermes, reopenForRun, RUN_END_REASONS } from './session-end.js';
import type { Beat, FinishedTurn, Opening, TurnStart } from './turn-sink.js';

/**
 * Opens an existing store as it is, or creates one at the current schema (WAL) stamped with a generation token from
 * `ids` (decision 0134). Either way the file and its -wal and -shm end up 0600, as each of Hermes's writable opens
 * leaves them (_secure_state_db_files: before SQLite opens the file and after its WAL setup).
 */
export function openStateDb(path: string, ids?: IdSource): Db {
  if (!existsSync(path)) return createStore({ path, level: LATEST_LEVEL, journal: 'wal', ids });
  securePrivateFiles(path);
  const db = openReadWrite(path);
  securePrivateFiles(path);
  return db;
}

/** The row POST /api/sessions inserts (Hermes's INSERT names these columns; the title is set after). */
export type ApiSessionRow = Omit<NewSession, 'profile'> & { title: string | null };

/** How long a held write waits before it is tried again (real time: another process holds the lock). */
const RETRY_MS = 100;

/** A write to make: when it happened (its stamps), what it is (said if it fails), and the statements. */
interface Held {
  at: number;
  what: string;
  /** The characters of text it holds (held-writes.ts). */
  text: number;
  run: (w: StateDbWriter) => void;
  /** A turn's session and its last message time (a later turn of it comes after, even while this one waits). */
  turn?: { sessionId: string; lastAt: number };
}

const busy = isLockedOut;

/** SessionDB.touch_session_activity: forward only; stores before schema v26 have no such columns. */
function touch(w: StateDbWriter, sessionId: string, beat: Beat): void {
  if (!w.has('sessions', 'last_activity_at')) return;
  w.stmt(`UPDATE sessions SET last_activity_at = ?, last_activity_description = ?, last_activity_provenance = 'unknown'
    WHERE id = ? AND (last_activity_at IS NULL OR last_activity_at < ?)`).run(beat.at, beat.description, sessionId, beat.at);
}

/** One file's recorder; record/state-files.ts picks the file for each profile and hands it the writes. */
export class StateDbRecorder {
  #open: StateDbWriter | null = null;
  /** Writes waiting for the lock, oldest first: a later write never overtakes an earlier one. */
  #held: Held[] = [];
  /**
   * Sessions the emulated Hermes has ended in this file (PATCH's end_reason), as the writes are made: a later run leaves
   * their end alone though it reads as one of the recorder's own stamps (`done`, `failed`, `cancelled`).
   */
  #endedByHermes = new Set<string>();
  /** The text the held writes hold. */
  #heldText = 0;
  /** Writes dropped past the held bounds while the lock is held: said at the first, counted until the lock is free. */
  #dropped = 0;
  #retry: NodeJS.Timeout | null = null;
  /** The time of the write being made: a held write keeps the stamps of when it happened. */
  #at = 0;
  /** Failures already said (one line each, not one per write). */
  readonly #said = new Set<string>();

  /**
   * `eager`: open the file now (a bad path fails here); otherwise at the first record (decision 0028). `onError`
   * hears a write that could not be made (the run it belongs to goes on).
   */
  constructor(
    private readonly path: string,
    private readonly options: {
      now: () => number;
      ids: IdSource;
      /** Where a new file's generation token comes from: a stream of its own, so recording moves no other id. */
      fileIds?: IdSource;
      eager?: boolean;
      onError?: (what: string, error: unknown) => void;
      /** What may wait for the lock (held-writes.ts; tests give less). */
      held?: HeldBounds;
    },
  ) {
    if (options.eager) void this.#writer;
  }

  get #writer(): StateDbWriter {
    if (this.#open === null) {
      const db = openStateDb(this.path, this.options.fileIds);
      // A lock is never waited for on the event loop: the write is held and tried again (#retryLater).
      db.pragma('busy_timeout = 0');
      // session_daily_usage.day in local time, as SessionDB's date(?, 'unixepoch', 'localtime') names it (decision 0079).
      this.#open = new StateDbWriter(db, { now: () => this.#at, ids: this.options.ids, dayIn: 'localtime' });
    }
    return this.#open;
  }

  /** Makes a write now, or holds it behind those waiting for the lock. */
  #write(what: string, run: (w: StateDbWriter) => void, turn?: Held['turn'], messages?: readonly MessageInput[]): void {
    const text = messages ? messagesText(messages) : ROW_TEXT;
    const held: Held = { at: this.options.now(), what, text, run, ...(turn ? { turn } : {}) };
    if (this.#held.length === 0 && this.#attempt(held)) return;
    const bounds = this.options.held ?? HELD_BOUNDS;
    if (!fitsHeld(this.#held.length, this.#heldText, 1, text, bounds)) {
      if (this.#dropped++ === 0) this.#fail(held, new Error(heldFullText(this.#held.length, this.#heldText, bounds)));
      return;
    }
    this.#held.push(held);
    this.#heldText += text;
    this.#retryLater();
  }

  /** True when the write is done (or failed for good, and said); false when the file is locked. */
  #attempt(held: Held): boolean {
    this.#at = held.at;
    try {
      held.run(this.#writer);
      return true;
    } catch (e) {
      if (busy(e)) return false;
      this.#fail(held, e);
      return true;
    }
  }

  #fail(held: Held, error: unknown): void {
    const line = `recording ${held.what} into ${this.path}: ${(error as Error)?.message ?? String(error)}`;
    if (this.#said.size < 100 && !this.#said.has(line)) {
      this.#said.add(line);
      this.options.onError?.(`recording ${held.what} into ${this.path}`, error);
    }
  }

  #retryLater(): void {
    if (this.#retry !== null) return;
    this.#retry = setTimeout(() => {
      this.#retry = null;
      this.#drain();
    }, RETRY_MS);
    this.#retry.unref();
  }

  /** Makes the held writes in order, up to the first the lock still refuses. */
  #drain(): void {
    while (this.#held.length > 0) {
      if (!this.#attempt(this.#held[0]!)) return this.#retryLater();
      this.#heldText -= this.#held.shift()!.text;
    }
    if (this.#dropped > 0) {
      this.options.onError?.(`recording into ${this.path}`, new Error(heldDroppedText(this.#dropped)));
      this.#dropped = 0;
    }
  }

  /** Writes still waiting for the file's lock. */
  get held(): number {
    return this.#held.length;
  }

  started(turn: TurnStart, opening: Opening): void {
    // Hermes's agent creates the session if missing (started_at: the agent's start, before its first message); a
    // later run on it clears the end stamp an earlier run left (an end Hermes made stays: record/session-end.ts). The
    // profile is named, `default` included, and the session key is the agent's gateway_session_key (decision 0133). Then what it writes before its first model
    // call: the user message and its first heartbeat (three writes in Hermes, one transaction here).
    const parent = turn.delegatedFrom;
    const identity = { started_at: turn.at, profile_name: turn.profile, session_key: turn.sessionKey ?? undefined };
    const last = opening.messages.at(-1)?.timestamp;
    this.#write(parent === undefined ? `the start of run ${turn.runId}` : `subagent session ${turn.sessionId}`, (w) => w.tx(() => {
      if (parent === undefined) w.createSession({ id: turn.sessionId, source: 'api_server', model: turn.model, ...identity });
      else w.createSession({ id: turn.sessionId, source: 'subagent', model: turn.model, parent_session_id: parent, model_config: { _delegate_from: parent }, ...identity });
      // create_session's upsert fills what an existing row (one POST /api/sessions made) lacks, never what it has.
      const values: Record<string, unknown> = { model: turn.model, ...identity };
      const fill = (['model', 'profile_name', 'session_key'] as const).filter((c) => values[c] !== undefined && w.has('sessions', c));
      if (fill.length > 0) {
        w.stmt(`UPDATE sessions SET ${fill.map((c) => `${c} = COALESCE(${c}, ?)`).join(', ')} WHERE id = ?`).run(...fill.map((c) => values[c]), turn.sessionId);
      }
      if (!this.#endedByHermes.has(turn.sessionId)) reopenForRun(w, turn.sessionId);
      if (opening.messages.length > 0) w.appendMessages(turn.sessionId, [...opening.messages]);
      if (opening.beat) touch(w, turn.sessionId, opening.beat);
    }), typeof last === 'number' ? { sessionId: turn.sessionId, lastAt: last } : undefined, opening.messages);
  }

  appended(turn: TurnStart, messages: readonly MessageInput[]): void {
    const last = messages.at(-1)?.timestamp;
    this.#write(`the messages of session ${turn.sessionId}`, (w) => void w.appendMessages(turn.sessionId, [...messages]),
      typeof last === 'number' ? { sessionId: turn.sessionId, lastAt: last } : undefined, messages);
  }

  touched(turn: TurnStart, beat: Beat): void {
    this.#write(`the activity of session ${turn.sessionId}`, (w) => touch(w, turn.sessionId, beat));
  }

  lastMessageAt(sessionId: string): number | null {
    // A turn held for the lock is newer than anything stored.
    for (let i = this.#held.length - 1; i >= 0; i--) {
      const t = this.#held[i]!.turn;
      if (t?.sessionId === sessionId) return t.lastAt;
    }
    try {
      const t = this.#writer.db.prepare('SELECT MAX(timestamp) FROM messages WHERE session_id = ?').pluck().get(sessionId);
      return typeof t === 'number' ? t : null;
    } catch {
      return null; // unreadable now: the turn is timed by the clock alone
    }
  }

  finished(turn: FinishedTurn): void {
    const last = turn.messages.at(-1)?.timestamp;
    const what = turn.delegatedFrom === undefined ? `the turn of run ${turn.runId}` : `the turn of subagent session ${turn.sessionId}`;
    this.#write(what, (w) => w.tx(() => {
      if (turn.messages.length > 0) w.appendMessages(turn.sessionId, [...turn.messages]);
      // Hermes's agent adds each API call's usage as it returns (delta mode); a turn's calls and their sum, here, with
      // the cost verdict each call carries (cost_status/cost_source: COALESCE(?, column)).
      if (turn.usage) w.updateTokenCounts(turn.sessionId, { ...turn.usage, model: turn.model }, 'delta');
      const reason = RUN_END_REASONS[turn.status];
      if (reason) w.endSession(turn.sessionId, reason);
      // _reset_activity_labels_after_turn: the heartbeat's label goes when the turn ends; its time stays.
      if (w.has('sessions', 'last_activity_description')) {
        w.stmt(`UPDATE sessions SET last_activity_description = '', last_activity_provenance = 'unknown'
          WHERE id = ? AND (COALESCE(last_activity_description, '') <> '' OR COALESCE(last_activity_provenance, 'unknown') <> 'unknown')`).run(turn.sessionId);
      }
    }), typeof last === 'number' ? { sessionId: turn.sessionId, lastAt: last } : undefined, turn.messages);
  }

  /**
   * POST /api/sessions: the row as the API server's create transaction inserts it (system_prompt in its own column,
   * not content-addressed), then its title. A row the store already has (another namespace or profile sharing this
   * file) is kept; a title another row holds is left off (the file has Hermes's unique title index).
   */
  sessionCreated(row: ApiSessionRow): void {
    this.#write(`session ${row.id}`, (w) => w.tx(() => {
      const { changes } = w.insert('sessions', { id: row.id, source: row.source, model: row.model, model_config: row.model_config, system_prompt: row.system_prompt, started_at: row.started_at }, 'INSERT OR IGNORE');
      if (changes === 0 || row.title === null) return;
      const holder = w.stmt('SELECT id FROM sessions WHERE title = ? AND id != ?').get(row.title, row.id);
      if (!holder) w.updateSession(row.id, { title: row.title });
    }));
  }

  /** PATCH /api/sessions/{id} and the Bot Chat resurrection: the columns SessionDB's set_* calls change (a title another row holds is left off). */
  sessionUpdated(id: string, fields: Record<string, unknown>): void {
    this.#write(`a change of session ${id}`, (w) => w.tx(() => {
      const { title, ...rest } = fields;
      if (title !== undefined && (title === null || !w.stmt('SELECT id FROM sessions WHERE title = ? AND id != ?').get(title, id))) {
        w.stmt('UPDATE sessions SET title = ? WHERE id = ?').run(title, id);
      }
      // updateSession skips undefined values only: null clears a column (the resurrection's ended_at/end_reason).
      const cols = w.columns('sessions');
      const keys = Object.keys(rest).filter((k) => cols.has(k));
      if (keys.length > 0) w.stmt(`UPDATE sessions SET ${keys.map((k) => `${k} = ?`).join(', ')} WHERE id = ?`).run(...keys.map((k) => rest[k]), id);
    }));
  }

  /** end_session through PATCH {"end_reason": …}: the first reason wins, a run's end stamp giving way (record/session-end.ts). */
  sessionEnded(id: string, reason: string, at: number, wasOpen: boolean): void {
    this.#write(`the end of session ${id}`, (w) => {
      endAsHermes(w, id, reason, at, wasOpen);
      this.#endedByHermes.add(id);
    });
  }

  /** POST /api/sessions/{id}/model and the chat's require_model_lock (record/model-lock.ts). */
  sessionLocked(id: string, lock: ModelLockRecord): void {
    this.#write(`the model lock of session ${id}`, (w) => recordModelLock(w, id, lock));
  }

  /** DELETE /api/sessions/{id}: SessionDB.delete_session (messages, then the row; children orphaned). */
  sessionDeleted(id: string): void {
    this.#write(`the deletion of session ${id}`, (w) => w.tx(() => {
      if (w.stmt('SELECT 1 FROM sessions WHERE id = ?').get(id)) w.deleteSession(id);
      this.#endedByHermes.delete(id);
    }));
  }

  /** POST /api/sessions/{id}/fork (record/fork.ts); `profileName` as SessionDB derives it from the file's place. */
  sessionForked(fork: ForkRecord, profileName: string | null): void {
    this.#write(`the fork ${fork.id} of session ${fork.sourceId}`, (w) => recordFork(w, fork, profileName));
  }

  reset(): void {
    // Nothing of a turn is held here (record/turns.ts holds the turn). Writes waiting for the lock happened before the
    // crash or reset, and stay.
  }

  /** Makes what is held, waiting up to 2 s for the lock; what still cannot be made is said. */
  close(): void {
    if (this.#retry !== null) clearTimeout(this.#retry);
    this.#retry = null;
    if (this.#held.length > 0 && this.#open?.db.open) {
      this.#open.db.pragma('busy_timeout = 2000');
      this.#drain();
      if (this.#retry !== null) clearTimeout(this.#retry);
      this.#retry = null;
      if (this.#held.length > 0) this.#fail(this.#held[0]!, new Error(`the file stayed locked: ${this.#held.length} writes were not made`));
      this.#held = [];
      this.#heldText = 0;
    }
    if (this.#open?.db.open) this.#open.db.close();
    this.#open = null;
  }
}
