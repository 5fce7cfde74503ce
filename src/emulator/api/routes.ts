// THE route table of the emulated Hermes surface, as data: method, path pattern, operation, auth rule. The handler of
// each operation is bound in api/index.ts, so what names or counts requests (the journal, faults, metrics) reads the
// table without loading a handler. The same routes are served under /p/{profile}/ (spec runs-api §1.1). Anything
// else answers as aiohttp's router does.
import { utf8SequenceLength } from '../../shared/python/index.js';
import { EMULATED_SESSION_ENDPOINTS, KEY_FIRST, UNEMULATED_ROUTES, type UnemulatedGuard } from './endpoints.js';

/** 'key': API key only; 'key-or-room': API key or a HermesRoom grant; 'none': open. */
export type AuthRule = 'key' | 'key-or-room' | 'none';

export interface Route {
  readonly method: string;
  readonly path: string;
  /** What the request does, as the request journal, faults and metrics name it. */
  readonly operation: Operation;
  readonly auth: AuthRule;
  /**
   * On the routes the emulator does not reproduce (operation 'unsupported'): how Hermes's handler begins
   * (endpoints.ts). The key check is the `auth` rule; the 'unsupported' handler answers the rest of the guard (the
   * draining 503 of an agent turn, the browser-control flag's 404, the room-grant and fire-token refusals, the platform
   * checks) before its 501. The emulated agent routes (submit, session chat) check draining in their own handlers, in
   * Hermes's order.
   */
  readonly guard?: UnemulatedGuard;
}

/** The operations fault rules and the request journal match on (decision 0019). */
export const OPERATIONS = [
  'submit', 'get', 'events', 'approval', 'steer', 'stop', 'health', 'capabilities',
  // The session routes, named as /v1/capabilities names their endpoints (spec sessions-api §1).
  ...EMULATED_SESSION_ENDPOINTS,
  'unsupported',
] as const;
export type Operation = (typeof OPERATIONS)[number];

export const ROUTES: readonly Route[] = [
  { method: 'POST', path: '/v1/runs', operation: 'submit', auth: 'key-or-room' },
  { method: 'GET', path: '/v1/runs/{run_id}', operation: 'get', auth: 'key-or-room' },
  { method: 'GET', path: '/v1/runs/{run_id}/events', operation: 'events', auth: 'key' },
  { method: 'POST', path: '/v1/runs/{run_id}/approval', operation: 'approval', auth: 'key-or-room' },
  { method: 'POST', path: '/v1/runs/{run_id}/steer', operation: 'steer', auth: 'key' },
  { method: 'POST', path: '/v1/runs/{run_id}/stop', operation: 'stop', auth: 'key-or-room' },
  { method: 'GET', path: '/health', operation: 'health', auth: 'none' },
  { method: 'GET', path: '/v1/health', operation: 'health', auth: 'none' },
  { method: 'GET', path: '/v1/capabilities', operation: 'capabilities', auth: 'key' },
  // spec sessions-api §1: the plain API-key check on every session route (no room grants).
  { method: 'GET', path: '/api/sessions', operation: 'sessions', auth: 'key' },
  { method: 'POST', path: '/api/sessions', operation: 'session_create', auth: 'key' },
  { method: 'GET', path: '/api/sessions/{session_id}', operation: 'session', auth: 'key' },
  { method: 'PATCH', path: '/api/sessions/{session_id}', operation: 'session_update', auth: 'key' },
  { method: 'DELETE', path: '/api/sessions/{session_id}', operation: 'session_delete', auth: 'key' },
  { method: 'GET', path: '/api/sessions/{session_id}/messages', operation: 'session_messages', auth: 'key' },
  { method: 'POST', path: '/api/sessions/{session_id}/fork', operation: 'session_fork', auth: 'key' },
  { method: 'POST', path: '/api/sessions/{session_id}/chat', operation: 'session_chat', auth: 'key' },
  { method: 'POST', path: '/api/sessions/{session_id}/chat/stream', operation: 'session_chat_stream', auth: 'key' },
  { method: 'POST', path: '/api/sessions/{session_id}/model', operation: 'session_model_lock', auth: 'key' },
  // Hermes serves these too; the emulator says plainly that it does not (501 HERMETIC_UNSUPPORTED_ROUTE), once the
  // request is one Hermes would serve: each is guarded as Hermes's handler begins (endpoints.ts, decision 0049). Most
  // check the key first (a missing or wrong key is Hermes's 401), the agent turns then refuse while draining (503); the
  // browser-control and artifact ones check their feature flag before any key, and with it off (the pin's defaults)
  // answer Hermes's 404 to every request; the room-member, cron-fire and platform-event routes check no API key but
  // credentials of their own, which the handler refuses as Hermes does without a room authority, Chronos settings or a
  // platform adapter.
  ...UNEMULATED_ROUTES.map(([method, path, guard]): Route => ({ method, path, operation: 'unsupported', auth: KEY_FIRST.has(guard) ? 'key' : 'none', guard })),
];

