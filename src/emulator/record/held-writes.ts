// How much the agent's writes may hold in memory while another connection keeps a store locked (decision 0148): the
// emulator's own sessions (sessions/recorder.ts) and a --state-db file (record/state-db.ts) both keep such writes in
// order and try them again, and both stop taking more past these bounds, saying so, as Hermes gives a write up once
// its retries run out. Without them a lock held for minutes grew the process by every heartbeat, steer and turn.
import type { MessageInput } from '../../state-db/writer/types.js';

/** Writes that may wait for a lock at most. */
export const MAX_HELD_WRITES = 10_000;
/** Characters of text that may wait for a lock at most (64 × what the sessions commit in one go). */
export const MAX_HELD_TEXT = 64 * 1_048_576;
/** What a write or a row is counted as beside its text. */
export const ROW_TEXT = 64;

/** The characters of the strings in `v` (a message's structured content, its tool calls), walked once. */
function jsonText(v: unknown): number {
  if (typeof v === 'string') return v.length;
  if (v === null || typeof v !== 'object') return 1;
  let n = 2;
  if (Array.isArray(v)) for (const x of v) n += jsonText(x) + 1;
  else for (const k in v) n += k.length + jsonText((v as Record<string, unknown>)[k]) + 2;
  return n;
}

/** The characters of text messages hold (every string field; structured values walked), and a little per row. */
export function messagesText(messages: readonly MessageInput[]): number {
  let n = ROW_TEXT;
  for (const m of messages) {
    n += ROW_TEXT;
    for (const k in m) n += jsonText((m as unknown as Record<string, unknown>)[k]);
  }
  return n;
}

/** The two bounds (tests give smaller ones). */
export interface HeldBounds {
  readonly writes: number;
  readonly text: number;
}
export const HELD_BOUNDS: HeldBounds = { writes: MAX_HELD_WRITES, text: MAX_HELD_TEXT };

/** Whether `count` more writes holding `text` fit beside `held` writes holding `heldText`. */
export function fitsHeld(held: number, heldText: number, count: number, text: number, bounds = HELD_BOUNDS): boolean {
  return held + count <= bounds.writes && heldText + text <= bounds.text;
}

/** The sentence said when writes are dropped for these bounds. */
export function heldFullText(held: number, heldText: number, bounds = HELD_BOUNDS): string {
  const mib = (n: number) => `${Number((n / 1_048_576).toFixed(1))} MiB`;
  return `another connection has held the lock while ${held} writes (${mib(heldText)} of text) wait; later writes are dropped`
    + ` until it is released (at most ${bounds.writes} writes or ${mib(bounds.text)} wait)`;
}

/** The sentence said once the lock is free, when writes were dropped meanwhile. */
export const heldDroppedText = (dropped: number): string => `${dropped} writes were dropped while another connection held the lock`;
