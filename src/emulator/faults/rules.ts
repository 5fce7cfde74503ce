// Parsing a fault rule once, for every way in (POST /__admin/faults, the `faults` option, `serve --faults FILE`):
// unknown fields and names refused with a suggestion, a preset expanded, each action given only its own fields.
import { HermeticError, type ErrorCode } from '../../shared/errors.js';
import { suggest } from '../../shared/options.js';
import { dumps, PyFloat, type PyDict, type PyValue } from '../../shared/python/index.js';
import { namespaceProblem } from '../namespaces/names.js';
import { JSON_TYPE, TEXT_TYPE } from '../wire/responses.js';
import { findPreset, PRESET_NAMES } from './presets.js';
import type { FaultAction, FaultOperation, FaultPresetName, FaultRule } from './types.js';

export const FAULT_OPERATIONS: readonly FaultOperation[] = [
  'submit', 'get', 'events', 'approval', 'steer', 'stop', 'health', 'capabilities',
  'sessions', 'session_create', 'session', 'session_update', 'session_delete', 'session_messages', 'session_fork', 'session_chat', 'session_chat_stream', 'session_model_lock',
  'unsupported', 'other',
];
export const FAULT_ACTIONS: readonly FaultAction[] = [
  'respond', 'server_error', 'delay', 'drop', 'admit_then_drop', 'sse_drop', 'sse_stall', 'throttle', 'drain',
];

const MATCH_FIELDS = ['id', 'preset', 'operation', 'method', 'path_prefix', 'run_id', 'namespace', 'times', 'probability', 'seed', 'action'];
/** The namespace field's value for every namespace. */
export const EVERY_NAMESPACE = '*';
/** The fields each action takes beyond the match fields. */
const ACTION_FIELDS: Record<FaultAction, readonly string[]> = {
  respond: ['status', 'body', 'headers'],
  server_error: [],
  delay: ['seconds', 'clock', 'when'],
  drop: [],
  admit_then_drop: [],
  sse_drop: ['after_events'],
  sse_stall: ['after_events'],
  throttle: [],
  drain: [],
};
const ALL_FIELDS = [...MATCH_FIELDS, ...new Set(Object.values(ACTION_FIELDS).flat())];
/**
 * Actions that exist at some operations only, the first the one a rule without `operation` gets: Hermes's checks live
 * in submit; only an event stream has events, and there are two (the run's events, a session chat stream: decision 0146).
 */
const ONLY_OPERATIONS: Partial<Record<FaultAction, readonly FaultOperation[]>> = {
  throttle: ['submit'],
  drain: ['submit'],
  sse_drop: ['events', 'session_chat_stream'],
  sse_stall: ['events', 'session_chat_stream'],
};

/** Rule ids: safe in a path, a label and a file name; `presets` names GET /__admin/faults/presets. */
const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A delay longer than a year is a mistake (a millisecond value, most likely). */
const MAX_SECONDS = 31_536_000;

export interface FaultErrorCodes {
  /** An unknown field, preset, operation or action. */
  readonly unknown: ErrorCode;
  /** Anything else malformed. */
  readonly invalid: ErrorCode;
}

export const ADMIN_FAULT_CODES: FaultErrorCodes = { unknown: 'HERMETIC_FAULT_INVALID', invalid: 'HERMETIC_FAULT_INVALID' };

/** A plain JavaScript value (the options, a parsed file) as the Python value model the control plane reads. */
export function toPy(value: unknown): PyValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean' || typeof value === 'bigint') return value;
  if (typeof value === 'number') return value;
  if (value instanceof PyFloat || value instanceof Map) return value as PyValue;
  if (Array.isArray(value)) return value.map(toPy);
  if (typeof value === 'object') return new Map(Object.entries(value).map(([k, v]) => [k, toPy(v)]));
  return String(value);
}

const asNumber = (v: PyValue | undefined): number | undefined =>
  typeof v === 'number' ? v : v instanceof PyFloat ? v.value : typeof v === 'bigint' ? Number(v) : undefined;

