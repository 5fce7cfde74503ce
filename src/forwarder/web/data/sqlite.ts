// The dashboard's data from the embedded dataset (hermetic.db, opened read-only): usage through `usageReport`, a
// session's transcript page by page, its lineage and model changes, the slowest tool calls. The only SQL of web/.
import { HermeticError } from '../../../shared/errors.js';
import type { Db } from '../../../shared/sqlite.js';
import { ledgerZone, reportCondition, usageReport, type ReportRequest } from '../../report/index.js';
import type { SessionRow, SessionView, SlowCall, TranscriptMessage, UsageSource } from './source.js';

const SESSION_COLUMNS = ['store', 'session_id', 'title', 'profile', 'source', 'model', 'provider', 'parent_session_id', 'lineage_kind', 'lineage_root', 'is_sidechain', 'cwd', 'git_repo_root', 'git_branch', 'started_at', 'ended_at', 'end_reason', 'last_activity_at', 'message_count', 'tool_call_count', 'api_call_count', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'estimated_cost_usd', 'actual_cost_usd', 'cost_status', 'live_messages', 'archived_messages', 'inactive_messages', 'removed_from_store'];
const LINK_COLUMNS = ['store', 'session_id', 'title', 'lineage_kind', 'started_at', 'model'];

interface RawMessage {
  seq: number; role: string; kind: string; content: string | null; content_format: string | null; tool_calls: string | null;
  tool_name: string | null; tool_call_id: string | null; reasoning: string | null; model: string | null; finish_reason: string | null; created_at: number;
}

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

function message(r: RawMessage): TranscriptMessage {
  let calls: unknown[] = [];
  if (r.tool_calls) {
    try {
      const parsed = JSON.parse(r.tool_calls) as unknown;
      if (Array.isArray(parsed)) calls = parsed;
    } catch { /* the dataset holds valid JSON; nothing to show otherwise */ }
  }
  return { ...r, bookkeeping: r.kind !== 'message', tool_calls: calls.map(call) };
}

export function sqliteSource(db: Db): UsageSource {
  const pick = (cols: string[]) => cols.map((c) => `s.${c}`).join(', ');
  const byId = db.prepare(`SELECT ${pick(SESSION_COLUMNS)} FROM sessions s WHERE s.session_id = ? ORDER BY s.store LIMIT 2`);
  const byStoreId = db.prepare(`SELECT ${pick(SESSION_COLUMNS)} FROM sessions s WHERE s.store = ? AND s.session_id = ?`);
  const link = db.prepare(`SELECT ${pick(LINK_COLUMNS)} FROM sessions s WHERE s.store = ? AND s.session_id = ?`);
  const children = db.prepare(`SELECT ${pick(LINK_COLUMNS)} FROM sessions s WHERE s.store = ? AND s.parent_session_id = ? ORDER BY s.started_at, s.session_id`);
  const count = db.prepare('SELECT COUNT(*) FROM messages WHERE store = ? AND session_id = ?').pluck();
  const page = db.prepare('SELECT seq, role, kind, content, content_format, tool_calls, tool_name, tool_call_id, reasoning, model, finish_reason, created_at FROM messages WHERE store = ? AND session_id = ? AND seq >= ? ORDER BY seq LIMIT ?');
  const models = db.prepare(`SELECT seq, created_at, prev AS "from", model AS "to" FROM (
      SELECT seq, created_at, model, LAG(model) OVER (ORDER BY seq) AS prev FROM messages WHERE store = ? AND session_id = ? AND role = 'assistant' AND model IS NOT NULL)
    WHERE prev IS NOT NULL AND prev <> model ORDER BY seq`);
  return {
    zone: () => ledgerZone(db),
    report: (request) => usageReport(db, request),
    session(id, store, pageNo, pageSize) {
      return db.transaction((): SessionView | null => {
        let rows: SessionRow[];
        if (store !== null) rows = byStoreId.all(store, id) as SessionRow[];
        else {
          rows = byId.all(id) as SessionRow[];
          if (rows.length > 1) throw new HermeticError('HERMETIC_WEB_INVALID', `Two stores hold session "${id}"; name one with store=${rows.map((r) => encodeURIComponent(String(r.store))).join(' or store=')}.`);
        }
        const session = rows[0];
        if (!session) return null;
        const key = String(session.store);
        const total = count.get(key, id) as number;
        const pages = Math.max(1, Math.ceil(total / pageSize));
        if (pageNo > pages) throw new HermeticError('HERMETIC_WEB_INVALID', `Session "${id}" has ${pages} page${pages === 1 ? '' : 's'} of ${pageSize} messages; page ${pageNo} is past its end.`);
        const parent = session.parent_session_id === null ? null : ((link.get(key, session.parent_session_id) as SessionRow | undefined) ?? { session_id: session.parent_session_id, title: null, store: key, lineage_kind: null, started_at: null, model: null });
        return {
          session,
          parent,
          children: children.all(key, id) as SessionRow[],
          model_changes: models.all(key, id) as SessionView['model_changes'],
          usage: usageReport(db, { filter: { session: [id] }, by: ['model', 'task'] }),
          transcript: { page: pageNo, page_size: pageSize, pages, total, messages: (page.all(key, id, (pageNo - 1) * pageSize, pageSize) as RawMessage[]).map(message) },
        };
      }).deferred();
    },
    slowestCalls(request: ReportRequest, limit: number): SlowCall[] {
      const { tools, params } = reportCondition(request);
      // A call's time is from it to its first result. One pass over the calls and results, grouped by call id (parts
      // has no index by call id; a join would search a session's parts once per call), kept where the report counts
      // the session's tool calls (the window's cells and the filter).
      const window = [request.since != null ? 'x.called >= @since' : null, request.until != null ? 'x.called < @until' : null].filter(Boolean).join(' AND ') || '1';
      const callId = "CASE WHEN p.part_type = 'tool_call' THEN p.tool_call_id ELSE p.tool_result_for END";
      return db.prepare(`SELECT x.tool, x.session_id, x.called AS started_at, x.answered - x.called AS seconds FROM (
          SELECT p.store, p.session_id, MAX(CASE WHEN p.part_type = 'tool_call' THEN p.tool_name END) AS tool,
            MIN(CASE WHEN p.part_type = 'tool_call' THEN p.created_at END) AS called,
            MIN(CASE WHEN p.part_type = 'tool_result' THEN p.created_at END) AS answered
          FROM parts p WHERE p.part_type IN ('tool_call', 'tool_result') AND ${callId} IS NOT NULL
          GROUP BY p.store, p.session_id, ${callId}) x
        WHERE ${window} AND x.answered >= x.called
          AND EXISTS (SELECT 1 FROM tool_usage l WHERE l.store = x.store AND l.session_id = x.session_id AND ${tools})
        ORDER BY seconds DESC, x.called LIMIT ${Math.trunc(limit)}`).all(params) as SlowCall[];
    },
    close: () => db.close(),
  };
}
