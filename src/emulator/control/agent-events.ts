// Control bodies that stand for what Hermes's agent hands the gateway: one progress-callback call (POST …/event), one
// approval notification dict (POST …/approval-request), what its loop returns or raises (…/complete, …/fail, …/raise,
// …/cancel) and its steer and stop policies. The gateway decides what reaches the stream; this module only reads the
// body, keeping every value's Python type (decision 0015). The control routes and scenario steps share these readers.
import { HermeticError } from '../../shared/errors.js';
import { suggest } from '../../shared/options.js';
import { PyFloat, type PyDict, type PyValue } from '../../shared/python/index.js';
import { SUBAGENT_KEYS, zeroUsage, type AgentException, type ApprovalNotice, type ProgressEvent, type Usage } from '../runs/agent.js';
import { field, onlyKeys } from './fields.js';

/** Callback event names Hermes turns into SSE events (message.delta comes through the stream-delta callback). */
export const FORWARDED_EVENTS = ['tool.started', 'tool.completed', 'reasoning.available', 'message.delta', 'subagent.start', 'subagent.complete'] as const;

/**
 * Names the agent (and its delegate and MoA helpers) passes to the progress callback that Hermes's `/v1/runs` callback
 * ignores at the pin (spec runs-api §8.3, "never emitted"). Any other name is dropped too; these get no hint.
 */
export const DROPPED_AGENT_EVENTS = [
  '_thinking', 'subagent.thinking', 'subagent.tool', 'subagent.progress', 'subagent_progress', 'moa.reference',
  'moa.aggregating', 'reasoning.delta', 'tool.failed',
] as const;

/** What a dropped name most likely meant: a control route for the lifecycle, or a forwarded name it is close to. */
const ROUTE_HINTS: Record<string, string> = {
  'run.completed': 'complete',
  'run.failed': 'fail',
  'run.cancelled': 'cancel',
  'approval.request': 'approval-request',
};

export type CallbackEvent =
  | { kind: 'forwarded'; event: ProgressEvent; ignoredFields: string[] }
  | { kind: 'dropped'; name: string; hint: string | null };

const BAD = (message: string): never => {
  throw new HermeticError('HERMETIC_ADMIN_BAD_FIELD', message);
};

/** round() takes an int or a float; anything else would raise inside Hermes's callback. */
function duration(body: PyDict): PyValue {
  const v = body.get('duration');
  // Absent: Hermes's kwargs default 0 (an int). null stays accepted as "none given", as before.
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number' || typeof v === 'bigint' || v instanceof PyFloat) return v;
  return BAD('Field "duration" must be a number (an int stays an int, a float is rounded to 3 places).');
}

/** A call whose event reaches the stream; `ignoredFields`: keys of the body Hermes does not pass on. */
function forwarded(event: ProgressEvent, ignoredFields: string[] = []): CallbackEvent {
  return { kind: 'forwarded', ignoredFields, event };
}

function dropped(name: string): CallbackEvent {
  const route = ROUTE_HINTS[name];
  let hint: string | null = null;
  if (route) hint = `Hermes's agent never sends ${name} through the progress callback; use POST /__admin/runs/{run_id}/${route}.`;
  else if (!(DROPPED_AGENT_EVENTS as readonly string[]).includes(name)) {
    const close = suggest(name, FORWARDED_EVENTS);
    if (close) hint = `Did you mean "${close}"?`;
  }
  return { kind: 'dropped', name, hint };
}

/**
 * One progress-callback call. The six forwarded names take the fields documented in admin-api.md; subagent events
 * take any field (the agent passes keyword arguments; Hermes keeps the pinned list); every other name is accepted and
 * dropped, as Hermes's callback drops it.
 */
