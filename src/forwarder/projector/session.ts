// One Hermes session (its row, its message rows, its per-model usage) → the dataset's records, as a delta against the
// rows written before (decision 0032): whole, from the first message that differs, or only the messages appended.
// Pure: the same input gives the same records, byte for byte; no clock, no I/O (spec forwarding §7 "Projector").
import { redactSensitiveText } from '../../shared/redact/index.js';
import type { RecordOf } from '../dataset/columns.js';
import { REPLACE, type SessionDelta } from '../dataset/delta.js';
import { CALLS_MARK, count, inSessionTotals, normalizeMessages, numOrNull, str, usageMarkOf, validEpoch, type Row, type WholeSession } from '../normalize/index.js';
import { lineageKind } from './lineage.js';
import { redactValue } from './redact-json.js';
import { issueRecords, sessionNotes } from './notes.js';
import { hostOf, normalizeProvider } from './provider.js';
import { scopesOf } from './scope.js';
import { sessionAttributes } from './session-attributes.js';
import { digest, editsDigest, firstDifference, probesOf, TAIL_VERSION, type Tail } from './tail.js';
import { modelsKey, projectTranscript } from './transcript.js';
import { usageEvent, type Ledger } from './usage.js';

export interface ProjectInput {
  store: string;
  profile: string;
  /** The Hermes home the store lives in (its folder): channel and source scopes hang under it. */
  hermesHome: string;
  session: Row;
  /** Every message row of the session, all generations, in id order; with `appended`, only the rows after the tail's. */
  messages: readonly Row[];
  modelUsage: readonly Row[];
  /** Ancestors, nearest first (for lineage and inherited scopes). */
  parents: readonly Row[];
  systemPrompt: string | null;
  /** `session_daily_usage` rows of the session (empty when the store has no such table). */
  dailyUsage?: readonly Row[];
  /** Newer Hermes's per-call usage summed per quarter hour and route (reader usageCalls; null when the store has no such table). */
  usageCalls?: readonly Row[] | null;
  /** What the usage ledger last saw of this session (null: nothing yet). */
  ledger?: Ledger | null;
  redact: boolean;
  origin: 'backfill' | 'forward';
  /** The tail the session was last written with (its cursor's), if any: what this write is a delta against. */
  tail?: Tail | null;
  /**
   * A session read in chunks (decision 0055): what normalizing needs from all its rows, and, when the chunks began at
   * its first row, every call before this chunk (updated as it is projected).
   */
  whole?: WholeSession;
  calls?: Map<string, string>;
  /** Seqs whose rolling transcript hash to report in `probed` (a chunk compared with an older tail; tail.ts). */
  probes?: ReadonlySet<number>;
  /** With `probes`: only the hashes are wanted, the projection has no message or part records. */
  hashOnly?: boolean;
}

export interface Projection {
  session: RecordOf;
  /** Characters of the rows it was projected from, when the reader counted them: what a batch is cut by (decision 0171). */
  chars?: number;
  /** Messages and parts to add (after what `delta` removes): all of them, or those from the first one that changed. */
  messages: RecordOf[];
  parts: RecordOf[];
  modelUsage: RecordOf[];
  issues: RecordOf[];
  dailyUsage: RecordOf[];
  /** `call_usage` rows, replaced with `dailyUsage` (delta `daily`). */
  usageCalls?: RecordOf[];
  /** The ledger's event for what changed since `ledger` (null when nothing did), and the ledger's next state. */
  usageEvent: RecordOf | null;
  ledger: Ledger;
  /** The session's usage mark (normalize/usage-mark.ts), for its cursor. */
  usageMark: string;
  /** Every scope that governs the session (policy is the most restrictive of them); empty when it has none. */
  scopes: string[];
  maxMessageId: number;
  /** What the rows above do to the ones written before (dataset/delta.ts), and the tail to keep with them. */
  delta: SessionDelta;
  tail: Tail;
  /** With `input.probes`: the transcript's hash before each probed seq this projection reached. */
  probed?: Map<number, string>;
}

const json = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));
const COUNTERS = ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens'] as const;

/** A tail this projection can be compared with or continue (same format, text redacted the same way). */
const usable = (tail: Tail | null | undefined, redact: boolean): Tail | null => (tail && tail.v === TAIL_VERSION && tail.redact === redact ? tail : null);

/** `started_at` as the tail keeps it. */
const storedStart = (v: unknown): number | string | null => (typeof v === 'number' || typeof v === 'string' ? v : v === null || v === undefined ? null : String(v));

/**
 * One session's records from all its rows, and the delta they are against the rows written with `input.tail`.
 * @example projectSession({ store, profile: 'default', hermesHome, session, messages, modelUsage: [], parents: [], systemPrompt: null, redact: false, origin: 'backfill' })
 */
