// One session's message rows → its history as Hermes shows it: the live transcript it replays (rows that are active,
// or predate the `active` column) and the rows in-place compaction summarized away, classified by kind, with logical
// ids that stay the same across compaction generations (spec forwarding §6.1 items 7–8, §7 "Normalizer"). Rows can be normalized in runs (decision 0032): the state after
// one run (RowsCarry) is where the next run starts, so the rows appended to a session are normalized alone.
import { decodeContent } from './content.js';
import { Lanes } from './hash.js';
import { reasoningOf, replyTextOf } from './reasoning.js';
import { messageAttributes } from './extras.js';
import { MESSAGE_TEXT_COLUMNS, textColumns } from './text.js';
import { validEpoch } from './time.js';
import { decodeToolCalls } from './tool-calls.js';
import type { Kind, NormalMessage, Row, RowIssue } from './types.js';
import { numOrNull, str } from './values.js';

const DISPLAY_KINDS = new Set<Kind>(['hidden', 'auto_continue', 'steer', 'model_switch', 'failed_turn', 'process_complete', 'async_delegation_complete']);


/** The row's kind (bookkeeping rows are kept, classified, never mistaken for conversation). */
export function kindOf(row: Row): Kind {
  if (row.role === 'session_meta') return 'session_meta';
  if (numOrNull(row._compressed_summary) === 1) return 'compaction_summary';
  const display = str(row.display_kind);
  if (display) return DISPLAY_KINDS.has(display as Kind) ? (display as Kind) : 'display_other';
  if (row.role === 'system') return 'system';
  return 'message';
}

/** Live: part of the transcript Hermes replays. `active` NULL (an old reconciler quirk) or absent counts as live. */
export function isLive(row: Row): boolean {
  const active = row.active;
  return active === null || active === undefined || active === 1 || active === 1n;
}

/** Hermes's display identity over the fields it hashes: the same logical message across generations. */
export function identityKey(row: Row): string {
  return JSON.stringify([row.role, row.content, row.timestamp, row.tool_call_id, row.tool_calls, row.tool_name]);
}

/**
 * A row's logical id: its identity's first row over every generation, or the row display_order points back to.
 * Hermes moves display_order to the clone once compaction hides the carried original (active 0, compacted 0): the
 * first row of the identity keeps the logical id, and so the part ids, stable. Two rows of the history never share a
 * logical id (ids of parts hang on it): a second one keeps its own row id. `used` collects the ids given.
 */
function logicalIdOf(id: number, order: number | null, first: number, used: Set<number>): number {
  let logicalId = order !== null && order > 0 ? Math.min(order, first) : first;
  if (used.has(logicalId)) logicalId = id;
  used.add(logicalId);
  return logicalId;
}

/**
 * What normalizing a session needs from all its rows when it is normalized in chunks (decision 0055): the logical id
 * of every row its history shows (those that are not the row's own id), and the archived rows a live clone carries
 * on. With it, any run of the session's rows normalizes as it would inside one run of them all.
 */
export interface WholeSession {
  logical: Map<number, number>;
  carried: Set<number>;
}

/**
 * The WholeSession of a session from all its rows, given in id order in any number of runs. A run may be let go once
 * seen: of each row only its id, display order, state and a 64-bit hash of its identity are kept (33 bytes), and of
 * the answer only the logical ids that are not the row's own id.
 */