function shown(v: PyValue | undefined): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}…` : v);
  if (v instanceof Map) return 'an object';
  if (Array.isArray(v)) return 'a list';
  return String(asNumber(v) ?? v);
}

/**
 * One rule (or `{"preset": name, …overrides}`) as the listed, normalised form, without its id when none was given.
 * `where` starts each message ("Fault rule", `Option "faults" item 2`).
 * @example parseFaultRule(toPy({ preset: 'hermes_throttled' }), 'Fault rule', ADMIN_FAULT_CODES)
 */
export function parseFaultRule(input: PyValue, where: string, codes: FaultErrorCodes): Omit<FaultRule, 'id'> & { id: string | null } {
  const invalid = (message: string): never => {
    throw new HermeticError(codes.invalid, `${where}: ${message}`);
  };
  const unknown = (what: string, value: string, known: readonly string[]): never => {
    const hint = suggest(value, known);
    throw new HermeticError(
      codes.unknown,
      `${where}: unknown ${what} "${value}".${hint ? ` Did you mean "${hint}"?` : ` Known: ${known.join(', ')}.`}`,
    );
  };
  if (!(input instanceof Map)) return invalid(`must be a JSON object, not ${shown(input)}.`);
  for (const key of input.keys()) if (!ALL_FIELDS.includes(key)) unknown('field', key, ALL_FIELDS);

  // A preset is the template; the fields given override it (all but its action).
  let preset: FaultPresetName | null = null;
  const body: PyDict = new Map();
  const presetName = input.get('preset');
  if (presetName !== undefined && presetName !== null) {
    if (typeof presetName !== 'string') invalid(`field "preset" must be a preset name, not ${shown(presetName)}.`);
    const found = findPreset(presetName as string) ?? unknown('preset', presetName as string, PRESET_NAMES);
    if (input.has('action')) invalid(`a preset sets the action; leave out "action" or give a rule without "preset".`);
    preset = found.name;
    for (const [k, v] of toPy(found.rule) as PyDict) body.set(k, v);
  }
  for (const [k, v] of input) if (k !== 'preset') body.set(k, v);

  const str = (name: string): string | null => {
    const v = body.get(name);
    if (v === undefined || v === null) return null;
    return typeof v === 'string' ? v : invalid(`field "${name}" must be a string or null, not ${shown(v)}.`);
  };
  const num = (name: string, ok: (n: number) => boolean, expected: string): number | null => {
    const v = body.get(name);
    if (v === undefined || v === null) return null;
    const n = asNumber(v);
    return n !== undefined && typeof v !== 'boolean' && ok(n) ? n : invalid(`field "${name}" must be ${expected}, not ${shown(v)}.`);
  };
  const oneOf = <T extends string>(name: string, known: readonly T[], fallback: T | null): T | null => {
    const v = body.get(name);
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'string') return invalid(`field "${name}" must be one of ${known.join(', ')}, not ${shown(v)}.`);
    return known.includes(v as T) ? (v as T) : unknown(name.replace('_', ' '), v, known);
  };

  const id = str('id');
  if (id !== null && (!ID.test(id) || id === 'presets')) {
    invalid(`field "id" ${JSON.stringify(id)} must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit (and not "presets").`);
  }
  const action = oneOf('action', FAULT_ACTIONS, null) ?? invalid(`give "action" (one of ${FAULT_ACTIONS.join(', ')}) or "preset" (one of ${PRESET_NAMES.join(', ')}).`);
  for (const key of body.keys()) {
    if (MATCH_FIELDS.includes(key) || ACTION_FIELDS[action].includes(key)) continue;
    const owners = FAULT_ACTIONS.filter((a) => ACTION_FIELDS[a].includes(key));
    invalid(`field "${key}" does not apply to action "${action}" (it is for ${owners.join(', ')}).`);
  }
  let operation = oneOf('operation', FAULT_OPERATIONS, null);
  const only = ONLY_OPERATIONS[action];
  if (only && operation !== null && !only.includes(operation)) {
    const named = only.length === 1 ? `operation "${only[0]}"` : `operations ${only.map((o) => `"${o}"`).join(' and ')}`;
    invalid(`action "${action}" only applies to ${named} (${only[0] === 'submit' ? "Hermes's check is in POST /v1/runs" : 'only an event stream has events'}), not "${operation}".`);
  }
  operation ??= only?.[0] ?? null;
  const method = str('method');
  if (method !== null && !TOKEN.test(method)) invalid(`field "method" must be an HTTP method such as "GET", not ${shown(method)}.`);
  const pathPrefix = str('path_prefix');
  if (pathPrefix !== null && !pathPrefix.startsWith('/')) invalid(`field "path_prefix" must start with "/", not ${shown(pathPrefix)}.`);
  const runId = str('run_id');
  if (runId === '') invalid('field "run_id" must not be empty.');
  const namespace = str('namespace');
  if (namespace !== null && namespace !== EVERY_NAMESPACE) {
    const problem = namespaceProblem(namespace);
    if (problem) invalid(`field "namespace" must be "*" (every namespace), a namespace's name or null: ${problem}.`);
  }

  const rule: Omit<FaultRule, 'id'> & { id: string | null } = {
    id,
    preset,
    operation,
    method: method === null ? null : method.toUpperCase(),
    path_prefix: pathPrefix,
    run_id: runId,
    namespace,
    times: num('times', (n) => Number.isSafeInteger(n) && n >= 1, 'a whole number, 1 or more, or null (no limit)'),
    probability: num('probability', (n) => n > 0 && n <= 1, 'a number greater than 0 and at most 1, or null (always)'),
    seed: str('seed'),
    action,
  };
  switch (action) {
    case 'respond': {
      // A 1xx is never a final answer: a client would wait for the real one.
      rule.status = num('status', (n) => Number.isInteger(n) && n >= 200 && n <= 599, 'an HTTP status from 200 to 599')
        ?? invalid('action "respond" needs "status".');
      const headers = parseHeaders(body.get('headers'), invalid);
      const raw = body.get('body');
      let text: string | null = null;
      let type: string | null = null;
      if (typeof raw === 'string') [text, type] = [raw, TEXT_TYPE];
      else if (raw !== undefined && raw !== null) [text, type] = [dumps(raw), JSON_TYPE];
      if (type && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) {
        rule.headers = { 'Content-Type': type, ...headers };
      } else rule.headers = headers;
      rule.body = text;
      break;
    }
    case 'delay':
      rule.seconds = num('seconds', (n) => Number.isFinite(n) && n >= 0 && n <= MAX_SECONDS, `a number of seconds from 0 to ${MAX_SECONDS}`)
        ?? invalid('action "delay" needs "seconds".');
      rule.clock = oneOf('clock', ['virtual', 'wall'] as const, 'virtual')!;
      rule.when = oneOf('when', ['before', 'after'] as const, 'before')!;
      break;
    case 'sse_drop':
    case 'sse_stall':
      rule.after_events = num('after_events', (n) => Number.isSafeInteger(n) && n >= 0, 'a whole number, 0 or more') ?? 0;
      break;
    default:
      break;
  }
  return rule;
}

