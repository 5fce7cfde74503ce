// What both sources (sqlite.ts, postgres.ts) share: the columns a session shows, a transcript row as the page gets it,
// and the slowest-calls query (written once, with @name parameters each dialect binds).
import { HermeticError } from '../../../shared/errors.js';
import type { Attributes, DelegationRow, SessionDetail, SessionRow, SlowCall, TranscriptMessage } from './source.js';
import { callIdSql } from '../../sinks/sqlite/tool-calls.js';

export const SESSION_COLUMNS = ['store', 'session_id', 'title', 'profile', 'source', 'model', 'provider', 'parent_session_id', 'lineage_kind', 'lineage_root', 'is_sidechain', 'cwd', 'git_repo_root', 'git_branch', 'started_at', 'ended_at', 'end_reason', 'last_activity_at', 'message_count', 'tool_call_count', 'api_call_count', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'estimated_cost_usd', 'actual_cost_usd', 'cost_status', 'live_messages', 'archived_messages', 'inactive_messages', 'removed_from_store'];
export const LINK_COLUMNS = ['store', 'session_id', 'title', 'lineage_kind', 'started_at', 'model'];
/** A delegation as the page shows it (`DelegationRow`). */
export const DELEGATION_COLUMNS: readonly (keyof DelegationRow)[] = ['delegation_id', 'state', 'delivery_state', 'delivery_attempts', 'dispatched_at', 'completed_at', 'delivered_at', 'duration_seconds', 'goal', 'summary', 'error', 'removed_from_store'];

/**
 * A session's delegations, by dispatch time (unknown times last) then id; `@store` and `@session` bound by each dialect,
 * `machine` adds the fleet's `@machine`, `collate` the id's byte order where the default collation is not (PostgreSQL).
 */
export function delegationsSql(machine = false, collate = ''): string {
  return `SELECT ${DELEGATION_COLUMNS.map((c) => `d.${c}`).join(', ')} FROM delegations d
    WHERE ${machine ? 'd.machine_id = @machine AND ' : ''}d.store = @store AND d.parent_session_id = @session
    ORDER BY d.dispatched_at IS NULL, d.dispatched_at, d.delegation_id${collate}`;
}

export interface RawMessage {
  seq: number; role: string; kind: string; content: string | null; content_format: string | null; tool_calls: string | null;
  tool_name: string | null; tool_call_id: string | null; reasoning: string | null; model: string | null; finish_reason: string | null; created_at: number;
  compacted: number | null;
  attributes: string | null;
}

/** An `attributes` JSON text parsed: an object, or null (none set, or not an object: nothing to show). */
export function attributes(text: unknown): Attributes {
  if (typeof text !== 'string') return null;
  try {
    const v = JSON.parse(text) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Attributes) : null;
  } catch {
    return null; // the dataset holds valid JSON
  }
}

/** The session's row as the page gets it: `attributes` parsed. */
export const sessionDetail = (row: SessionRow): SessionDetail => ({ ...row, attributes: attributes(row.attributes) });

/** A tool call as Hermes stored it (OpenAI's nested form or a flattened one), its arguments parsed when they are JSON. */
function call(raw: unknown): TranscriptMessage['tool_calls'][number] {
  const c = (raw ?? {}) as Record<string, unknown>;
  const fn = (c.function ?? {}) as Record<string, unknown>;
  let args: unknown = fn.arguments ?? c.arguments ?? null;
  if (typeof args === 'string') {
    try { args = JSON.parse(args); } catch { /* shown as the text it is */ }
  }
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return { id: text(c.id) ?? text(c.call_id), name: text(fn.name) ?? text(c.name), arguments: args };
}

export function message(r: RawMessage): TranscriptMessage {
  let calls: unknown[] = [];
  if (r.tool_calls) {
    try {
      const parsed = JSON.parse(r.tool_calls) as unknown;
      if (Array.isArray(parsed)) calls = parsed;
    } catch { /* the dataset holds valid JSON; nothing to show otherwise */ }
  }
  return { ...r, bookkeeping: r.kind !== 'message', compacted: r.compacted === 1, attributes: attributes(r.attributes), tool_calls: calls.map(call) };
}

export const MESSAGE_COLUMNS = 'seq, role, kind, content, content_format, tool_calls, tool_name, tool_call_id, reasoning, model, finish_reason, created_at';

