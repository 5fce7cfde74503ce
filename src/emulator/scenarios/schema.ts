// Scenarios read and checked once, wherever they come from (the `scenarios` option, a --scenarios file, POST
// /__admin/scenarios): every step body goes through the same reader as its control route (admin/agent-events.ts),
// so a step means exactly what the route means. A mistake is HERMETIC_SCENARIO_INVALID naming where it is.
import { HermeticError, isHermeticError } from '../../shared/errors.js';
import { suggest } from '../../shared/options.js';
import { PyFloat, isDict, type PyDict, type PyValue } from '../../shared/python/index.js';
import {
  DROPPED_AGENT_EVENTS,
  FORWARDED_EVENTS,
  approvalNotification,
  parseCallbackEvent,
  parseFailure,
  parseFinalAnswer,
  parseInterrupted,
  parseRaise,
  parseSteerPolicy,
  parseStopPolicy,
} from '../control/agent-events.js';
import type { AgentException, ApprovalNotice, ProgressEvent, Usage } from '../runs/agent.js';

export const STEP_KINDS = ['event', 'approval', 'complete', 'fail', 'raise', 'cancel', 'steer_policy', 'stop_policy', 'hang'] as const;
export type StepKind = (typeof STEP_KINDS)[number];
/** Kinds after which the run is over (or, for hang, left to a stop or the control plane): nothing may follow. */
const ENDING: ReadonlySet<StepKind> = new Set(['complete', 'fail', 'raise', 'cancel', 'hang']);

/** How an approval wait ended, and the step key holding what the agent then does instead of the rest. */
export type Outcome = 'approved' | 'denied' | 'timed_out';
export const BRANCH_KEYS = { approved: 'on_approve', denied: 'on_deny', timed_out: 'on_timeout' } as const satisfies Record<Outcome, string>;
/** tools/approval.py: approvals.gateway_timeout, default 300 s (spec runs-api §7.2). */
export const APPROVAL_TIMEOUT = 300;
/** Scenarios a namespace holds at most (a document, the option or a file holds no more): every list it keeps is bounded. */
export const MAX_SCENARIOS = 1000;

export type ScenarioUsage = Usage | 'from_input';

export type Action =
  /** A progress-callback call; null: a name Hermes's callback drops (nothing reaches the stream or the status). */
  | { kind: 'event'; event: ProgressEvent | null }
  | { kind: 'approval'; notification: ApprovalNotice; timeout: number; branches: Partial<Record<Outcome, readonly Step[]>> }
  | { kind: 'complete'; output: PyValue; usage: ScenarioUsage; pendingSteer?: string | null }
  | { kind: 'fail'; error: PyValue }
  | { kind: 'raise'; exception: AgentException }
  | { kind: 'cancel'; output: PyValue; usage: ScenarioUsage }
  | { kind: 'steer_policy'; accept?: boolean; raise?: string | null }
  | { kind: 'stop_policy'; acknowledge: boolean }
  | { kind: 'hang' };

export interface Step {
  /** Seconds after the agent started, not counting time spent waiting for approval answers. */
  readonly at: number;
  readonly action: Action;
}

export type MatchField = 'input' | 'model' | 'session_id' | 'instructions' | 'header';

export interface Matcher {
  readonly field: MatchField;
  /** For `header`: the lower-case header name. */
  readonly header?: string;
  readonly exact?: string;
  readonly regex?: RegExp;
}

export interface Scenario {
  readonly name: string;
  readonly matchers: readonly Matcher[];
  readonly startDelay: number | undefined;
  readonly steps: readonly Step[];
  /** As written (the name first, filled in when it was not given): what GET answers and checkpoints keep. */
  readonly source: PyDict;
}

/** A document read and checked: its scenarios in order, and its default if it gives one (scenario null: "manual"). */
export class ScenarioSet {
  constructor(
    readonly scenarios: readonly Scenario[],
    readonly fallback?: { readonly scenario: Scenario | null; readonly source: PyValue },
  ) {
    Object.freeze(this);
  }
}

const MATCH_FIELDS = ['input', 'model', 'session_id', 'instructions', 'headers'];
const SCENARIO_FIELDS = ['name', 'match', 'start_delay', 'steps'];
const DEFAULT_FIELDS = ['complete_after', 'output', 'usage', 'start_delay', 'steps'];
const APPROVAL_FIELDS = ['timeout', ...Object.values(BRANCH_KEYS)];

/** A scenario problem at `path` (inside the document from `where`). */
class Problem extends Error {
  constructor(readonly path: string, message: string) {
    super(message);
  }
}

const fail = (path: string, message: string): never => {
  throw new Problem(path, message);
};