function parseHeaders(value: PyValue | undefined, invalid: (message: string) => never): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!(value instanceof Map)) return invalid(`field "headers" must be an object of header name → string value, not ${shown(value)}.`);
  const out: Record<string, string> = {};
  for (const [name, v] of value) {
    if (!TOKEN.test(name)) invalid(`header name ${JSON.stringify(name)} is not a valid HTTP header name.`);
    if (typeof v !== 'string') invalid(`header "${name}" must have a string value, not ${shown(v)}.`);
    if (/[\r\n\0]/.test(v as string)) invalid(`header "${name}" must not contain CR, LF or NUL.`);
    if (['content-length', 'transfer-encoding'].includes(name.toLowerCase())) {
      invalid(`header "${name}" is the transport's to set.`);
    }
    out[name] = v as string;
  }
  return out;
}

/**
 * A list of rules (the `faults` option, a --faults file), each checked as above; `where` names the list.
 * @example parseFaultRules([{ preset: 'hermes_draining' }], 'Option "faults"', codes)
 */
export function parseFaultRules(value: unknown, where: string, codes: FaultErrorCodes): ReadonlyArray<ReturnType<typeof parseFaultRule>> {
  if (!Array.isArray(value)) {
    throw new HermeticError(codes.invalid, `${where} must be a list of fault rules (objects, or {"preset": name}).`);
  }
  const rules = value.map((item, i) => Object.freeze(parseFaultRule(toPy(item), `${where} item ${i + 1}`, codes)));
  const ids = new Set<string>();
  for (const [i, rule] of rules.entries()) {
    if (rule.id === null) continue;
    if (ids.has(rule.id)) throw new HermeticError(codes.invalid, `${where} item ${i + 1}: the id "${rule.id}" is used twice.`);
    ids.add(rule.id);
  }
  return Object.freeze(rules);
}
