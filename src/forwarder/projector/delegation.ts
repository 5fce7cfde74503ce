// One `async_delegations` row → its `delegations` record and the row issues of what was changed on the way (decision
// 0054). The task, the completion event and the raw result are JSON documents Hermes writes with json.dumps: the goal,
// the summary and the error become columns (transcript text: through the redactor when the dataset redacts); a few
// structured fields are kept in `attributes`; who the user and the chat are, local paths and the processes' commands
// and output stay in the store. Pure: no clock, no I/O. The usage policy is the pipeline's to set (pipeline/delegations.ts).
import type { RecordOf } from '../dataset/columns.js';
import { DELEGATION_TEXT_COLUMNS, numOrNull, str, textColumns, validEpoch, type Row } from '../normalize/index.js';
import { issueRecords, shown } from './notes.js';

export interface DelegationProjectInput {
  store: string;
  row: Row;
  /** Free texts through the redactor (when the dataset redacts), else as they are. */
  text: (t: string | null) => string | null;
  origin: 'backfill' | 'forward';
}

export interface DelegationProjection {
  record: RecordOf;
  /** row_issues records: `session_id` is the delegation's id, `field` `async_delegations.<column>`. */
  issues: RecordOf[];
}

type Doc = Record<string, unknown>;

const TIMES = ['dispatched_at', 'completed_at', 'updated_at', 'delivered_at'] as const;
/** Fields of the task kept in `attributes` as they are (Hermes's names and vocabularies). */
const TASK_FIELDS = ['toolsets', 'role', 'model', 'is_batch'] as const;
/** Fields of the outcome (the event, else the result) kept in `attributes`. */
const OUTCOME_FIELDS = ['api_calls', 'exit_reason', 'duration_seconds', 'total_duration_seconds', 'stall_phase', 'stalled_after_quiet_seconds', 'stall_threshold_seconds', 'stall_grace_seconds'] as const;
/** Fields of each child of a batch kept in `attributes.results`. */
const CHILD_FIELDS = ['task_index', 'status', 'exit_reason', 'api_calls', 'duration_seconds', 'summary_truncated'] as const;

const isDoc = (v: unknown): v is Doc => v !== null && typeof v === 'object' && !Array.isArray(v);
/** A value worth keeping: not absent, not empty, not false (Hermes's defaults). */
const set = (v: unknown) => v !== null && v !== undefined && v !== '' && v !== false && !(Array.isArray(v) && v.length === 0);

/** A JSON document of the row: its object, or null (with the problem when the text is there but is no JSON object). */
function documentOf(v: unknown, column: string, problems: { field: string; problem: string }[]): Doc | null {
  if (typeof v !== 'string' || v === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(v) as unknown;
  } catch {
    problems.push({ field: column, problem: `${column} is not JSON; what it holds is left out` });
    return null;
  }
  if (isDoc(parsed)) return parsed;
  problems.push({ field: column, problem: `${column} is JSON but not an object; what it holds is left out` });
  return null;
}

/** The goal of a task or event: a batch's goals one per line, else its goal. */
function goalOf(doc: Doc | null): string | null {
  if (!doc) return null;
  const goals = Array.isArray(doc.goals) ? doc.goals.filter((g): g is string => typeof g === 'string' && g !== '') : [];
  if (goals.length > 1) return goals.join('\n');
  if (typeof doc.goal === 'string' && doc.goal !== '') return doc.goal;
  return goals[0] ?? null;
}

/** A text field of the outcome: the event's, else the result's, else its batch children's joined by a blank line. */
function outcomeText(field: 'summary' | 'error', event: Doc | null, result: Doc | null, children: readonly Doc[]): string | null {
  for (const d of [event, result]) if (d && typeof d[field] === 'string' && d[field] !== '') return d[field] as string;
  const texts = children.map((c) => c[field]).filter((t): t is string => typeof t === 'string' && t !== '');
  return texts.length > 0 ? texts.join('\n\n') : null;
}

