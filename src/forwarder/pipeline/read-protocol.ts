// What the writing thread and the read worker share (decision 0027): the job, the messages, and the slots of one
// shared Int32Array through which they claim sessions, wake each other and keep the worker at most a window ahead.
import type { ErrorCode } from '../../shared/errors.js';
import type { SessionRecords } from '../sinks/sink.js';
import type { ChunkSize } from './chunk-size.js';
import type { Long, Prior } from './read-session.js';

/** Slots of the control array. */
export const SLOT = {
  /** The next index of the job's session list to read; both threads take indexes from it (Atomics.add). */
  next: 0,
  /** 0 before the worker starts, 1 once it runs, 2 when the writing thread gave up waiting for it to start. */
  state: 1,
  /** Bumped after each message the worker posts (the writing thread sleeps on it). */
  posted: 2,
  /** Sessions and message rows posted by the worker, and taken by the writing thread (it sleeps on `taken`). */
  postedSessions: 3,
  postedMessages: 4,
  taken: 5,
  takenMessages: 6,
  /** Set by the writing thread to stop the worker at the next session. */
  abort: 7,
  /**
   * Characters of the texts posted and taken (decision 0171), as running sums that may wrap past 2**31: their
   * difference, taken `| 0`, is what is ahead.
   */
  postedChars: 8,
  takenChars: 9,
} as const;
export const SLOTS = 10;

export const STATE = { idle: 0, running: 1, closed: 2 } as const;

/** How far ahead the worker may read: sessions, message rows and characters of text posted but not yet taken. */
export interface ReadWindow {
  sessions: number;
  messages: number;
  chars: number;
}

/**
 * Whether the worker may read another session: it is less than the window ahead of the writing thread in sessions,
 * in message rows and in characters of text (decision 0171), by what the control array says now.
 */
export function roomAhead(control: Int32Array, window: ReadWindow): boolean {
  const sessionsAhead = Atomics.load(control, SLOT.postedSessions) - Atomics.load(control, SLOT.taken);
  const messagesAhead = Atomics.load(control, SLOT.postedMessages) - Atomics.load(control, SLOT.takenMessages);
  const charsAhead = (Atomics.load(control, SLOT.postedChars) - Atomics.load(control, SLOT.takenChars)) | 0;
  return sessionsAhead < window.sessions && messagesAhead < window.messages && charsAhead < window.chars;
}

export interface ReadJob {
  ref: { path: string; profile: string; hermesHome: string };
  /** The file the writing thread reads: the store, or its private copy (the worker reads the same one). */
  file: string;
  redact: boolean;
  origin: 'backfill' | 'forward';
  /** The sessions to read, by index (the control array hands the indexes out), with what their cursors hold. */
  ids: string[];
  priors: (Prior | null)[];
  /** The store's columns as the writing thread introspected them, valid while the schema cookie is this. */
  schema: { cookie: number; columns: Map<string, Set<string>> };
  window: ReadWindow;
  /** A session that does not fit in a chunk is left to the writing thread (read-session.ts LONG). */
  chunk: ChunkSize;
}

/** A job as the writing thread posts it to the worker, with the control array of its pass. */
export interface JobMessage {
  id: number;
  job: ReadJob;
  control: Int32Array;
}

/** What the worker posts; `job` is the id of the job it belongs to (0 for the worker as a whole). */
export type WorkerMessage =
  /** `chars`: the characters of the session's packed text, what the worker's lead is counted in (decision 0171). */
  | { kind: 'session'; job: number; index: number; read: SessionRecords | null | { error: string } | Long; chars?: number }
  /** Every index is taken and every read posted (or the job was let go). */
  | { kind: 'done'; job: number }
  /** Reading the store failed for good (after the reader's retries): the pass fails with this code. */
  | { kind: 'fatal'; job: number; code: ErrorCode; message: string }
  /** A bug (not the store's failure): the pass fails with it, its stack included. */
  | { kind: 'bug'; job: number; message: string; stack: string }
  /** The worker's modules could not be loaded: it will run no job. */
  | { kind: 'boot-failed'; job: 0; message: string }
  /**
   * Never posted: said by read-ahead.ts when the thread ended in a job (out of memory, a crash) and everything it
   * posted before has been taken. The sessions it took and did not post were read by nobody.
   */
  | { kind: 'stopped'; job: number; message: string };
