// Handlers for the /api/sessions routes (spec sessions-api §3–§6): parse in Hermes's order, ask the sessions
// service, render. Auth has passed (the route table's 'key' rule: the plain API-key check, no room grants).
import { pyStrip, type PyDict } from '../../shared/python/index.js';
import type { HttpResponse } from '../http.js';
import { hermesErrors, ok, UnhandledHermesException, type Result } from '../runs/hermes-errors.js';
import { parseSessionKey } from '../runs/validate.js';
import { bodyObject } from '../sessions/index.js';
import type { SessionRow } from '../sessions/table.js';
import { errorResponse, jsonResponse, sessionKeyErrorResponse } from '../wire/responses.js';
import { namedFrame, SSE_HEADERS } from '../wire/sse.js';
import { DEFAULT_PROFILE } from './auth.js';
import { readJson } from './body.js';
import { drainingFor, type ApiContext } from './context.js';
import { parseQuery } from './query.js';
import { subscribe } from './run-events.js';

const profileOf = (ctx: ApiContext): string => ctx.profile ?? DEFAULT_PROFILE;
const render = (status: number) => (r: Result<Parameters<typeof jsonResponse>[1]>): HttpResponse =>
  r.ok ? jsonResponse(status, r.value) : errorResponse(r.error);

/** The session of the path (its 404 comes before the body is read, as Hermes's handlers look it up first), then the body. */
async function sessionAndBody(ctx: ApiContext): Promise<Result<{ session: SessionRow; body: PyDict }>> {
  const found = await ctx.deps.sessions.find(profileOf(ctx), ctx.params.session_id!);
  if (!found.ok) return found;
  const body = bodyObject(await readJson(ctx.req));
  return body.ok ? ok({ session: found.value, body: body.value }) : body;
}

/** GET /api/sessions */
export async function listSessions(ctx: ApiContext): Promise<HttpResponse> {
  return render(200)(await ctx.deps.sessions.list(profileOf(ctx), parseQuery(ctx.req.query)));
}

/** POST /api/sessions: the body first, then the store (spec §4.1). */
export async function createSession(ctx: ApiContext): Promise<HttpResponse> {
  const body = bodyObject(await readJson(ctx.req));
  if (!body.ok) return errorResponse(body.error);
  return render(201)(await ctx.deps.sessions.create(profileOf(ctx), body.value));
}

/** GET /api/sessions/{session_id} */
export async function getSession(ctx: ApiContext): Promise<HttpResponse> {
  return render(200)(await ctx.deps.sessions.get(profileOf(ctx), ctx.params.session_id!));
}

/** PATCH /api/sessions/{session_id}: 404 before the body is read. */
export async function patchSession(ctx: ApiContext): Promise<HttpResponse> {
  const asked = await sessionAndBody(ctx);
  if (!asked.ok) return errorResponse(asked.error);
  return render(200)(await ctx.deps.sessions.patch(profileOf(ctx), ctx.params.session_id!, asked.value.body, asked.value.session));
}

/** DELETE /api/sessions/{session_id} */
export async function deleteSession(ctx: ApiContext): Promise<HttpResponse> {
  const { sessions } = ctx.deps;
  const id = ctx.params.session_id!;
  const found = await sessions.find(profileOf(ctx), id);
  if (!found.ok) return errorResponse(found.error);
  return render(200)(await sessions.delete(profileOf(ctx), id));
}

/** GET /api/sessions/{session_id}/messages */
export async function sessionMessages(ctx: ApiContext): Promise<HttpResponse> {
  const { sessions } = ctx.deps;
  const id = ctx.params.session_id!;
  const found = await sessions.find(profileOf(ctx), id);
  if (!found.ok) return errorResponse(found.error);
  return render(200)(await sessions.messages(profileOf(ctx), id, parseQuery(ctx.req.query)));
}

/** POST /api/sessions/{session_id}/fork: the key only (no draining check), the source (404), the body, then the fork. */
export async function forkSession(ctx: ApiContext): Promise<HttpResponse> {
  const asked = await sessionAndBody(ctx);
  if (!asked.ok) return errorResponse(asked.error);
  return render(201)(await ctx.deps.sessions.fork(profileOf(ctx), asked.value.session, asked.value.body));
}

