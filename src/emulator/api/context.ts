// What a /v1 handler receives: the request, the route it matched and its parameters, the caller's profile and scope, and the services.
import type { Clock } from '../../shared/clock.js';
import type { GatewaySettings } from '../gateway.js';
import type { HttpRequest, HttpResponse } from '../http.js';
import type { RunRegistry } from '../runs/registry.js';
import type { StoreUnavailable } from '../runs/run-table.js';
import type { RunService } from '../runs/service.js';
import type { SessionService } from '../sessions/index.js';
import type { Route } from './routes.js';

export interface ApiDeps {
  readonly service: RunService;
  /** The /api/sessions domain of this namespace. */
  readonly sessions: SessionService;
  readonly registry: RunRegistry;
  readonly gateway: GatewaySettings;
  readonly clock: Clock;
  /** Whether the idempotency store is on disk (capabilities advertise it). */
  readonly durable: boolean;
  /** A bug in Hermetic surfaced while answering (the client gets aiohttp's 500 page, as for a Hermes exception). */
  readonly onInternalError: (error: unknown) => void;
  /** The store failed a request, which was answered aiohttp's 500 page (namespaces/warnings.ts says why). */
  readonly onStoreFailure: (request: string, error: StoreUnavailable) => void;
}

export interface ApiContext {
  readonly req: HttpRequest;
  /** The route of the table the request matched. */
  readonly route: Route;
  readonly params: Readonly<Record<string, string>>;
  /** The /p/<name>/ profile, or null for unprefixed routes. */
  readonly profile: string | null;
  /** The caller's ownership scope (spec §3.2). */
  readonly scope: string;
  readonly deps: ApiDeps;
}

export type Handler = (ctx: ApiContext) => HttpResponse | Promise<HttpResponse>;

/**
 * Hermes's draining check as this request meets it: the gateway draining, or a `drain` fault rule armed for it (spent
 * when asked, so ask once). Every route Hermes admits like an agent request asks it here.
 */
export const drainingFor = (ctx: ApiContext): boolean => ctx.deps.gateway.draining || ctx.req.faultChecks?.draining() === true;