export function projectSession(input: ProjectInput): Projection {
  return project(input, false)!;
}

/**
 * The records of the rows Hermes appended after `input.tail` (`input.messages` holds only those; the caller checked
 * that the rows before them are the ones the tail saw), or null when they cannot be projected alone: then the session
 * is read and projected whole (projectSession).
 */
export function projectAppended(input: ProjectInput & { tail: Tail }): Projection | null {
  return project(input, true);
}

function project(input: ProjectInput, appended: boolean): Projection | null {
  const { store } = input;
  const notes = sessionNotes(input.session, input.modelUsage, input.dailyUsage ?? []);
  const s = notes.session;
  const sessionId = String(s.id);
  const text = input.redact ? (t: string | null) => redactSensitiveText(t) : (t: string | null) => t;
  const previous = usable(input.tail, input.redact);
  const startedRaw = storedStart(s.started_at);
  const models = modelsKey(input.modelUsage, str(s.model));
  // Rows appended to a tail are projected alone only when nothing they depend on moved: else the whole session.
  if (appended && (!previous || previous.startedAt !== startedRaw || previous.models !== models)) return null;
  const from = appended ? previous : null;
  const normalized = normalizeMessages(input.messages, numOrNull(s.started_at) ?? 0, from?.rows, input.whole);
  if (normalized.needsPrefix) return null;
  const transcript = projectTranscript(normalized.live, { store, sessionId, redact: input.redact, text, json, routes: input.modelUsage, sessionModel: str(s.model), ...(input.calls ? { calls: input.calls } : {}), ...(input.hashOnly ? { hashOnly: true } : {}) }, from, input.probes ?? (!from && previous ? probesOf(previous) : undefined));
  if (transcript.needsPrefix) return null;
  const t = transcript.carry;

  const sessionIssues: { messageId: number | null; field: string; problem: string }[] = notes.problems.map((p) => ({ messageId: 0, ...p }));
  let startedAt = numOrNull(s.started_at);
  if (!validEpoch(startedAt)) {
    sessionIssues.push({ messageId: 0, field: 'started_at', problem: `started_at ${String(s.started_at)} is not a plausible time; ${t.firstTime === null ? 'no message has one either, so 0 (1970-01-01) is used' : "the first message's time is used"}` });
    startedAt = t.firstTime ?? 0;
  }
  const endedAt = validEpoch(s.ended_at) ? (s.ended_at as number) : null;
  if (s.ended_at !== null && s.ended_at !== undefined && endedAt === null) {
    sessionIssues.push({ messageId: 0, field: 'ended_at', problem: `ended_at ${String(s.ended_at)} is not a plausible time; the session is treated as open` });
  }
  const activity = Math.max(startedAt!, t.lastTime, endedAt ?? 0, validEpoch(s.last_activity_at) ? (s.last_activity_at as number) : 0);
  const provider = normalizeProvider(s.billing_base_url, s.billing_provider, providerOfConfig(s.model_config));
  const counters = Object.fromEntries(COUNTERS.map((k) => [k, count(s[k])]));
  const end: RecordOf | null = endedAt === null ? null : {
    store, session_id: sessionId, part_id: `hermes-${sessionId}-session_end-${Math.round(endedAt * 1e6)}#0`, message_id: null,
    part_index: 0, role: 'system', part_type: 'status', content_text: null, tool_name: null, tool_call_id: null,
    tool_args: null, tool_result_for: null, status: json({ status: 'session_end', end_reason: str(s.end_reason) }), model: null,
    created_at: endedAt,
    attributes: json({ hermes: { session_end: true, api_call_count: count(s.api_call_count), estimated_cost_usd: numOrNull(s.estimated_cost_usd), actual_cost_usd: numOrNull(s.actual_cost_usd) }, usage: counters }),
    program: null,
  };
  const parent = input.parents[0];
  const root = input.parents.length > 0 ? String(input.parents[input.parents.length - 1]!.id) : sessionId;
  const scopes = scopesOf(s, input.parents, input.hermesHome);
  const kind = lineageKind(s, parent);
  const session: RecordOf = {
    store, session_id: sessionId, profile: input.profile, source: str(s.source) ?? 'unknown', model: str(s.model), provider,
    billing_host: hostOf(s.billing_base_url), billing_mode: str(s.billing_mode), scope: scopes[0] ?? null, policy: 'full',
    parent_session_id: str(s.parent_session_id) || null, lineage_kind: kind, lineage_root: root, is_sidechain: kind === 'delegate' ? 1 : 0,
    title: text(str(s.title)), cwd: str(s.cwd), git_branch: str(s.git_branch), git_repo_root: str(s.git_repo_root),
    system_prompt: text(input.systemPrompt), started_at: startedAt, ended_at: endedAt, end_reason: str(s.end_reason),
    last_activity_at: activity, message_count: count(s.message_count), tool_call_count: count(s.tool_call_count),
    api_call_count: count(s.api_call_count), ...counters, estimated_cost_usd: numOrNull(s.estimated_cost_usd),
    actual_cost_usd: numOrNull(s.actual_cost_usd), cost_status: str(s.cost_status), cost_source: str(s.cost_source),
    rewind_count: count(s.rewind_count), live_messages: t.live - t.compacted, archived_messages: normalized.carry.compacted,
    inactive_messages: normalized.carry.inactive, removed_from_store: 0, origin: input.origin,
    attributes: sessionAttributes(s, { text, value: input.redact ? (v) => redactValue(v, text) : (v) => v }),
  };
  const modelUsage = modelUsageRecords(store, sessionId, input.modelUsage);
  const dailyUsage = (input.dailyUsage ?? []).map((d) => ({
    store, session_id: sessionId, day: str(d.day) ?? '', api_call_count: count(d.api_call_count),
    ...Object.fromEntries(COUNTERS.map((k) => [k, count(d[k])])), estimated_cost_usd: numOrNull(d.estimated_cost_usd), actual_cost_usd: numOrNull(d.actual_cost_usd),
  }));
  const usageCalls = callUsageRecords(store, sessionId, input.modelUsage, modelUsage, input.usageCalls ?? []);
  const { event: usageEventRecord, next: ledger } = usageEvent(input.ledger ?? null, s, {
    store, sessionId, observedAt: activity, model: str(s.model), provider, costStatus: str(s.cost_status),
    costSource: str(s.cost_source), billingMode: str(s.billing_mode), origin: input.origin,
  });

  // The delta against the rows written with `previous`: each session-level set only when it changed.
  const sessionLevel = issueRecords(store, sessionId, sessionIssues);
  const messageLevel = issueRecords(store, sessionId, normalized.issues);
  const digests = { end: end === null ? null : digest(end), usage: digest(modelUsage), daily: digest(usageCalls.length > 0 ? [...dailyUsage, ...usageCalls] : dailyUsage), notes: digest(sessionLevel) };
  let delta: SessionDelta;
  let messages = transcript.messages;
  let parts = transcript.parts;
  let issues: RecordOf[];
  if (!previous) {
    delta = REPLACE;
    issues = [...sessionLevel, ...messageLevel];
  } else {
    const changed = { replaceEnd: digests.end !== previous.end, usage: digests.usage !== previous.usage, daily: digests.daily !== previous.daily };
    if (from) {
      // Appended: the new rows' issues join; the session-level ones are replaced when they changed.
      const notesChanged = digests.notes !== previous.notes;
      delta = { kind: 'append', fromSeq: null, ...changed, issues: notesChanged ? 'session' : 'none' };
      issues = notesChanged ? [...sessionLevel, ...messageLevel] : messageLevel;
    } else {
      const fromSeq = firstDifference(previous, transcript.hashes);
      delta = { kind: 'rewrite', fromSeq, ...changed, issues: 'all' };
      issues = [...sessionLevel, ...messageLevel];
      if (fromSeq > 0) {
        messages = messages.slice(fromSeq);
        const kept = new Set(messages.map((m) => m.message_id));
        parts = parts.filter((p) => kept.has(p.message_id));
      }
    }
  }
  if (end && delta.replaceEnd) parts.push(end);
  // Appended rows continue the edits digest of the rows before them; a whole read starts it again.
  const edits = editsDigest(input.messages, from ? from.edits : undefined);
  const tail: Tail = { v: TAIL_VERSION, redact: input.redact, startedAt: startedRaw, models, rows: normalized.carry, ...t, ...digests, edits };
  return {
    session, messages, parts, modelUsage, issues, dailyUsage, usageCalls, usageEvent: usageEventRecord, ledger,
    usageMark: usageMarkOf(input.modelUsage) + (input.usageCalls && input.modelUsage.length > 0 ? CALLS_MARK : ''), scopes, maxMessageId: normalized.carry.maxMessageId, delta, tail,
    ...(input.probes ? { probed: transcript.hashes } : {}),
  };
}

