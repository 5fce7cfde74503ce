// One namespace's sessions: the store, the sink that writes the agent's turns into it, and what a namespace asks of
// them — a reset, a checkpoint part, a close. The routes' domain is service.ts; the default namespace keeps its
// sessions in the --db file beside its run rows, every other namespace in memory (decisions 0019, 0026).
import type { CheckpointPart } from '../namespaces/checkpoint-part.js';
import type { LockWait } from '../runs/run-table.js';
import { SessionRecorder } from './recorder.js';
import type { SessionsSnapshot, SessionTable } from './table.js';

export { SessionService, BOT_CHAT_TITLE, bodyObject, type Query, type SessionMirror } from './service.js';
export { CHAT_OWNER, type ChatOutcome } from './chat.js';
export type { SessionTable } from './table.js';

/** A new store's: no rows, and every profile's message ids counted from 1 (a new state.db's AUTOINCREMENT). */
const EMPTY: SessionsSnapshot = { sessions: [], messages: [], messageSeqs: {} };

export class Sessions implements CheckpointPart {
  readonly recorder: SessionRecorder;

  constructor(
    readonly table: SessionTable,
    lock: LockWait,
    onError: (error: unknown) => void,
  ) {
    this.recorder = new SessionRecorder(table, lock, onError);
  }

  /** A namespace reset: no sessions, message ids from 1 again. Throws StoreUnavailable (and changes nothing) when the store refuses. */
  reset(): void {
    if (this.table.discard) this.table.discard();
    else this.table.writeNow('resetting the sessions', (ops) => ops.replaceAll(EMPTY));
    this.recorder.clear();
  }

  /** Every session and message, the agent's waiting writes committed first when they can be. */
  snapshot(): SessionsSnapshot {
    this.recorder.flush();
    if (!this.table.opened) return EMPTY;
    return this.table.writeNow('taking a checkpoint of the sessions', (ops) => ops.snapshot());
  }

  restore(state: unknown): void {
    const snapshot = state as SessionsSnapshot;
    const empty = snapshot.sessions.length === 0 && snapshot.messages.length === 0 && !Object.values(snapshot.messageSeqs).some((seq) => seq > 0);
    if (this.table.discard && empty) this.table.discard();
    else this.table.writeNow('restoring the sessions', (ops) => ops.replaceAll(snapshot));
    this.recorder.clear();
  }

  close(): void {
    this.recorder.reset();
    this.table.close();
  }
}
