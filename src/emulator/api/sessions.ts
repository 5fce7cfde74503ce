// Handlers for the /api/sessions routes (spec sessions-api §3–§6): parse in Hermes's order, ask the sessions
// service, render. Auth has passed (the route table's 'key' rule: the plain API-key check, no room grants).
import { pyStrip } from '../../shared/python/index.js';
import type { HttpResponse } from '../http.js';
import { hermesErrors, UnhandledHermesException, type Result } from '../runs/hermes-errors.js';
import { parseSessionKey } from '../runs/validate.js';
import { bodyObject } from '../sessions/index.js';
import { errorResponse, jsonResponse, sessionKeyErrorResponse } from '../wire/responses.js';
import { DEFAULT_PROFILE } from './auth.js';
import { readJson } from './body.js';
import { drainingFor, type ApiContext } from './context.js';
import { parseQuery } from './query.js';

const profileOf = (ctx: ApiContext): string => ctx.profile ?? DEFAULT_PROFILE;
const render = (status: number) => (r: Result<Parameters<typeof jsonResponse>[1]>): HttpResponse =>
  r.ok ? jsonResponse(status, r.value) : errorResponse(r.error);

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
  const { sessions } = ctx.deps;
  const id = ctx.params.session_id!;
  const found = await sessions.find(profileOf(ctx), id);
  if (!found.ok) return errorResponse(found.error);
  const body = bodyObject(await readJson(ctx.req));
  if (!body.ok) return errorResponse(body.error);
  return render(200)(await sessions.patch(profileOf(ctx), id, body.value, found.value));
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
  const { sessions } = ctx.deps;
  const found = await sessions.find(profileOf(ctx), ctx.params.session_id!);
  if (!found.ok) return errorResponse(found.error);
  const body = bodyObject(await readJson(ctx.req));
  if (!body.ok) return errorResponse(body.error);
  return render(201)(await sessions.fork(profileOf(ctx), found.value, body.value));
}

/**
 * POST /api/sessions/{session_id}/model (the Browser model lock, decision 0142): the key only (no draining check), the
 * session (404), the body, then the lock; answered 200 once it is in the store.
 */
export async function lockSessionModel(ctx: ApiContext): Promise<HttpResponse> {
  const { sessions } = ctx.deps;
  const found = await sessions.find(profileOf(ctx), ctx.params.session_id!);
  if (!found.ok) return errorResponse(found.error);
  const body = bodyObject(await readJson(ctx.req));
  if (!body.ok) return errorResponse(body.error);
  return render(200)(await sessions.lockModel(found.value, body.value));
}

/**
 * POST /api/sessions/{session_id}/chat: admitted like an agent request (draining refuses it after auth), the
 * X-Hermes-Session-Key header, the session (404), the body, then one agent turn; answered when the agent returns.
 */
export async function sessionChat(ctx: ApiContext): Promise<HttpResponse> {
  const { sessions, gateway } = ctx.deps;
  if (drainingFor(ctx)) return errorResponse(hermesErrors.draining());
  const rawKey = ctx.req.header('x-hermes-session-key');
  if (rawKey !== undefined && pyStrip(rawKey) !== '' && gateway.apiKey === null) {
    // Hermes reads the listener's own key here (`if not self._api_key`), not the profile's (decision 0096).
    return errorResponse(hermesErrors.sessionKeyNeedsAuth());
  }
  const sessionKey = parseSessionKey(rawKey);
  if ('invalid' in sessionKey) return sessionKeyErrorResponse(sessionKey.invalid);
  const found = await sessions.find(profileOf(ctx), ctx.params.session_id!);
  if (!found.ok) return errorResponse(found.error);
  const body = bodyObject(await readJson(ctx.req));
  if (!body.ok) return errorResponse(body.error);
  const played = await sessions.chat(found.value, body.value, (name) => ctx.req.header(name), sessionKey.key || null);
  if (!played.ok) return errorResponse(played.error);
  const outcome = played.value;
  if (outcome.kind === 'dropped') return { status: 0, headers: [], body: null, drop: true };
  // An exception escaping the agent escapes the handler too: aiohttp's 500 page (api/index.ts).
  if (outcome.kind === 'raised') throw new UnhandledHermesException('the agent raised during a session chat');
  const headers: Array<[string, string]> = [['X-Hermes-Session-Id', found.value.id]];
  if (sessionKey.key) headers.push(['X-Hermes-Session-Key', sessionKey.key]);
  return jsonResponse(200, outcome.body, headers);
}