export type RouteMatch =
  | { kind: 'route'; route: Route; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'not-found' };

interface Compiled {
  segments: Array<string | { param: string }>;
  routes: Route[];
}

function compile(routes: readonly Route[]): Compiled[] {
  const byPath = new Map<string, Compiled>();
  for (const route of routes) {
    let entry = byPath.get(route.path);
    if (!entry) {
      const segments = route.path.split('/').slice(1).map((s) => (s.startsWith('{') ? { param: s.slice(1, -1) } : s));
      entry = { segments, routes: [] };
      byPath.set(route.path, entry);
    }
    entry.routes.push(route);
  }
  return [...byPath.values()];
}

const COMPILED = compile(ROUTES);
/** The compiled paths by segment count, in table order (a path can only match entries of its own length). */
const BY_LENGTH = new Map<number, Compiled[]>();
for (const entry of COMPILED) {
  const list = BY_LENGTH.get(entry.segments.length) ?? [];
  list.push(entry);
  BY_LENGTH.set(entry.segments.length, list);
}

const HEX = /^[0-9A-Fa-f]{2}$/;

/**
 * Decodes one path segment as aiohttp does: yarl's `path_safe` (each %XX escape decoded as UTF-8; an escape whose
 * bytes do not decode, or a '%' without two hex digits, kept as written; '/' and '%' re-escaped), then the router's
 * `_unquote_path_safe` (`%2F` → '/', then `%25` → '%'). So `%41%zz` is `A%zz` and `%41%ff` is `A%ff`, where a
 * whole-string decoder would give up on both (decision 0070).
 */
export function decodeSegment(s: string): string {
  if (!s.includes('%')) return s;
  let safe = '';
  for (let i = 0; i < s.length; ) {
    if (s[i] !== '%' || !HEX.test(s.slice(i + 1, i + 3))) {
      safe += s[i++];
      continue;
    }
    // A run of escapes: its bytes decoded together, a character at a time.
    const start = i;
    const bytes: number[] = [];
    while (s[i] === '%' && HEX.test(s.slice(i + 1, i + 3))) {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 3;
    }
    for (let b = 0; b < bytes.length; ) {
      const n = utf8SequenceLength(bytes, b);
      if (n === 0) {
        safe += s.slice(start + b * 3, start + b * 3 + 3);
        b += 1;
        continue;
      }
      const ch = Buffer.from(bytes.slice(b, b + n)).toString('utf8');
      safe += ch === '/' ? '%2F' : ch === '%' ? '%25' : ch;
      b += n;
    }
  }
  return safe.includes('%') ? safe.replaceAll('%2F', '/').replaceAll('%25', '%') : safe;
}

// The last answer: a request is matched twice (operation.ts names it for the journal, api/index.ts routes it), and a
// client polling one run asks the same path again. Answers are frozen, so sharing one is safe.
let lastMethod = '';
let lastPath = '';
let lastMatch: RouteMatch = Object.freeze({ kind: 'not-found' });

/** Resolves a (profile-stripped, still encoded) path and method against the table. */
export function matchRoute(method: string, path: string): RouteMatch {
  if (path === lastPath && method === lastMethod) return lastMatch;
  const match = freshMatch(method, path);
  if (match.kind === 'route') Object.freeze(match.params);
  else if (match.kind === 'method-not-allowed') Object.freeze(match.allowed);
  lastMethod = method;
  lastPath = path;
  return (lastMatch = Object.freeze(match));
}

function freshMatch(method: string, path: string): RouteMatch {
  const parts = path.split('/');
  const candidates = BY_LENGTH.get(parts.length - 1);
  if (!candidates) return { kind: 'not-found' };
  for (let i = 1; i < parts.length; i++) parts[i] = decodeSegment(parts[i]!);
  for (const entry of candidates) {
    let params: Record<string, string> | null = null;
    let matched = true;
    for (let i = 0; i < entry.segments.length; i++) {
      const want = entry.segments[i]!;
      const got = parts[i + 1]!;
      if (typeof want === 'string') {
        if (want !== got) {
          matched = false;
          break;
        }
      } else if (got === '' || got.includes('{') || got.includes('}')) {
        matched = false;
        break;
      } else (params ??= {})[want.param] = got;
    }
    if (!matched) continue;
    for (const route of entry.routes) if (route.method === method) return { kind: 'route', route, params: params ?? {} };
    return { kind: 'method-not-allowed', allowed: entry.routes.map((r) => r.method) };
  }
  return { kind: 'not-found' };
}