export function parseCallbackEvent(body: PyDict): CallbackEvent {
  const name = field.string(body, 'event');
  switch (name) {
    case 'tool.started':
      onlyKeys(body, ['event', 'tool', 'preview', 'arguments'], name);
      return forwarded({
        event: name,
        tool: field.string(body, 'tool'),
        preview: field.nullableString(body, 'preview', null),
        ...(body.has('arguments') ? { arguments: body.get('arguments')! } : {}),
      });
    case 'tool.completed':
      onlyKeys(body, ['event', 'tool', 'duration', 'error', 'result'], name);
      return forwarded({
        event: name,
        tool: field.string(body, 'tool'),
        duration: duration(body),
        error: field.boolean(body, 'error', false),
        ...(body.has('result') ? { result: field.string(body, 'result') } : {}),
      });
    case 'reasoning.available':
      onlyKeys(body, ['event', 'text'], name);
      // Hermes sends `preview or ""`.
      return forwarded({ event: name, text: field.nullableString(body, 'text', '') || '' });
    case 'message.delta': {
      onlyKeys(body, ['event', 'delta'], name);
      // The agent signals a tool boundary with delta None; Hermes's stream-delta callback returns on it.
      if (body.get('delta') === null) return { kind: 'dropped', name, hint: null };
      return forwarded({ event: name, delta: field.string(body, 'delta') });
    }
    case 'subagent.start':
    case 'subagent.complete': {
      const kwargs: PyDict = new Map([...body].filter(([k]) => k !== 'event' && k !== 'preview'));
      const known: readonly string[] = SUBAGENT_KEYS;
      const ignored = [...kwargs.keys()].filter((k) => !known.includes(k));
      return forwarded({ event: name, preview: body.get('preview') ?? null, kwargs }, ignored);
    }
    default:
      return dropped(name);
  }
}


const SHELL_FIELDS = ['preset', 'command', 'description', 'pattern_key', 'pattern_keys', 'allow_permanent', 'allow_session', 'smart_denied', 'request_id'];

/** The keys the approval subsystem passes through the redactor when it builds a dangerous command's dict. */
const SHELL_REDACTS = ['command', 'description'] as const;

/**
 * The approval subsystem's dict for a dangerous shell command (redaction.md §3), in its key order:
 * command, pattern_key, pattern_keys, description, allow_permanent, allow_session, [smart_denied], [request_id].
 * Command and description as given: the subsystem's own unforced pass over them is the agent's (SHELL_REDACTS).
 */
function shellNotification(body: PyDict): PyDict {
  onlyKeys(body, SHELL_FIELDS, 'the shell approval preset');
  const description = field.string(body, 'description');
  // Hermes's dangerous-pattern detector uses the description as the pattern key.
  const patternKey = field.string(body, 'pattern_key', description);
  const patternKeys = body.get('pattern_keys') ?? [patternKey];
  if (!Array.isArray(patternKeys) || !patternKeys.every((k) => typeof k === 'string')) BAD('Field "pattern_keys" must be an array of strings.');
  const smartDenied = field.boolean(body, 'smart_denied', false);
  // A guardian DENY an owner may override: neither session nor permanent allow-listing is offered.
  const allowPermanent = field.boolean(body, 'allow_permanent', !smartDenied);
  const allowSession = field.boolean(body, 'allow_session', !smartDenied);
  if (smartDenied && (allowPermanent || allowSession)) {
    BAD('With "smart_denied": true the approval subsystem sends "allow_permanent": false and "allow_session": false.');
  }
  const dict: PyDict = new Map<string, PyValue>([
    ['command', field.string(body, 'command')],
    ['pattern_key', patternKey],
    ['pattern_keys', patternKeys],
    ['description', description],
    ['allow_permanent', allowPermanent],
    ['allow_session', allowSession],
  ]);
  if (smartDenied) dict.set('smart_denied', true);
  if (body.has('request_id')) dict.set('request_id', field.string(body, 'request_id'));
  return dict;
}

/**
 * The notification dict the approval subsystem hands the gateway: the body itself, every key in the order given
 * (Hermes adds only `request_id`, later), or with `"preset": "shell"` the full dict for a dangerous shell command,
 * whose command and description the subsystem redacts.
 */