function unknownKey(path: string, key: string, known: readonly string[], what: string): never {
  const hint = suggest(key, known);
  return fail(path, `Unknown field "${key}" for ${what}.${hint ? ` Did you mean "${hint}"?` : ` Known fields: ${known.join(', ')}.`}`);
}

function onlyKeys(dict: PyDict, known: readonly string[], path: string, what: string): void {
  for (const key of dict.keys()) if (!known.includes(key)) unknownKey(path, key, known, what);
}

function seconds(value: PyValue | undefined, path: string): number {
  const n = value instanceof PyFloat ? value.value : typeof value === 'number' ? value : NaN;
  if (!Number.isFinite(n) || n < 0) fail(path, `must be a number of seconds, 0 or more; got ${show(value)}.`);
  return n;
}

/** A value as a refusal quotes it: at most 80 characters (a whole file given by mistake is not echoed back). */
const show = (value: PyValue | undefined): string => {
  const text = value === undefined ? 'nothing' : value instanceof PyFloat ? String(value.value) : typeof value === 'bigint' ? String(value) : JSON.stringify(value instanceof Map ? Object.fromEntries(value) : value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}… (${text.length.toLocaleString('en-US')} characters)` : text;
};

/** A control-route reader's refusal (HERMETIC_ADMIN_BAD_FIELD) said at the step that holds the body. */
function reader<T>(path: string, read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (isHermeticError(e)) throw new Problem(path, e.message);
    throw e;
  }
}

function matcher(value: PyValue, path: string, field: MatchField, header?: string): Matcher {
  if (typeof value === 'string') return { field, header, exact: value };
  if (!isDict(value)) return fail(path, 'must be a string (matched exactly) or {"regex": "…"} (a JavaScript regular expression).');
  onlyKeys(value, ['regex', 'flags'], path, 'a matcher');
  const source = value.get('regex');
  const flags = value.get('flags') ?? '';
  if (typeof source !== 'string') return fail(path, 'needs "regex": a string (a JavaScript regular expression).');
  if (typeof flags !== 'string' || /[gy]/.test(flags)) return fail(`${path}.flags`, 'must be a string of regular-expression flags other than g and y (e.g. "i").');
  try {
    return { field, header, regex: new RegExp(source, flags) };
  } catch (e) {
    return fail(`${path}.regex`, `${JSON.stringify(source)} is not a valid regular expression (${(e as Error).message}).`);
  }
}

function parseMatch(value: PyValue, path: string): Matcher[] {
  if (!isDict(value)) return fail(path, `must be an object of ${MATCH_FIELDS.join(', ')}.`);
  onlyKeys(value, MATCH_FIELDS, path, 'match');
  const out: Matcher[] = [];
  for (const [key, v] of value) {
    if (key !== 'headers') {
      out.push(matcher(v, `${path}.${key}`, key as MatchField));
      continue;
    }
    if (!isDict(v)) fail(`${path}.headers`, 'must be an object of header name → value.');
    for (const [name, hv] of v as PyDict) {
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) fail(`${path}.headers`, `${JSON.stringify(name)} is not a header name.`);
      out.push(matcher(hv, `${path}.headers.${name}`, 'header', name.toLowerCase()));
    }
  }
  return out;
}

/** A body with `"usage": "from_input"` read by the route's reader without it. */
function withUsage<T extends { usage: Usage }>(body: PyDict, read: (b: PyDict) => T): Omit<T, 'usage'> & { usage: ScenarioUsage } {
  if (body.get('usage') !== 'from_input') return read(body);
  const rest = new Map(body);
  rest.delete('usage');
  return { ...read(rest), usage: 'from_input' };
}

/** A lifecycle name someone may try to send as an event, and the step that does it. */
const LIFECYCLE_STEPS: Record<string, string> = {
  'run.completed': 'complete', 'run.failed': 'fail', 'run.cancelled': 'cancel', 'approval.request': 'approval',
};

function parseEvent(body: PyDict, path: string): ProgressEvent | null {
  const parsed = reader(path, () => parseCallbackEvent(body));
  if (parsed.kind === 'forwarded') return parsed.event;
  const name = parsed.name;
  if (name === 'message.delta' || (DROPPED_AGENT_EVENTS as readonly string[]).includes(name)) return null;
  const step = LIFECYCLE_STEPS[name];
  const hint = step ? ` Use a "${step}" step.` : suggest(name, FORWARDED_EVENTS) ? ` Did you mean "${suggest(name, FORWARDED_EVENTS)}"?` : '';
  return fail(
    `${path}.event`,
    `"${name}" is neither an event Hermes forwards (${FORWARDED_EVENTS.join(', ')}) nor one its agent sends and Hermes drops (${DROPPED_AGENT_EVENTS.join(', ')}).${hint}`,
  );
}

function parseAction(kind: StepKind, raw: PyDict, stepPath: string, at: number): Action {
  const body = raw.get(kind)!;
  const path = `${stepPath}.${kind}`;
  if (kind === 'hang') {
    if (body === null || body === true || (isDict(body) && body.size === 0)) return { kind };
    return fail(path, 'must be {} (or true): the agent does nothing more until the run is stopped.');
  }
  if (!isDict(body)) return fail(path, 'must be an object (the body of its control route).');
  switch (kind) {
    case 'event':
      return { kind, event: parseEvent(body, path) };
    case 'approval': {
      const notification = reader(path, () => approvalNotification(body));
      const timeout = raw.has('timeout') ? seconds(raw.get('timeout'), `${stepPath}.timeout`) : APPROVAL_TIMEOUT;
      const branches: Partial<Record<Outcome, readonly Step[]>> = {};
      for (const [outcome, key] of Object.entries(BRANCH_KEYS) as Array<[Outcome, string]>) {
        if (raw.has(key)) branches[outcome] = parseSteps(raw.get(key)!, `${stepPath}.${key}`, at);
      }
      return { kind, notification, timeout, branches };
    }
    case 'complete':
      return { kind, ...reader(path, () => withUsage(body, parseFinalAnswer)) };
    case 'fail':
      return { kind, error: reader(path, () => parseFailure(body)) };
    case 'raise':
      return { kind, exception: reader(path, () => parseRaise(body)) };
    case 'cancel':
      return { kind, ...reader(path, () => withUsage(body, parseInterrupted)) };
    case 'steer_policy':
      return { kind, ...reader(path, () => parseSteerPolicy(body)) };
    case 'stop_policy':
      return { kind, acknowledge: reader(path, () => parseStopPolicy(body)) };
  }
}

function parseStep(raw: PyValue, path: string, previousAt: number): Step {
  if (!isDict(raw)) return fail(path, `must be an object: "at" and one of ${STEP_KINDS.join(', ')}.`);
  const kinds = STEP_KINDS.filter((k) => raw.has(k));
  if (kinds.length > 1) fail(path, `does two things (${kinds.join(' and ')}); give each its own step.`);
  const kind = kinds[0];
  const allowed = ['at', ...STEP_KINDS, ...(kind === 'approval' ? APPROVAL_FIELDS : [])];
  for (const key of raw.keys()) {
    if (allowed.includes(key)) continue;
    if (APPROVAL_FIELDS.includes(key)) fail(path, `"${key}" belongs to an approval step.`);
    unknownKey(path, key, allowed, 'a step');
  }
  if (!kind) return fail(path, `has no kind; give one of ${STEP_KINDS.join(', ')}.`);
  const at = raw.has('at') ? seconds(raw.get('at'), `${path}.at`) : previousAt;
  if (at < previousAt) fail(`${path}.at`, `is ${at}, earlier than the step before it (${previousAt}); steps run in the order listed.`);
  return { at, action: parseAction(kind, raw, path, at) };
}

function parseSteps(value: PyValue, path: string, startAt: number): Step[] {
  if (!Array.isArray(value)) return fail(path, 'must be a list of steps.');
  const steps: Step[] = [];
  let at = startAt;
  value.forEach((raw, i) => {
    const previous = steps[steps.length - 1];
    if (previous && ENDING.has(previous.action.kind)) {
      fail(`${path}[${i}]`, `comes after ${path}[${i - 1}] (${previous.action.kind}), which ends the run; nothing can follow it.`);
    }
    const step = parseStep(raw, `${path}[${i}]`, at);
    at = step.at;
    steps.push(step);
  });
  return steps;
}

function parseScenario(value: PyValue, path: string, name: string, label?: string): Scenario {
  if (!isDict(value)) return fail(path, `must be an object: ${SCENARIO_FIELDS.join(', ')}.`);
  onlyKeys(value, SCENARIO_FIELDS, path, 'a scenario');
  const given = value.get('name');
  if (given !== undefined && (typeof given !== 'string' || given === '')) fail(`${path}.name`, 'must be a non-empty string.');
  label ??= given === undefined ? path : `scenario "${given}"`;
  if (!value.has('steps')) fail(label, 'needs "steps": a list (it may be empty: matching runs are then left to the control plane).');
  const matchers = value.has('match') ? parseMatch(value.get('match')!, `${label}.match`) : [];
  const startDelay = value.has('start_delay') ? seconds(value.get('start_delay'), `${label}.start_delay`) : undefined;
  const steps = parseSteps(value.get('steps')!, `${label}.steps`, 0);
  const source: PyDict = new Map<string, PyValue>([['name', (given as string | undefined) ?? name]]);
  for (const [k, v] of value) if (k !== 'name') source.set(k, v);
  return { name: source.get('name') as string, matchers, startDelay, steps, source };
}

function parseDefault(value: PyValue): { scenario: Scenario | null; source: PyValue } {
  if (value === 'manual') return { scenario: null, source: value };
  if (!isDict(value)) {
    return fail('default', `must be "manual", {"complete_after": seconds, "output", "usage"} or {"steps": […], "start_delay"}; got ${show(value)}.`);
  }
  onlyKeys(value, DEFAULT_FIELDS, 'default', 'the default');
  if (value.has('complete_after')) {
    for (const key of ['steps', 'start_delay']) if (value.has(key)) fail('default', `"${key}" and "complete_after" do not go together: give steps, or complete_after.`);
    const at = seconds(value.get('complete_after'), 'default.complete_after');
    const body: PyDict = new Map([...value].filter(([k]) => k !== 'complete_after'));
    const step = { at, action: { kind: 'complete' as const, ...reader('default', () => withUsage(body, parseFinalAnswer)) } };
    return { scenario: { name: 'default', matchers: [], startDelay: undefined, steps: [step], source: value }, source: value };
  }
  for (const key of ['output', 'usage']) if (value.has(key)) fail('default', `"${key}" goes with "complete_after"; in steps, put it in a complete step.`);
  const scenario = parseScenario(value, 'default', 'default', 'default');
  return { scenario, source: value };
}

/**
 * A scenarios document: `{"scenarios": [...], "default": ...}`, or just the list. Unnamed scenarios are called
 * `nameFor(i)`; `where` starts each error's sentence ("Option \"scenarios\"", a file name, "The request body").
 * @example readScenarios(parsePyJson('{"scenarios": [{"steps": [{"at": 1, "complete": {"output": "Done."}}]}]}'), 'x')
 */
export function readScenarios(
  value: PyValue,
  where: string,
  nameFor: (index: number) => string = (i) => `scenario-${i + 1}`,
  code: 'HERMETIC_SCENARIO_INVALID' | 'HERMETIC_OPTIONS_INVALID' = 'HERMETIC_SCENARIO_INVALID',
): ScenarioSet {
  try {
    let list: PyValue | undefined;
    let fallback: ScenarioSet['fallback'];
    if (Array.isArray(value)) list = value;
    else if (isDict(value)) {
      onlyKeys(value, ['scenarios', 'default'], '', 'a scenarios document');
      list = value.get('scenarios');
      if (value.has('default')) fallback = parseDefault(value.get('default')!);
    } else fail('', `must be an object {"scenarios": [...], "default": ...} or a list of scenarios; got ${show(value)}.`);
    if (list !== undefined && !Array.isArray(list)) fail('scenarios', 'must be a list of scenarios.');
    // Counted before any is read: a document of thousands costs nothing before its refusal.
    if (Array.isArray(list) && list.length > MAX_SCENARIOS) fail('scenarios', `holds ${list.length} scenarios; a namespace holds at most ${MAX_SCENARIOS}.`);
    const scenarios = ((list ?? []) as PyValue[]).map((s, i) => parseScenario(s, `scenarios[${i}]`, nameFor(i)));
    const seen = new Set<string>();
    for (const s of scenarios) {
      if (seen.has(s.name)) fail(`scenario "${s.name}"`, 'has the same name as one before it; names must be unique.');
      seen.add(s.name);
    }
    return new ScenarioSet(scenarios, fallback);
  } catch (e) {
    if (e instanceof Problem) throw new HermeticError(code, `${where}${e.path ? `, ${e.path}` : ''}: ${e.message}`);
    throw e;
  }
}

/**
 * A plain JavaScript value (an option) as the decoded-JSON value the readers take; integral numbers are ints. A value
 * that holds itself (an object cycle, or a YAML config file's alias inside the node it names) is refused.
 */
export function fromJs(value: unknown, path = 'scenarios', open: Set<object> = new Set()): PyValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean' || typeof value === 'bigint') return value;
  if (typeof value === 'number' || value instanceof PyFloat) return value;
  if (value instanceof Map) return value as PyDict;
  const proto = typeof value === 'object' ? Object.getPrototypeOf(value) : undefined;
  if (Array.isArray(value) || proto === Object.prototype || proto === null) {
    const object = value as object;
    if (open.has(object)) {
      throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${path}" holds itself (a cycle, or a YAML alias inside the node it names): give JSON data.`);
    }
    open.add(object);
    try {
      if (Array.isArray(value)) return value.map((v, i) => fromJs(v, `${path}[${i}]`, open));
      const out: PyDict = new Map();
      for (const [k, v] of Object.entries(object)) if (v !== undefined) out.set(k, fromJs(v, `${path}.${k}`, open));
      return out;
    } finally {
      open.delete(object);
    }
  }
  throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${path}" must be JSON data (objects, lists, strings, numbers, booleans, null); got ${typeof value}.`);
}