export function wholeSessionOf(runs: Iterable<readonly Row[]>): WholeSession {
  // Per run: [id, display order (NaN: none), identity hash lane a, lane b] per row, and the row's state (0: live,
  // 1: compacted away, 2: rewound, undone or superseded).
  const seen: { values: Float64Array; states: Uint8Array }[] = [];
  let archived = false;
  for (const rows of runs) {
    const values = new Float64Array(rows.length * 4);
    const states = new Uint8Array(rows.length);
    rows.forEach((raw, i) => {
      const lanes = new Lanes();
      lanes.feed(identityKey(raw));
      values[i * 4] = numOrNull(raw.id) ?? 0;
      values[i * 4 + 1] = numOrNull(raw.display_order) ?? Number.NaN;
      values[i * 4 + 2] = lanes.a;
      values[i * 4 + 3] = lanes.b;
      states[i] = isLive(raw) ? 0 : numOrNull(raw.compacted) === 1 ? 1 : 2;
      if (states[i] !== 0) archived = true;
    });
    seen.push({ values, states });
  }
  const keyAt = (v: Float64Array, i: number) => `${v[i * 4 + 2]}:${v[i * 4 + 3]}`;
  const liveKeys = new Set<string>();
  if (archived) for (const { values, states } of seen) states.forEach((st, i) => { if (st === 0) liveKeys.add(keyAt(values, i)); });
  const firstOf = new Map<string, number>();
  const used = new Set<number>();
  const whole: WholeSession = { logical: new Map(), carried: new Set() };
  for (const { values, states } of seen) {
    for (let i = 0; i < states.length; i++) {
      const id = values[i * 4]!;
      const order = values[i * 4 + 1]!;
      const key = archived ? keyAt(values, i) : '';
      if (archived && !firstOf.has(key)) firstOf.set(key, id);
      const carried = states[i] !== 0 && liveKeys.has(key);
      if (carried) whole.carried.add(id);
      if (states[i] === 2 || carried) continue;
      const logicalId = logicalIdOf(id, Number.isNaN(order) ? null : order, archived ? firstOf.get(key)! : id, used);
      if (logicalId !== id) whole.logical.set(id, logicalId);
    }
  }
  return whole;
}

/**
 * Where normalizing stopped: what the rows after the last one normalized need from those before it. All of it is a
 * function of the rows alone, so normalizing in runs gives what one run gives.
 */
export interface RowsCarry {
  /** Rows normalized so far (every state), and those archived by compaction or rewound (active 0). */
  rows: number;
  compacted: number;
  inactive: number;
  /** Sum of the ids of the rows with active 0: with `inactive` and `compacted`, the prefix's mark (reader/store.ts). */
  inactiveIds: number;
  maxMessageId: number;
  /** The last plausible time seen (a garbage time takes it), or null. */
  prevTime: number | null;
  /** Rows rewound since the last live row: the next live row says so. */
  rewoundSince: number;
}

export interface NormalizedSession {
  /** The rows of the history Hermes shows, in id order: live ones, and those compacted away (`compacted` says which). */
  live: NormalMessage[];
  issues: RowIssue[];
  /** Rows archived by in-place compaction (active 0, compacted 1). */
  compacted: number;
  /** Rows rewound, undone or superseded (active 0, compacted 0). */
  inactive: number;
  maxMessageId: number;
  carry: RowsCarry;
  /**
   * Continuing a carry only: a live row whose logical id is older than the rows normalized here (display_order points
   * back into the prefix), or a row that is not live. Then the run's answer may depend on the prefix's rows, and the
   * caller normalizes the session whole instead.
   */
  needsPrefix: boolean;
}

/** The carry before any row: the session's start is the first "previous" time. */
export function startCarry(startedAt: number): RowsCarry {
  return { rows: 0, compacted: 0, inactive: 0, inactiveIds: 0, maxMessageId: 0, prevTime: validEpoch(startedAt) ? startedAt : null, rewoundSince: 0 };
}

/**
 * Normalizes every row of one session (all generations, in id order) into its live transcript; or, given `from`, the
 * rows after the ones `from` was carried out of. A continued run is exact when none of its rows repeats the display
 * identity of a prefix row (the caller checks that in the store when the prefix has archived rows) and `needsPrefix`
 * comes back false.
 * @example normalizeMessages(rows, 1780000000).live.map((m) => m.role)
 */
