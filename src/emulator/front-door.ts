// The front door of both transports: which namespace a request is for (x-hermetic-namespace header or /ns/<name>
// prefix; a bad name is a 400), then that namespace's pipeline (namespaces/namespace.ts: journal → faults → app.ts).
// A namespace is created by its first request, with exceptions answered here that create nothing (decision 0028): a
// request refused for its credentials (the API key of the route, or the admin key) to a namespace not used yet, a
// request to a route that refuses every request (decision 0049), on a server with a key a request that reaches no
// state and carries no key (a health check, an unrouted path, a refused Origin: answered by a namespace made for it
// alone), and a new namespace past the cap when no idle one can be evicted (503 HERMETIC_NAMESPACE_LIMIT).
import { HermeticError, isHermeticError } from '../shared/errors.js';
import { ADMIN_PREFIX } from './admin/routes.js';
import { OPEN_ADMIN_ROUTE, presentsAdminKey } from './admin/auth.js';
import { refuseAdminKey, renderAdminError } from './admin/index.js';
import { authenticate } from './api/auth.js';
import { contentEncoding } from './api/body.js';
import { codingOf, ZSTD_REFUSAL } from './api/content-encoding.js';
import { reachesState, refuseFresh } from './api/index.js';
import { finish } from './app.js';
import { handleConsole, isConsolePath } from './console/serve.js';
import type { GatewaySettings } from './gateway.js';
import type { HttpRequest, HttpResponse } from './http.js';
import { describeRequest } from './namespaces/operation.js';
import { initialSettings, selectNamespace, type Namespaces } from './namespaces/index.js';
import type { ParsedEmulatorOptions } from './options.js';
import { parserRefusalPage } from './wire/responses.js';

/** A console file with the headers every answer has; a 304 carries no Content-Length (it has no body of its own). */
function consoleAnswer(req: HttpRequest, clock: { now(): number }): HttpResponse {
  const answer = finish(handleConsole(req), clock);
  if (answer.status === 304) answer.headers = answer.headers.filter(([k]) => k !== 'Content-Length');
  return answer;
}

export type FrontDoor = (req: HttpRequest) => Promise<HttpResponse>;

/** A control-plane path (the namespace prefix already taken off). */
const isAdminPath = (req: HttpRequest): boolean => req.path === ADMIN_PREFIX || req.path.startsWith(`${ADMIN_PREFIX}/`);

export function createFrontDoor(namespaces: Namespaces, options: ParsedEmulatorOptions): FrontDoor {
  /** A new namespace's gateway settings: what its key check would see (never changed here). */
  const fresh: GatewaySettings = initialSettings(options);
  /** What a new namespace's clock would read now (its Date header). */
  const freshClock = { now: () => options.time ?? Date.now() / 1000 };

  /** The answer a namespace not created yet would give without running anything, when it can only refuse. */
  const refusal = (req: HttpRequest): HttpResponse | Promise<HttpResponse> | null =>
    isAdminPath(req) ? refuseAdminKey(req, options.adminKey) : refuseFresh(req, fresh);

  /** Whether a request carries one of the server's keys (the API key as a Bearer, or the admin key). */
  const carriesKey = (req: HttpRequest): boolean =>
    (fresh.apiKey !== null && authenticate(req, fresh, null, false) === 'ok') || (options.adminKey !== null && presentsAdminKey(req, options.adminKey));

  /**
   * Whether a request to a namespace not used yet creates it: one that reaches its state (every control route does,
   * but the open health check; a Hermes route that passed its key check) always; any other only on a server with no
   * key, or when it carries one of the keys.
   */
  const claimsNamespace = (req: HttpRequest): boolean => {
    const openAdmin = req.method === OPEN_ADMIN_ROUTE.method && req.path.split('?')[0] === OPEN_ADMIN_ROUTE.path;
    if (isAdminPath(req) ? !openAdmin : reachesState(req, fresh)) return true;
    return (fresh.apiKey === null && options.adminKey === null) || carriesKey(req);
  };

  /** Tells the onRequest listener (`hermetic serve`'s log line) of an answer no namespace journaled. */
  const told = (name: string, req: HttpRequest, response: HttpResponse, started: number): HttpResponse => {
    const listener = options.onRequest;
    if (listener) {
      const { operation, runId } = describeRequest(req);
      try {
        listener({ namespace: name, method: req.method, path: req.path, operation, status: response.status, durationMs: performance.now() - started, runId, replayed: null, faultId: null });
      } catch (e) {
        console.error(`hermetic: the onRequest listener threw: ${(e as Error)?.stack ?? String(e)}`);
      }
    }
    return response;
  };

  return (req) => {
    // The console is the server's, not a namespace's: answered before one is chosen (decision 0042).
    if (isConsolePath(req.path)) return Promise.resolve(consoleAnswer(req, freshClock));
    // aiohttp's parser refuses a zstd body as the headers complete, before any application code (decision 0046).
    if (codingOf(contentEncoding(req)) === 'zstd') return Promise.resolve(finish(parserRefusalPage(ZSTD_REFUSAL), namespaces.default.clock));
    let name: string;
    let path: string;
    try {
      ({ name, path } = selectNamespace(req));
    } catch (e) {
      if (!isHermeticError(e)) throw e;
      return Promise.resolve(finish(renderAdminError(e), namespaces.default.clock));
    }
    const routed = path === req.path ? req : { ...req, path, header: req.header, readBody: req.readBody };
    const existing = namespaces.use(name);
    if (existing) {
      if (!existing.claimed && claimsNamespace(routed)) existing.claimed = true;
      return existing.handle(routed);
    }
    const started = performance.now();
    const refused = refusal(routed);
    if (refused) return Promise.resolve(refused).then((answer) => told(name, routed, finish(answer, freshClock), started));
    // On a server with a key, a request that reaches no state and carries no key (a health check, an unrouted path, a
    // refused Origin) creates an unclaimed namespace: evicted before any claimed one, and never evicting one. At the
    // cap with none unclaimed to evict, it is answered as a new namespace would answer it, by one made for that answer
    // alone. So nobody without a key can push out another test's namespace.
    const claim = claimsNamespace(routed);
    let ns;
    try {
      ns = namespaces.get(name, claim);
      if (ns === null) {
        const once = namespaces.transient(name);
        return once.handle(routed).finally(() => once.close());
      }
    } catch (e) {
      if (!(e instanceof HermeticError)) throw e;
      return Promise.resolve(told(name, routed, finish(renderAdminError(e), freshClock), started));
    }
    return ns.handle(routed);
  };
}