/**
 * POST /api/sessions/{session_id}/model (the Browser model lock, decision 0142): the key only (no draining check), the
 * session (404), the body, then the lock; answered 200 once it is in the store.
 */
export async function lockSessionModel(ctx: ApiContext): Promise<HttpResponse> {
  const asked = await sessionAndBody(ctx);
  if (!asked.ok) return errorResponse(asked.error);
  return render(200)(await ctx.deps.sessions.lockModel(asked.value.session, asked.value.body));
}

/** What both chat routes read before their turn: the session, its body and the validated session key. */
type ChatRequest = { session: SessionRow; body: PyDict; sessionKey: string | null };

/**
 * The chat routes' prelude, as Hermes's two handlers begin: admitted like an agent request (draining refuses it after
 * auth), the X-Hermes-Session-Key header, the session (404), then the body.
 */
async function chatRequest(ctx: ApiContext): Promise<{ ok: true; value: ChatRequest } | { ok: false; response: HttpResponse }> {
  const { gateway } = ctx.deps;
  const refuse = (response: HttpResponse) => ({ ok: false as const, response });
  if (drainingFor(ctx)) return refuse(errorResponse(hermesErrors.draining()));
  const rawKey = ctx.req.header('x-hermes-session-key');
  if (rawKey !== undefined && pyStrip(rawKey) !== '' && gateway.apiKey === null) {
    // Hermes reads the listener's own key here (`if not self._api_key`), not the profile's (decision 0096).
    return refuse(errorResponse(hermesErrors.sessionKeyNeedsAuth()));
  }
  const sessionKey = parseSessionKey(rawKey);
  if ('invalid' in sessionKey) return refuse(sessionKeyErrorResponse(sessionKey.invalid));
  const asked = await sessionAndBody(ctx);
  if (!asked.ok) return refuse(errorResponse(asked.error));
  return { ok: true, value: { ...asked.value, sessionKey: sessionKey.key || null } };
}

/** X-Hermes-Session-Id, then X-Hermes-Session-Key when one was given. */
const sessionHeaders = (id: string, key: string | null): Array<[string, string]> =>
  key ? [['X-Hermes-Session-Id', id], ['X-Hermes-Session-Key', key]] : [['X-Hermes-Session-Id', id]];

/** POST /api/sessions/{session_id}/chat: the chat's prelude, then one agent turn; answered when the agent returns. */
export async function sessionChat(ctx: ApiContext): Promise<HttpResponse> {
  const asked = await chatRequest(ctx);
  if (!asked.ok) return asked.response;
  const { session, body, sessionKey } = asked.value;
  const played = await ctx.deps.sessions.chat(session, body, (name) => ctx.req.header(name), sessionKey);
  if (!played.ok) return errorResponse(played.error);
  const outcome = played.value;
  if (outcome.kind === 'dropped') return { status: 0, headers: [], body: null, drop: true };
  // An exception escaping the agent escapes the handler too: aiohttp's 500 page (api/index.ts).
  if (outcome.kind === 'raised') throw new UnhandledHermesException('the agent raised during a session chat');
  return jsonResponse(200, outcome.body, sessionHeaders(session.id, sessionKey));
}

/**
 * POST /api/sessions/{session_id}/chat/stream (decision 0145): the chat's prelude and checks, then `200
 * text/event-stream` at once; the turn's named events are written as they come (keep-alives after 30 s of silence),
 * and the body ends after `done`. A client gone mid-turn interrupts the agent.
 */
export async function sessionChatStream(ctx: ApiContext): Promise<HttpResponse> {
  const asked = await chatRequest(ctx);
  if (!asked.ok) return asked.response;
  const { session, body, sessionKey } = asked.value;
  const { sessions, registry, clock } = ctx.deps;
  const started = await sessions.chatStream(session, body, (name) => ctx.req.header(name), sessionKey, ctx.scope);
  if (!started.ok) return errorResponse(started.error);
  const turn = started.value;
  turn.buffer.subscribers++;
  return {
    status: 200,
    headers: [...SSE_HEADERS, ...sessionHeaders(session.id, sessionKey)],
    body: null,
    stream: (sink) =>
      subscribe(turn.runId, turn.buffer, sink, clock, registry, {
        frame: (event, name) => namedFrame(name ?? 'message', event),
        endFrame: null,
        exited: () => {},
        departed: () => turn.departed(),
        utf8: true,
      }),
  };
}