/**
 * The record of one delegation row (policy `full` until the pipeline judges it) and its issues.
 * @example projectDelegation({ store, row, text: (t) => t, origin: 'forward' }).record.summary
 */
export function projectDelegation(input: DelegationProjectInput): DelegationProjection {
  const { store, text } = input;
  const decoded = textColumns(input.row, DELEGATION_TEXT_COLUMNS);
  const r = decoded.row;
  const problems = decoded.problems.map((p) => ({ ...p }));
  const id = String(r.delegation_id);
  // Text columns hold text (their TEXT affinity turns a number into its text; BLOBs were decoded above).
  const textOf = (column: string): string | null => str(r[column]);
  const times: Record<string, number | null> = {};
  for (const c of TIMES) {
    const v = r[c];
    times[c] = validEpoch(v) ? v : null;
    if (v !== null && v !== undefined && times[c] === null) problems.push({ field: c, problem: `${c} ${shown(v)} is not a plausible time; NULL is kept` });
  }
  let duration: number | null = null;
  const { dispatched_at: from, completed_at: to } = times;
  if (from !== null && from !== undefined && to !== null && to !== undefined) {
    if (to >= from) duration = Math.round((to - from) * 1e6) / 1e6;
    else problems.push({ field: 'completed_at', problem: `completed_at is ${Math.round((from - to) * 1000) / 1000} s before dispatched_at; duration_seconds is NULL` });
  }
  let attempts: number | null = null;
  const rawAttempts = r.delivery_attempts;
  if (rawAttempts !== null && rawAttempts !== undefined) {
    const n = numOrNull(rawAttempts);
    if (n === null) problems.push({ field: 'delivery_attempts', problem: `delivery_attempts is ${shown(rawAttempts)}, not a number; NULL is kept` });
    else if (!Number.isInteger(n)) {
      attempts = Math.round(n);
      problems.push({ field: 'delivery_attempts', problem: `delivery_attempts is ${n}, not a whole number; ${attempts} is kept` });
    } else {
      attempts = n;
      if (n < 0) problems.push({ field: 'delivery_attempts', problem: `delivery_attempts is ${n}, below 0; kept as stored` });
    }
  }
  const task = documentOf(r.task_json, 'task_json', problems);
  const event = documentOf(r.event_json, 'event_json', problems);
  const result = documentOf(r.result_json, 'result_json', problems);
  const children = ([event?.results, result?.results].find(Array.isArray) ?? []).filter(isDoc);
  const attributes: Doc = {};
  const context = [task, event].map((d) => d?.context).find((c) => typeof c === 'string' && c !== '');
  if (typeof context === 'string') attributes.context = text(context);
  for (const f of TASK_FIELDS) {
    const v = [task, event].map((d) => d?.[f]).find(set);
    if (v !== undefined) attributes[f] = v;
  }
  for (const f of OUTCOME_FIELDS) {
    const v = [event, result].map((d) => d?.[f]).find(set);
    if (v !== undefined) attributes[f] = v;
  }
  if (children.length > 0) attributes.results = children.map((c) => Object.fromEntries(CHILD_FIELDS.filter((f) => set(c[f])).map((f) => [f, c[f]])));
  const record: RecordOf = {
    store, delegation_id: id, parent_session_id: textOf('parent_session_id') || null, origin_ui_session_id: textOf('origin_ui_session_id') || null,
    state: textOf('state'), delivery_state: textOf('delivery_state'), delivery_attempts: attempts,
    dispatched_at: times.dispatched_at, completed_at: times.completed_at, updated_at: times.updated_at, delivered_at: times.delivered_at,
    duration_seconds: duration, goal: text(goalOf(task) ?? goalOf(event)), summary: text(outcomeText('summary', event, result, children)),
    error: text(outcomeText('error', event, result, children)), attributes: Object.keys(attributes).length > 0 ? JSON.stringify(attributes) : null,
    policy: 'full', removed_from_store: 0, origin: input.origin,
  };
  const issues = issueRecords(store, id, problems.map((p) => ({ messageId: 0, field: `async_delegations.${p.field}`, problem: p.problem })));
  return { record, issues };
}