/** The pages of a session's transcript; a page past its end is refused (HERMETIC_WEB_INVALID). */
export function transcriptPages(id: string, total: number, pageNo: number, pageSize: number): number {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  if (pageNo > pages) throw new HermeticError('HERMETIC_WEB_INVALID', `Session "${id}" has ${pages} page${pages === 1 ? '' : 's'} of ${pageSize} messages; page ${pageNo} is past its end.`);
  return pages;
}

/** The refusal of an id two stores hold: it names both, to be picked with store=. */
export const twoStores = (id: string, stores: readonly unknown[]) =>
  new HermeticError('HERMETIC_WEB_INVALID', `Two stores hold session "${id}"; name one with store=${stores.map((s) => encodeURIComponent(String(s))).join(' or store=')}.`);

/** A parent the dataset does not hold (forgotten, or in a store not read): its id, nothing else. */
export const unknownParent = (id: unknown, store: string): SessionRow => ({ session_id: id as string, title: null, store, lineage_kind: null, started_at: null, model: null });

/**
 * The slowest tool calls: a call's time is from it to its first result. The sessions come first, from `tool_usage`
 * where the report counts their tool calls (`tools`: the window's cells and the filter); then only their tool parts
 * are read, by the parts' key, grouped by call id (parts has no index by call id; a join would search a session's
 * parts once per call). Ties go by call time, then store, session and call id, so every way of reading them agrees.
 * `machine` adds the fleet's machine to every key. The plain query: an SQLite dataset reads `tool_calls` instead
 * (`slowestKeptSql`), which keeps the same groups.
 */
export function slowestSql(request: { since?: number | null; until?: number | null }, tools: string, limit: number, machine = false): string {
  const window = [request.since != null ? 'x.called >= @since' : null, request.until != null ? 'x.called < @until' : null].filter(Boolean).join(' AND ') || '1 = 1';
  // The call id as the kept tool calls group by it (one rule, so the two ways of reading agree).
  const callId = callIdSql('p');
  const m = machine ? 'p.machine_id, ' : '';
  return `SELECT x.tool, x.session_id, x.store, ${machine ? 'x.machine_id, ' : ''}x.called AS started_at, x.answered - x.called AS seconds FROM (
      SELECT ${m}p.store, p.session_id, ${callId} AS call_id, MAX(CASE WHEN p.part_type = 'tool_call' THEN p.tool_name END) AS tool,
        MIN(CASE WHEN p.part_type = 'tool_call' THEN p.created_at END) AS called,
        MIN(CASE WHEN p.part_type = 'tool_result' THEN p.created_at END) AS answered
      FROM (SELECT DISTINCT ${machine ? 'l.machine_id, ' : ''}l.store, l.session_id FROM tool_usage l WHERE ${tools}) s
      JOIN parts p ON ${machine ? 'p.machine_id = s.machine_id AND ' : ''}p.store = s.store AND p.session_id = s.session_id
      WHERE p.part_type IN ('tool_call', 'tool_result') AND ${callId} IS NOT NULL
      GROUP BY ${m}p.store, p.session_id, ${callId}) x
    WHERE ${window} AND x.answered >= x.called
    ORDER BY seconds DESC, x.called, ${machine ? 'x.machine_id, ' : ''}x.store, x.session_id, x.call_id LIMIT ${Math.trunc(limit)}`;
}

/**
 * The slowest tool calls read from `tool_calls` (an SQLite dataset of version 11 on; decision 0069): the same rows in
 * the same order as `slowestSql`, the window's sessions first, then their calls by key, one row each instead of
 * every tool part grouped.
 */
export function slowestKeptSql(request: { since?: number | null; until?: number | null }, tools: string, limit: number): string {
  const window = [request.since != null ? 'c.called >= @since' : null, request.until != null ? 'c.called < @until' : null].filter(Boolean).join(' AND ') || '1 = 1';
  return `SELECT c.tool, c.session_id, c.store, c.called AS started_at, c.answered - c.called AS seconds
    FROM (SELECT DISTINCT l.store, l.session_id FROM tool_usage l WHERE ${tools}) s
      JOIN tool_calls c ON c.store = s.store AND c.session_id = s.session_id
    WHERE ${window} AND c.answered >= c.called
    ORDER BY seconds DESC, c.called, c.store, c.session_id, c.call_id LIMIT ${Math.trunc(limit)}`;
}

export type { SlowCall };