export function normalizeMessages(rows: readonly Row[], startedAt: number, from?: RowsCarry, whole?: WholeSession): NormalizedSession {
  const carry: RowsCarry = { ...(from ?? startCarry(startedAt)) };
  const issues: RowIssue[] = [];
  const firstOf = new Map<string, number>();
  const live: NormalMessage[] = [];
  const usedLogical = new Set<number>();
  let needsPrefix = false;
  // A row archived with active 0, compacted 0 is a rewind, undo or replace — unless a live clone carries it on (the
  // verbatim tail of an in-place compaction), which is not a rewind.
  // Identities only matter when some row is archived (a clone then maps back to its original); most sessions have
  // none, and hashing every row's content would be most of the normalizer's time. Given the whole session's
  // identities (a session read in chunks), the rows here need none of their own.
  const archived = !whole && (carry.inactive + carry.compacted > 0 || rows.some((r) => !isLive(r)));
  const liveKeys = new Set<string>();
  if (archived) for (const row of rows) if (isLive(row)) liveKeys.add(identityKey(row));
  for (const raw of rows) {
    const id = numOrNull(raw.id) ?? 0;
    if (id > carry.maxMessageId) carry.maxMessageId = id;
    carry.rows++;
    const key = archived ? identityKey(raw) : '';
    if (archived && !firstOf.has(key)) firstOf.set(key, id);
    let createdAt = raw.timestamp as number;
    let repaired = false;
    if (!validEpoch(createdAt)) {
      const fallback = carry.prevTime === null ? 'no earlier message nor the session start has one, so 0 (1970-01-01) is used' : "the previous message's time (or the session's start) is used";
      issues.push({ messageId: id, field: 'timestamp', problem: `timestamp ${String(raw.timestamp)} is not a plausible time; ${fallback}` });
      createdAt = carry.prevTime ?? 0;
      repaired = true;
    } else carry.prevTime = createdAt;
    let compacted = false;
    if (!isLive(raw)) {
      carry.inactiveIds += id;
      if (from && !whole) needsPrefix = true;
      const carried = whole ? whole.carried.has(id) : liveKeys.has(key);
      if (numOrNull(raw.compacted) === 1) {
        carry.compacted++;
        // Still in the history Hermes shows, unless a live clone carries it on (that clone stands for it).
        if (carried) continue;
        compacted = true;
      } else {
        carry.inactive++;
        if (!carried) carry.rewoundSince++;
        continue;
      }
    }
    const { row, problems } = textColumns(raw, MESSAGE_TEXT_COLUMNS);
    for (const p of problems) issues.push({ messageId: id, ...p });
    const content = decodeContent(row.content);
    if (content.problem) issues.push({ messageId: id, field: 'content', problem: content.problem });
    const calls = decodeToolCalls(row.tool_calls);
    if (calls.problem) issues.push({ messageId: id, field: 'tool_calls', problem: calls.problem });
    const reasoningProblems: string[] = [];
    const reasoning = reasoningOf(row, reasoningProblems);
    for (const problem of reasoningProblems) issues.push({ messageId: id, field: 'reasoning_details', problem });
    let logicalId: number;
    if (whole) logicalId = whole.logical.get(id) ?? id;
    else {
      logicalId = logicalIdOf(id, numOrNull(row.display_order), archived ? firstOf.get(key)! : id, usedLogical);
      if (from && logicalId <= from.maxMessageId) needsPrefix = true;
    }
    live.push({
      id,
      logicalId,
      role: str(row.role) ?? 'unknown',
      kind: kindOf(row),
      content: content.content,
      contentFormat: content.format,
      blocks: content.blocks,
      toolCalls: calls.calls,
      toolCallsJson: calls.json,
      toolName: str(row.tool_name),
      toolCallId: str(row.tool_call_id),
      reasoning,
      finishReason: str(row.finish_reason),
      tokenCount: numOrNull(row.token_count),
      createdAt,
      timestampRepaired: repaired,
      replyText: content.blocks.some((b) => b.text) ? null : replyTextOf(row),
      displayKind: str(row.display_kind),
      attributes: messageAttributes(row),
      afterRewind: carry.rewoundSince,
      compacted,
    });
    carry.rewoundSince = 0;
  }
  return { live, issues, compacted: carry.compacted, inactive: carry.inactive, maxMessageId: carry.maxMessageId, carry, needsPrefix };
}
