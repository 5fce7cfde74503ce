// The session objects of spec sessions-api §10, as the exact bytes Hermes writes: S(id, title) for create/get/update
// answers (24 keys), L(id, title) for list rows (with last_active and preview), E(message, code) for errors.
import assert from 'node:assert/strict';
import { heldRequest, type Harness, type Reply } from './harness.js';

/** A float as Python's json.dumps writes it, e.g. py('1789169800.0'). */
export const py = (literal: string): { py: string } => ({ py: literal });
/** A Python literal for a JSON value (ints stay ints; floats given with py()). */
const lit = (v: unknown): string =>
  v && typeof v === 'object' && 'py' in v ? (v as { py: string }).py : v === undefined ? 'null' : JSON.stringify(v);

export interface SessionFields {
  [key: string]: unknown;
}

const BASE = (id: string, title: string | null, t: unknown): Array<[string, unknown]> => [
  ['id', id], ['source', 'api_server'], ['user_id', null], ['model', null], ['title', title], ['started_at', t],
  ['ended_at', null], ['end_reason', null], ['message_count', 0], ['tool_call_count', 0], ['input_tokens', 0],
  ['output_tokens', 0], ['cache_read_tokens', 0], ['cache_write_tokens', 0], ['reasoning_tokens', 0],
  ['estimated_cost_usd', null], ['actual_cost_usd', null], ['api_call_count', 0], ['parent_session_id', null],
];
const TAIL: Array<[string, unknown]> = [['pinned', false], ['archived', false], ['hidden', false], ['has_system_prompt', false], ['has_model_config', false]];

function render(pairs: Array<[string, unknown]>, over: SessionFields): string {
  return `{${pairs.map(([k, v]) => `"${k}": ${lit(k in over ? over[k] : v)}`).join(', ')}}`;
}

export const T = py('1789169800.0');

/** The 24-key object of a fresh API row (spec §10 `S`). */
export const S = (id: string, title: string | null, over: SessionFields = {}): string => render([...BASE(id, title, T), ...TAIL], over);

/** A list row (spec §10 `L`): `last_active` and `preview` after parent_session_id. */
export const L = (id: string, title: string | null, over: SessionFields = {}): string =>
  render([...BASE(id, title, T), ['last_active', T], ['preview', ''], ...TAIL], over);

export const wrapped = (session: string): string => `{"object": "hermes.session", "session": ${session}}`;
export const list = (rows: string[], limit = 50, offset = 0, hasMore = false): string =>
  `{"object": "list", "data": [${rows.join(', ')}], "limit": ${limit}, "offset": ${offset}, "has_more": ${hasMore}}`;

export const API_ID = /^api_\d+_[0-9a-f]{8}$/;

export async function createSession(h: Harness, body: string, path = '/api/sessions', headers: Record<string, string> = {}): Promise<string> {
  const reply = await h.request('POST', path, { body, headers });
  assert.equal(reply.status, 201, reply.text);
  return reply.json().session.id;
}

export function assertBytes(reply: Reply, status: number, body: string): void {
  assert.equal(reply.text, body);
  assert.equal(reply.status, status);
  assert.equal(reply.headers['content-type'], 'application/json; charset=utf-8');
}

/**
 * A chat's answer (POST /api/sessions/{id}/chat): a turn the agent starts is ended through the control plane with
 * `output`; an answer that comes first (a refusal) is returned as it is.
 */
export async function chatReply(h: Harness, id: string, body: string, output = 'ok'): Promise<Reply> {
  let answered = false;
  const reply = h.request('POST', `/api/sessions/${id}/chat`, { body }).finally(() => (answered = true));
  while (!answered) {
    const live = (await h.admin.runs()).runs.filter((r) => r.live);
    if (live.length === 1) {
      await h.admin.complete(live[0]!.run_id, { output });
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return reply;
}

/**
 * `method path` held past its checks, its body not sent, while session `id` (created with `create`) is deleted; gives
 * what sends the body and returns the answer. In process only (heldRequest); over HTTP the same code runs.
 */
export async function heldPastDelete(h: Harness, method: string, path: string, id: string, create: string): Promise<(body: string) => Promise<Response>> {
  await createSession(h, create);
  const held = heldRequest(h, method, path);
  await held.reached;
  assert.equal((await h.request('DELETE', `/api/sessions/${id}`)).status, 200);
  return held.send;
}
