// POST /api/sessions/{id}/fork recorded into a state.db as SessionDB writes it (decision 0141): end_session(source,
// 'branched') (the first reason wins; a run's end stamp gives way when the emulated source was open: decision 0147),
// create_session(fork, 'api_server', model, system_prompt, parent) with its parent's cwd and git columns NULL-filled,
// replace_messages(fork, get_messages(source)) over the file's own rows of the source (live rows, id order; new ids;
// the columns _message_row_params writes), then set_session_title.
import { displayIdentity } from '../../state-db/display-identity.js';
import type { StateDbWriter } from '../../state-db/writer/index.js';
import { BRANCHED, copiedContent, copiedDisplayMetadata, copiedTimestamp, copiedToolCalls } from '../sessions/fork.js';
import type { ForkRecord } from '../sessions/service.js';
import { scrubSurrogates } from '../../shared/python/index.js';
import { endAsHermes } from './session-end.js';

type StoredMessage = Record<string, unknown> & { role: string; timestamp: unknown };

const text = (v: unknown): string | null => (typeof v === 'string' ? scrubSurrogates(v) : null);
/** `_reasoning_json_text`: get_messages hands these back as stored TEXT, kept when truthy. */
const reasoningJson = (v: unknown): unknown => (v ? v : null);

/**
 * Writes the fork into the file. `profileName`: the profile _own_profile_name derives from the file's place in a
 * Hermes home, or null (a --state-db file outside one: the parent's is inherited, as _inherit_parent_session_metadata does).
 */
export function recordFork(w: StateDbWriter, fork: ForkRecord, profileName: string | null): void {
  w.tx(() => {
    endAsHermes(w, fork.sourceId, BRANCHED, fork.at, fork.sourceWasOpen);
    w.createSession({
      id: fork.id, source: 'api_server', model: fork.model, system_prompt: fork.system_prompt,
      parent_session_id: fork.sourceId, started_at: fork.at, profile_name: profileName ?? undefined,
    });
    const inherited = ['cwd', 'git_repo_root', 'git_branch', 'profile_name'].filter((c) => w.has('sessions', c));
    if (inherited.length > 0) {
      w.stmt(`UPDATE sessions SET ${inherited.map((c) => `${c} = COALESCE(sessions.${c}, (SELECT p.${c} FROM sessions p WHERE p.id = sessions.parent_session_id))`).join(', ')}
        WHERE id = ? AND parent_session_id IS NOT NULL`).run(fork.id);
    }
    const live = w.has('messages', 'active') ? ' AND active = 1' : '';
    const rows = w.stmt(`SELECT * FROM messages WHERE session_id = ?${live} ORDER BY id`).all(fork.sourceId) as StoredMessage[];
    w.stmt('DELETE FROM messages WHERE session_id = ?').run(fork.id);
    let nowTs = fork.at;
    let calls = 0;
    for (const row of rows) {
      const toolCalls = copiedToolCalls(typeof row.tool_calls === 'string' ? row.tool_calls : null);
      calls += toolCalls.count;
      const timestamp = copiedTimestamp(row.timestamp, nowTs);
      nowTs = Math.max(nowTs, timestamp) + 1e-6;
      const assistant = row.role === 'assistant';
      const content = copiedContent(typeof row.content === 'string' ? row.content : null);
      const toolName = text(row.tool_name);
      const out: Record<string, unknown> = {
        session_id: fork.id, role: row.role, content, tool_call_id: row.tool_call_id ?? null, tool_calls: toolCalls.text,
        tool_name: toolName, effect_disposition: row.effect_disposition ?? null, timestamp, token_count: row.token_count ?? null,
        finish_reason: row.finish_reason ?? null,
        reasoning: assistant ? text(row.reasoning) : null, reasoning_content: assistant ? text(row.reasoning_content) : null,
        reasoning_details: assistant ? reasoningJson(row.reasoning_details) : null,
        codex_reasoning_items: assistant ? reasoningJson(row.codex_reasoning_items) : null,
        codex_message_items: assistant ? reasoningJson(row.codex_message_items) : null,
        platform_message_id: row.platform_message_id || null, observed: row.observed ? 1 : 0,
        _compressed_summary: row._compressed_summary ? 1 : 0, active: 1, api_content: text(row.api_content),
        display_kind: text(row.display_kind),
        display_metadata: copiedDisplayMetadata(typeof row.display_metadata === 'string' ? row.display_metadata : null),
      };
      if (w.has('messages', 'display_identity')) {
        out.display_identity = displayIdentity({
          role: row.role, content: content === null || typeof content === 'string' ? content : String(content), timestamp,
          tool_call_id: text(row.tool_call_id), tool_calls: toolCalls.text, tool_name: toolName,
        });
      }
      w.insert('messages', out); // columns an older schema lacks are left out
    }
    w.stmt('UPDATE sessions SET message_count = ?, tool_call_count = ? WHERE id = ?').run(rows.length, calls, fork.id);
    if (fork.title !== null && !w.stmt('SELECT 1 FROM sessions WHERE title = ? AND id != ?').get(fork.title, fork.id)) {
      w.updateSession(fork.id, { title: fork.title, title_source: 'user' });
    }
  });
}
