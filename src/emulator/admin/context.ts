// What a control-plane handler receives, and the small helpers for reading control bodies.
import { HermeticError } from '../../shared/errors.js';
import { suggest } from '../../shared/options.js';
import type { ControlledClock } from '../../shared/clock.js';
import type { GatewaySettings } from '../gateway.js';
import type { HttpRequest } from '../http.js';
import type { Namespace, Namespaces } from '../namespaces/index.js';
import type { FakeAgent } from '../runs/agent.js';
import type { RunRegistry } from '../runs/registry.js';
import { PyFloat, decodeAndParse, type PyDict, type PyValue } from '../../shared/python/index.js';

export interface AdminDeps {
  readonly clock: ControlledClock;
  readonly gateway: GatewaySettings;
  readonly registry: RunRegistry;
  readonly agent: FakeAgent;
  /** The namespace this request is for, and every namespace of the emulator. */
  readonly namespace: Namespace;
  readonly namespaces: () => Namespaces;
  /** The admin key every control route but GET /__admin/health needs (null: open), checked by the dispatcher. */
  readonly adminKey: string | null;
  /** Emulates a gateway crash and restart on the same store. */
  restart(): void;
  /** A bug in Hermetic surfaced while answering (answered 500 HERMETIC_INTERNAL). */
  readonly onInternalError: (error: unknown) => void;
}

export interface AdminContext {
  readonly req: HttpRequest;
  readonly params: Readonly<Record<string, string>>;
  readonly deps: AdminDeps;
  /** The decoded JSON body (an object; empty when the request had no body). */
  readonly body: PyDict;
}

/** A handler's answer: a plain object (JSON.stringify), a Hermes dict (Python json.dumps), or AdminText. */
export type AdminHandler = (ctx: AdminContext) => unknown;

/** An answer sent as it is rather than as JSON (Prometheus text from GET /__admin/metrics); the client gets a string. */
export class AdminText {
  constructor(
    readonly contentType: string,
    readonly text: string,
  ) {}
}

export async function readAdminBody(req: HttpRequest): Promise<PyDict> {
  if (req.method === 'GET') return new Map();
  const bytes = await req.readBody(10_000_000);
  if (bytes === 'too-large') throw new HermeticError('HERMETIC_ADMIN_BAD_JSON', 'The control request body is larger than 10 MB.');
  if (bytes.byteLength === 0) return new Map();
  let value: PyValue;
  try {
    value = decodeAndParse(bytes);
  } catch (e) {
    throw new HermeticError('HERMETIC_ADMIN_BAD_JSON', `The control request body is not valid JSON (${(e as Error).message}).`);
  }
  if (!(value instanceof Map)) throw new HermeticError('HERMETIC_ADMIN_BAD_JSON', 'The control request body must be a JSON object.');
  return value;
}

/** Rejects keys outside `known`, naming the closest known one. */
export function onlyKeys(body: PyDict, known: readonly string[], what: string): void {
  for (const key of body.keys()) {
    if (known.includes(key)) continue;
    const hint = suggest(key, known);
    throw new HermeticError(
      'HERMETIC_ADMIN_BAD_FIELD',
      `Unknown field "${key}" for ${what}.${hint ? ` Did you mean "${hint}"?` : ` Known fields: ${known.join(', ') || 'none'}.`}`,
    );
  }
}

function wrongType(name: string, expected: string): never {
  throw new HermeticError('HERMETIC_ADMIN_BAD_FIELD', `Field "${name}" must be ${expected}.`);
}

export const field = {
  string(body: PyDict, name: string, fallback?: string): string {
    const v = body.get(name);
    if (v === undefined) return fallback ?? wrongType(name, 'a string (it is required)');
    return typeof v === 'string' ? v : wrongType(name, 'a string');
  },
  nullableString(body: PyDict, name: string, fallback: string | null): string | null {
    const v = body.get(name);
    if (v === undefined) return fallback;
    return v === null || typeof v === 'string' ? v : wrongType(name, 'a string or null');
  },
  boolean(body: PyDict, name: string, fallback?: boolean): boolean {
    const v = body.get(name);
    if (v === undefined) return fallback ?? wrongType(name, 'true or false (it is required)');
    return typeof v === 'boolean' ? v : wrongType(name, 'true or false');
  },
  number(body: PyDict, name: string): number | undefined {
    const v = body.get(name);
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'number') return v;
    if (v instanceof PyFloat && Number.isFinite(v.value)) return v.value;
    return wrongType(name, 'a finite number');
  },
  integer(body: PyDict, name: string, fallback?: number): number {
    const v = body.get(name);
    if (v === undefined) return fallback ?? wrongType(name, 'an integer (it is required)');
    return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : wrongType(name, 'a non-negative integer');
  },
};
