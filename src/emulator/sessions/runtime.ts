// The model a session request asks for, as the API server reads it (`_session_runtime_request_from_body`,
// `_runtime_lock_error`, the persisted Browser model lock and `_sanitize_runtime_metadata`). The emulator has no
// model_routes, so a model is either the advertised virtual name (no model) or a raw request. Spec sessions-api §4.1.
import { dumps, isDict, PyFloat, pyStr, pyStrip, pyTruthy, type PyDict, type PyValue } from '../../shared/python/index.js';
import type { HermesError } from '../runs/hermes-errors.js';
import { coerceRequestBool } from '../runs/validate.js';
import { sessionErrors } from './errors.js';
import { BROWSER_MODEL_LOCK, parseModelConfig } from './model-config.js';
import { cleanRuntimeId } from './rules.js';

export interface RuntimeRequest {
  /** The requested provider and model ('' when none; the virtual model name counts as none). */
  readonly provider: string;
  readonly model: string;
  /** A raw model route ({model, provider?}) or null (the global default). */
  readonly route: { model: string; provider?: string } | null;
  readonly routeSource: 'global' | 'raw_request' | 'session_model_lock';
  readonly requireLock: boolean;
  /** The lock came from the session row (confirmed earlier), not from this body. */
  readonly persisted: boolean;
  readonly modelOptions: PyDict;
}

/** Python's `a or b` over dict lookups. */
const or = (body: PyDict, ...keys: string[]): PyValue | undefined => {
  let value: PyValue | undefined;
  for (const key of keys) {
    value = body.get(key);
    if (pyTruthy(value)) return value;
  }
  return value;
};
const clean = (v: PyValue | undefined, max = 200): string => (v === undefined || v === null ? '' : cleanRuntimeId(pyStr(v), max));

/** `provider::model` → [provider, model] when the provider part is a plain id (_split_provider_prefixed_model). */
function splitProvider(model: string): [string, string] {
  const at = model.indexOf('::');
  if (at >= 0) {
    const provider = model.slice(0, at);
    const rest = pyStrip(model.slice(at + 2));
    if (/^[a-zA-Z0-9_.-]{2,64}$/.test(provider) && rest) return [provider, rest];
  }
  return ['', model];
}

/** The body's request; `virtualModel` (the advertised model name) is no model at all (#88761). */
export function runtimeFromBody(body: PyDict, virtualModel: string): RuntimeRequest {
  const rawModel = clean(or(body, 'model', 'model_id'));
  const rawProvider = clean(or(body, 'provider', 'provider_id'), 80);
  const [prefixed, split] = splitProvider(rawModel);
  const provider = rawProvider || prefixed;
  let model = split || rawModel;
  if (model === virtualModel) model = '';
  let route: RuntimeRequest['route'] = null;
  let routeSource: RuntimeRequest['routeSource'] = 'global';
  if (model) {
    route = provider ? { model, provider } : { model };
    routeSource = 'raw_request';
  }
  const options = body.get('model_options');
  return {
    provider,
    model,
    route,
    routeSource,
    requireLock: coerceRequestBool(body.get('require_model_lock')),
    persisted: false,
    modelOptions: isDict(options) ? options : new Map(),
  };
}

/** _effective_session_runtime_request: the body's model wins; else a lock the session row holds (confirmed). */
export function effectiveRuntime(body: PyDict, modelConfig: string | null, virtualModel: string): RuntimeRequest {
  const fromBody = runtimeFromBody(body, virtualModel);
  if (fromBody.model || fromBody.provider || modelConfig === null) return fromBody;
  // _parse_session_model_config: json.loads, any failure an empty config; the lock found among the row's other keys.
  let lock: PyValue | undefined;
  try {
    lock = parseModelConfig(modelConfig).get(BROWSER_MODEL_LOCK);
  } catch {
    return fromBody;
  }
  if (!isDict(lock) || !coerceRequestBool(lock.get('confirmed'))) return fromBody;
  const model = clean(lock.get('model'));
  const provider = clean(lock.get('provider'), 80);
  if (!model && !provider) return fromBody;
  const route = model ? (provider ? { model, provider } : { model }) : null;
  return { provider, model, route, routeSource: 'session_model_lock', requireLock: true, persisted: true, modelOptions: fromBody.modelOptions };
}

/** _runtime_lock_error. */
export function lockError(r: RuntimeRequest): HermesError | null {
  if (!r.requireLock) return null;
  if (!r.model && !r.provider) return sessionErrors.missingModel();
  if (!r.route || r.routeSource === 'global') return sessionErrors.lockUnroutable();
  return null;
}

/** The lock dict itself (update_session_runtime_lock's `lock`, in its key order), stamped `now`. */
export function lockEntry(r: RuntimeRequest, now: number): PyDict {
  return new Map<string, PyValue>([
    ['provider', r.provider],
    ['model', r.model],
    ['model_options', r.modelOptions],
    ['route_source', r.routeSource],
    ['confirmed', r.requireLock],
    ['updated_at', new PyFloat(now)],
  ]);
}

/** The model_config POST /api/sessions stores for a requested model (a Browser model lock, confirmed or not). */
export function lockConfig(r: RuntimeRequest, now: number): string | null {
  if (!r.model && !r.provider) return null;
  return dumps(new Map<string, PyValue>([[BROWSER_MODEL_LOCK, lockEntry(r, now)]]));
}

/**
 * The `runtime` of a session chat answer (`_sanitize_runtime_metadata`): the provider and model the agent ran, the
 * route source, what was requested, and the lock state when a lock was asked for.
 */
export function runtimeMetadata(r: RuntimeRequest, actual: { provider: string; model: string }, modelLock: string): PyDict {
  const out: PyDict = new Map<string, PyValue>([
    ['provider', cleanRuntimeId(actual.provider, 80)],
    ['model', cleanRuntimeId(actual.model)],
    ['route_source', r.routeSource],
    ['requested', new Map<string, PyValue>([['provider', r.provider], ['model', r.model]])],
  ]);
  if (modelLock) out.set('model_lock', modelLock);
  return out;
}

/**
 * The `runtime` of POST /api/sessions/{id}/model's answer: `_sanitize_runtime_metadata` over the route's provider and
 * model (else the requested ones), the route source (else `raw_request`), the request, and `model_lock: "accepted"`.
 * Only a routed lock reaches it (`lockError` passed), so here the route is the raw request's.
 */
export function lockAcceptedRuntime(r: RuntimeRequest): PyDict {
  const actual = { provider: r.route?.provider || r.provider, model: r.route?.model || r.model };
  return runtimeMetadata(r, actual, 'accepted');
}
