// The run lifecycle as a transition table (spec runs-api §7.2): each trigger names the statuses it may fire from,
// the status it leads to and the last_event it records. Hermes's quirks are rows here, not scattered ifs.

export type RunStatus =
  | 'queued'
  | 'running'
  | 'waiting_for_approval'
  | 'stopping'
  | 'completed'
  | 'failed'
  | 'cancelled'
  | 'interrupted';

export const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled', 'interrupted']);
export const NON_TERMINAL: readonly RunStatus[] = ['queued', 'running', 'waiting_for_approval', 'stopping'];
/** Terminal statuses the 1-hour memory sweep may drop; `interrupted` stays until the process exits (§12.5). */
export const SWEEPABLE: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

export const isTerminal = (status: unknown): boolean => typeof status === 'string' && TERMINAL.has(status);

interface Transition {
  from: readonly RunStatus[];
  /** 'same' keeps the current status (progress events). */
  to: RunStatus | 'same';
  /** last_event recorded; 'event' means the progress event's own name; null records none. */
  lastEvent: string | 'event' | null;
  /** A plain dict.update rather than Hermes's status setter: `approval` survives and the row is always written. */
  plain?: boolean;
}

export const TRANSITIONS = {
  /** The background task starts; also from `stopping` when a stop arrived while queued (§7.2 row 3). */
  start: { from: ['queued', 'stopping'], to: 'running', lastEvent: null },
  /** Progress events (tool.*, reasoning.available, subagent.*) keep the status, even while parked. */
  progress: { from: NON_TERMINAL, to: 'same', lastEvent: 'event' },
  approvalRequest: { from: ['running', 'waiting_for_approval', 'stopping'], to: 'waiting_for_approval', lastEvent: 'approval.request' },
  /** Quirk: forces `running` unconditionally, even while `stopping` (§7.2). */
  approvalResponded: { from: NON_TERMINAL, to: 'running', lastEvent: 'approval.responded' },
  /**
   * Quirk: steer is gated on `running` before its body is read, then forces `running` whatever the run became while
   * the body arrived — parked on an approval, stopping, even ended (decision 0177).
   */
  steered: { from: [...NON_TERMINAL, 'completed', 'failed', 'cancelled', 'interrupted'], to: 'running', lastEvent: 'run.steered' },
  stop: { from: NON_TERMINAL, to: 'stopping', lastEvent: 'run.stopping' },
  /** Completion can win the race against an accepted stop (§11). */
  complete: { from: NON_TERMINAL, to: 'completed', lastEvent: 'run.completed' },
  fail: { from: NON_TERMINAL, to: 'failed', lastEvent: 'run.failed' },
  /** The agent returned interrupted while the run was marked stopping, or the task itself was cancelled. */
  cancel: { from: NON_TERMINAL, to: 'cancelled', lastEvent: 'run.cancelled' },
  /** A durable snapshot whose owner process is gone (§12.6). */
  interrupt: { from: NON_TERMINAL, to: 'interrupted', lastEvent: 'run.interrupted', plain: true },
} as const satisfies Record<string, Transition>;

export type Trigger = keyof typeof TRANSITIONS;

/** The status `trigger` leads to from `current`, or null when the table has no such row. */
export function nextStatus(current: string, trigger: Trigger): RunStatus | null {
  const row: Transition = TRANSITIONS[trigger];
  if (!(row.from as readonly string[]).includes(current)) return null;
  return row.to === 'same' ? (current as RunStatus) : row.to;
}