export function approvalNotification(body: PyDict): ApprovalNotice {
  if (!body.has('preset')) return { dict: new Map(body), redacts: [] };
  const preset = body.get('preset');
  if (preset === 'shell') return { dict: shellNotification(body), redacts: SHELL_REDACTS };
  return BAD(`Field "preset" must be "shell"; got ${JSON.stringify(preset)}. Without "preset" the body is sent as given.`);
}

/** A result's `usage` dict: absent or null is zero; `total_tokens` defaults to input + output. */
export function parseUsage(body: PyDict): Usage {
  const raw = body.get('usage');
  if (raw === undefined || raw === null) return zeroUsage();
  if (!(raw instanceof Map)) return BAD('Field "usage" must be an object.');
  onlyKeys(raw, ['input_tokens', 'output_tokens', 'total_tokens'], 'usage');
  const input = field.integer(raw, 'input_tokens', 0);
  const output = field.integer(raw, 'output_tokens', 0);
  return { input_tokens: input, output_tokens: output, total_tokens: field.integer(raw, 'total_tokens', input + output) };
}

/** The agent's final answer (…/complete): `output` (default ""), `usage`, and the result's `pending_steer` if given. */
export function parseFinalAnswer(body: PyDict): { output: PyValue; usage: Usage; pendingSteer?: string | null } {
  onlyKeys(body, ['output', 'usage', 'pending_steer'], 'complete');
  const output = body.has('output') ? body.get('output')! : '';
  if (output !== null && typeof output !== 'string') BAD('Field "output" must be a string or null.');
  const pendingSteer = body.has('pending_steer') ? field.nullableString(body, 'pending_steer', null) : undefined;
  return { output, usage: parseUsage(body), ...(pendingSteer === undefined ? {} : { pendingSteer }) };
}

/** A returned failure (…/fail): the result's `error`, any value (falsy: Hermes's "agent run failed"). */
export function parseFailure(body: PyDict): PyValue {
  onlyKeys(body, ['error'], 'fail');
  return body.get('error') ?? null;
}

export const RAISE_KINDS = ['error', 'provider_auth', 'cancelled'] as const;

/** An exception escaping the agent (…/raise): `kind` error (default), provider_auth or cancelled; `message` its str(). */
export function parseRaise(body: PyDict): AgentException {
  onlyKeys(body, ['message', 'kind'], 'raise');
  const kind = field.string(body, 'kind', 'error');
  if (!(RAISE_KINDS as readonly string[]).includes(kind)) BAD(`Field "kind" must be one of ${RAISE_KINDS.join(', ')}; got "${kind}".`);
  return { kind: kind as AgentException['kind'], message: field.string(body, 'message', '') };
}

/** The agent returns interrupted (…/cancel): `output` (default "") and `usage`. */
export function parseInterrupted(body: PyDict): { output: PyValue; usage: Usage } {
  onlyKeys(body, ['output', 'usage'], 'cancel');
  return { output: field.nullableString(body, 'output', ''), usage: parseUsage(body) };
}

/** Whether agent.steer() accepts text (`accept`) and what it raises (`raise`; null: nothing); at least one. */
export function parseSteerPolicy(body: PyDict): { accept?: boolean; raise?: string | null } {
  onlyKeys(body, ['accept', 'raise'], 'steer-policy');
  if (!body.has('accept') && !body.has('raise')) {
    BAD('Field "accept" (true or false) or "raise" (a string, or null to stop raising) is required.');
  }
  const policy: { accept?: boolean; raise?: string | null } = {};
  if (body.has('accept')) policy.accept = field.boolean(body, 'accept');
  if (body.has('raise')) policy.raise = field.nullableString(body, 'raise', null);
  return policy;
}

/** Whether a stop's interrupt is honoured (…/stop-policy `acknowledge`). */
export function parseStopPolicy(body: PyDict): boolean {
  onlyKeys(body, ['acknowledge'], 'stop-policy');
  return field.boolean(body, 'acknowledge');
}