function providerOfConfig(modelConfig: unknown): unknown {
  if (typeof modelConfig !== 'string') return null;
  try {
    return (JSON.parse(modelConfig) as { provider?: unknown }).provider ?? null;
  } catch {
    return null;
  }
}

/**
 * A billing base URL as a key that never shows its secrets: host and path, plus a short hash of the whole URL when
 * it has more (credentials, a query), so two routes that differ only there stay two rows.
 */
export function routeKey(baseUrl: unknown): string {
  if (typeof baseUrl !== 'string' || baseUrl === '') return '';
  let shown = baseUrl;
  try {
    const u = new URL(baseUrl);
    shown = `${u.host}${u.pathname.replace(/\/+$/, '')}`;
    if (!u.username && !u.password && !u.search && !u.hash) return shown;
  } catch {
    shown = 'unparsed';
  }
  return `${shown}#${urlHash(baseUrl)}`;
}

/** FNV-1a, 32 bits, as 8 hex digits: tells URLs apart in a key, never shows them. */
function urlHash(url: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < url.length; i++) h = Math.imul(h ^ url.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

/**
 * A session's `session_model_usage` rows as dataset rows, one each. Hermes keys them by the raw base URL; routeKey
 * shows it shortened, so two URLs that differ only in a trailing slash, the host's case or a default port would share
 * a key (and the second row would fail the table's key): those get the hash of their whole URL, then, if even that
 * repeats, their position.
 */
export function modelUsageRecords(store: string, sessionId: string, rows: readonly Row[]): RecordOf[] {
  const records = rows.map((u) => modelUsageRecord(store, sessionId, u));
  const keyOf = (r: RecordOf) => `${String(r.model)}\u0000${String(r.provider_key)}\u0000${String(r.task)}`;
  const seen = new Map<string, number>();
  for (const r of records) seen.set(keyOf(r), (seen.get(keyOf(r)) ?? 0) + 1);
  if (seen.size === records.length) return records;
  const taken = new Set<string>();
  records.forEach((r, i) => {
    if (seen.get(keyOf(r))! > 1) {
      const url = rows[i]!.billing_base_url;
      r.provider_key = `${String(r.provider_key)}#${urlHash(typeof url === 'string' ? url : String(url))}`;
    }
  });
  records.forEach((r, i) => {
    if (taken.has(keyOf(r))) r.provider_key = `${String(r.provider_key)}~${i}`;
    taken.add(keyOf(r));
  });
  return records;
}

const COUNTED = ['api_call_count', ...COUNTERS, 'estimated_cost_usd', 'actual_cost_usd'] as const;
const rawRoute = (u: Row) => [u.model, u.billing_provider, u.billing_base_url, u.billing_mode, u.task].map((v) => str(v) ?? '').join('\u0000');

/**
 * A session's per-call usage sums (reader usageCalls) as `call_usage` rows: each under the key its route's
 * `model_usage` row has (Hermes writes both with the same route), else the key that row would have; rows that share
 * a key (base URLs that differ only where the key does not show) are added together.
 */
export function callUsageRecords(store: string, sessionId: string, hermesRoutes: readonly Row[], routes: readonly RecordOf[], calls: readonly Row[]): RecordOf[] {
  if (calls.length === 0) return [];
  const keyOf = new Map(hermesRoutes.map((u, i) => [rawRoute({ ...u, task: u.task ?? '' }), routes[i]!.provider_key]));
  const out = new Map<string, RecordOf>();
  for (const u of calls) {
    const model = str(u.model) ?? '';
    const task = str(u.task) ?? '';
    const providerKey = keyOf.get(rawRoute(u)) ?? [str(u.billing_provider) ?? '', routeKey(u.billing_base_url), str(u.billing_mode) ?? ''].join('|');
    const key = `${String(u.quarter)}\u0000${task}\u0000${model}\u0000${String(providerKey)}`;
    const row = out.get(key);
    if (row) {
      row.calls = (row.calls as number) + count(u.calls);
      for (const k of COUNTED) row[k] = (row[k] as number) + (numOrNull(u[k]) ?? 0);
    } else {
      out.set(key, {
        store, session_id: sessionId, quarter: u.quarter, model, provider_key: providerKey, task, calls: count(u.calls),
        ...Object.fromEntries(COUNTED.map((k) => [k, numOrNull(u[k]) ?? 0])),
      });
    }
  }
  return [...out.values()];
}

/** One session_model_usage row; `in_session_totals` says whether Hermes also counted it on the session row. */
export function modelUsageRecord(store: string, sessionId: string, u: Row): RecordOf {
  const task = str(u.task) ?? '';
  return {
    store, session_id: sessionId, model: str(u.model) ?? '',
    provider_key: [str(u.billing_provider) ?? '', routeKey(u.billing_base_url), str(u.billing_mode) ?? ''].join('|'),
    provider: normalizeProvider(u.billing_base_url, u.billing_provider), billing_mode: str(u.billing_mode), task,
    in_session_totals: inSessionTotals(task) ? 1 : 0, api_call_count: count(u.api_call_count),
    ...Object.fromEntries(COUNTERS.map((k) => [k, count(u[k])])),
    estimated_cost_usd: numOrNull(u.estimated_cost_usd), actual_cost_usd: numOrNull(u.actual_cost_usd),
    cost_status: str(u.cost_status), cost_source: str(u.cost_source), first_seen: numOrNull(u.first_seen), last_seen: numOrNull(u.last_seen),
  };
}
