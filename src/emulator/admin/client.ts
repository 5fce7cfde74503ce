// A typed client for the control plane. Its URLs come from the admin route table (routes.ts), its types from the
// AdminRoutes contract below, which routes.ts is checked against at compile time. It takes any fetch, so the same
// object drives an in-process emulator (emulator.fetch) or a server over HTTP (globalThis.fetch). This module's
// types reach no server internals, so a consumer's tsc needs nothing beyond @types/node.
import { ERROR_CODES, HermeticError, type ErrorCode } from '../../shared/errors.js';
import type { RunStatus } from '../runs/lifecycle.js';
import { ADMIN_KEY_HEADER } from './auth.js';
import { ADMIN_PREFIX, ADMIN_ROUTES, type AdminRoute } from './routes.js';

export type { RunStatus } from '../runs/lifecycle.js';
export type {
  FaultAction,
  FaultJson,
  FaultOperation,
  FaultPresetName,
  FaultRule,
  FaultRuleInput,
  FaultRuleState,
} from '../faults/types.js';
import type { FaultPresetName, FaultRuleInput, FaultRuleState } from '../faults/types.js';
export type {
  AdminScenario,
  AdminScenarioDocument,
  AdminScenarioList,
  AdminScenarioRemoval,
  ScenarioDefault,
  ScenarioMatch,
  ScenarioMatcher,
  ScenarioStep,
} from '../scenarios/document.js';
import type { AdminScenarioDocument, AdminScenarioList, AdminScenarioRemoval } from '../scenarios/document.js';

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** A control body with no fields (`{}`). */
export type AdminNoFields = Record<string, never>;

/** GET /__admin/health: who answered (open even when the server has an admin key). */
export interface AdminHealth {
  status: 'ok';
  /** Always "hermetic": a real Hermes has no /__admin routes. */
  emulator: 'hermetic';
  /** Hermetic's own version (package.json). */
  version: string;
  /** The Hermes release emulated, e.g. "v2026.8.31". */
  hermes_release: string;
  /** The version that release reports on GET /health, e.g. "0.21.0". */
  hermes_version: string;
  /** The namespace that answered ("default" without a selector). */
  namespace: string;
  /** Whether the other control routes need the admin key. */
  admin_key_required: boolean;
  /**
   * Runs of this namespace whose status write waits for a commit (another connection holds the store's lock); answers
   * that show those runs wait for it, health never does.
   */
  held_writes: number;
}

export interface AdminClockState {
  /** Epoch seconds. */
  now: number;
  frozen: boolean;
}

/** `set` or `advance` (not both), and/or `freeze`; or `reset` alone. Times are epoch seconds, 0 … 253402300799 (or text: an ISO time, a duration). */
export interface AdminClockChange {
  /** Epoch seconds, or an ISO time with its zone ("2026-09-12T00:00:00Z"; a date alone is midnight UTC). */
  set?: number | string;
  /** Seconds, or a duration ("90s", "5m", "1h30m", "500ms"). */
  advance?: number | string;
  freeze?: boolean;
  /** Alone: the clock back to how the options start it. */
  reset?: true;
}

export interface AdminSweepResult {
  swept_statuses: number;
  swept_buffers: number;
}

export interface AdminRestartResult {
  restarted: true;
  owner_pid: number;
  owner_started: number;
}

export interface AdminGatewayState {
  draining: boolean;
  max_concurrent_runs: number;
  api_key_set: boolean;
}

export interface AdminGatewayChange {
  draining?: boolean;
  /** 0 (or less) disables the cap. */
  max_concurrent_runs?: number;
  /** A non-empty key, or null for Hermes's unauthenticated test listener. */
  api_key?: string | null;
}

export interface AdminResetChange {
  /** Every namespace (the default starts over, the others are forgotten); default false: this namespace only. */
  all?: boolean;
}

export interface AdminResetResult {
  /** The namespaces that started over. */
  reset: string[];
}

export interface AdminNamespaceSummary {
  name: string;
  /** Runs in the namespace's memory, and how many of them are live (admitted, not finished). */
  runs: number;
  live_runs: number;
  /** Wall-clock epoch seconds of its first use. */
  created_at: number;
}

export interface AdminNamespaceList {
  /** The default first, then in order of first use. */
  namespaces: AdminNamespaceSummary[];
}

export interface AdminRunSummary {
  run_id: string;
  status: RunStatus;
  live: boolean;
  keyed: boolean;
  last_event: string | null;
}

export interface AdminRunList {
  /** Every run in the gateway's memory, oldest first. */
  runs: AdminRunSummary[];
}

export interface AdminRunInfo {
  run_id: string;
  status: RunStatus | null;
  live: boolean;
  started: boolean;
  stop_requested: boolean;
  /** request_id of each pending approval, oldest first. */
  pending_approvals: string[];
  pending_steer: string[];
  accept_steer: boolean | null;
  /** The exception text agent.steer() raises (null: it does not raise). */
  steer_raises: string | null;
  acknowledge_stop: boolean | null;
  /** Events waiting in the run's buffer; null once the buffer is gone. */
  buffered_events: number | null;
  /** The scenario playing the run (null: none matched it, or it has finished). */
  scenario: string | null;
}

export interface AdminRunState {
  run_id: string;
  status: RunStatus;
}

/** Hermes's subagent fields (the agent's keyword arguments): Hermes emits its pinned list, non-null, in order. */
export interface AdminSubagentFields {
  [key: string]: JsonValue | undefined;
  preview?: JsonValue;
  goal?: JsonValue;
  task_count?: JsonValue;
  task_index?: JsonValue;
  subagent_id?: JsonValue;
  child_session_id?: JsonValue;
  parent_id?: JsonValue;
  depth?: JsonValue;
  model?: JsonValue;
  tool_count?: JsonValue;
  status?: JsonValue;
  summary?: JsonValue;
  duration_seconds?: JsonValue;
  input_tokens?: JsonValue;
  output_tokens?: JsonValue;
  reasoning_tokens?: JsonValue;
  api_calls?: JsonValue;
  cost_usd?: JsonValue;
  files_read?: JsonValue;
  files_written?: JsonValue;
  output_tail?: JsonValue;
}

/** Names Hermes's progress callback receives but never forwards (the emulator accepts and drops them, as Hermes). */
export type AdminDroppedEventName =
  | '_thinking'
  | 'subagent.thinking'
  | 'subagent.tool'
  | 'subagent.progress'
  | 'subagent_progress'
  | 'moa.reference'
  | 'moa.aggregating'
  | 'reasoning.delta'
  | 'tool.failed';

/**
 * One call of the agent's progress callback. The six forwarded names reach the stream (`arguments` and `result` are
 * recorded with --state-db only); a message.delta with delta null is a tool boundary, dropped.
 */
export type AdminAgentEvent =
  | { event: 'tool.started'; tool: string; preview?: string | null; arguments?: JsonValue }
  | { event: 'tool.completed'; tool: string; duration?: number | null; error?: boolean; result?: string }
  | { event: 'reasoning.available'; text?: string | null }
  | { event: 'message.delta'; delta: string | null }
  | ({ event: 'subagent.start' | 'subagent.complete' } & AdminSubagentFields)
  | { event: AdminDroppedEventName; [key: string]: JsonValue };

export interface AdminEventResult {
  run_id: string;
  event: string;
  /** True when Hermes's callback drops this name (nothing reaches the stream or the status). */
  dropped: boolean;
  /** For a dropped name that looks like a mistake: the route or name probably meant. */
  hint?: string;
  /** Subagent fields outside Hermes's pinned list (accepted, not emitted). */
  ignored_fields?: string[];
}

/** The approval notification dict, key for key in the order given; Hermes adds `request_id` (uuid4 hex) if absent. */
export interface AdminApprovalNotification {
  [key: string]: JsonValue | undefined;
  preset?: undefined;
  command?: string;
  pattern_key?: string;
  pattern_keys?: string[];
  description?: string;
  allow_permanent?: boolean;
  allow_session?: boolean;
  smart_denied?: boolean;
  request_id?: string;
}

/** The emulator builds the approval subsystem's full dict for a dangerous shell command. */
export interface AdminShellApproval {
  preset: 'shell';
  command: string;
  description: string;
  pattern_key?: string;
  pattern_keys?: string[];
  allow_permanent?: boolean;
  allow_session?: boolean;
  smart_denied?: boolean;
  request_id?: string;
}

export type AdminApprovalRequest = AdminApprovalNotification | AdminShellApproval;

/** The `approval.request` event dict, as the stream and the run's `approval` carry it: the notification, then these. */
export interface AdminApprovalEvent {
  [key: string]: JsonValue;
  request_id: string;
  event: 'approval.request';
  run_id: string;
  timestamp: number;
  choices: Array<'once' | 'session' | 'always' | 'deny'>;
}

export interface AdminUsage {
  input_tokens?: number;
  output_tokens?: number;
  /** Default input_tokens + output_tokens. */
  total_tokens?: number;
}

export interface AdminCompletion {
  /** Default "". */
  output?: string | null;
  usage?: AdminUsage | null;
}

export interface AdminFinalAnswer extends AdminCompletion {
  /** The result's pending_steer (null: none); default the steer text accepted since the last tool boundary. */
  pending_steer?: string | null;
}

export interface AdminFailure {
  /** Shown as str(error), redacted; falsy (default) → Hermes's "agent run failed". */
  error?: JsonValue;
}

export interface AdminRaise {
  /** str(exc). */
  message?: string;
  /** error (default): the run fails; provider_auth: Hermes's provider-authentication failure; cancelled: the task is cancelled. */
  kind?: 'error' | 'provider_auth' | 'cancelled';
}

/** `accept`, `raise`, or both. */
export type AdminSteerPolicy =
  | { accept: boolean; raise?: string | null }
  | { accept?: boolean; raise: string | null };

/** What a journaled request did (control-plane requests are not journaled). */
export type AdminRequestOperation =
  | 'submit' | 'get' | 'events' | 'approval' | 'steer' | 'stop' | 'health' | 'capabilities'
  | 'sessions' | 'session_create' | 'session' | 'session_update' | 'session_delete' | 'session_messages' | 'session_fork'
  | 'session_chat' | 'session_chat_stream' | 'session_model_lock' | 'unsupported' | 'other';

/** One request in the namespace's journal: metadata only, never bodies, query strings or headers (but a submit's key). */
export interface AdminJournalEntry {
  /** 1, 2, 3, … in arrival order within the namespace (from 1 again after a reset). */
  seq: number;
  /** When it was answered, on the namespace's clock (epoch seconds). */
  time: number;
  method: string;
  /** After the /ns/<name> prefix, without the query string. */
  path: string;
  operation: AdminRequestOperation;
  status: number;
  /** Wall-clock milliseconds to the answer's head (for an event stream, to its head, not its end). */
  duration_ms: number;
  /** The run the path names; for an admitted submit, the run it was answered with. */
  run_id: string | null;
  /** For a submit answered 202: whether it was an idempotent replay; otherwise null. */
  replayed: boolean | null;
  /** The fault rule that affected the request, if any. */
  fault_id: string | null;
  /** The checkpoint taken right after it (automatic checkpoints on: GET /__admin/timeline), if any. */
  checkpoint: string | null;
  /** A submit's Idempotency-Key as sent (cut at 512 characters): a retry's is its first try's; null otherwise. */
  idempotency_key: string | null;
}

/** Journal filters (a query string); every one narrows. Lists may be arrays or comma-separated. */
export interface AdminRequestFilter {
  operation?: AdminRequestOperation | AdminRequestOperation[] | string;
  /** Statuses (404) and classes ("4xx"). */
  status?: number | string | Array<number | string>;
  run_id?: string;
  method?: string;
  /** Entries answered at or after this namespace-clock time (epoch seconds). */
  since?: number;
  /** Entries with a larger seq (poll without repeats). */
  after?: number;
  /** The most recent `limit` matches (still oldest first). */
  limit?: number;
}

export interface AdminRequestList {
  /** Oldest first. */
  requests: AdminJournalEntry[];
  /** The journal's cap (0: disabled, nothing is recorded). */
  capacity: number;
  /** Entries pushed out by newer ones since the journal was last cleared (non-zero: the list is not complete). */
  evicted: number;
}

/**
 * GET /__admin/openapi.json: the OpenAPI 3.1 document of every Hermes and control route, generated from the route
 * tables and this contract (npm run docs:openapi).
 */
export interface AdminOpenApiDocument {
  [key: string]: JsonValue;
  openapi: string;
  info: { [key: string]: JsonValue; title: string; version: string };
  paths: { [path: string]: { [key: string]: JsonValue } };
}

/** A checkpoint of one namespace (POST /__admin/checkpoints, or automatic: GET /__admin/timeline). */
export interface AdminCheckpoint {
  /** cp_1, cp_2, … in the default namespace; cp_1@<name>, cp_2@<name>, … in namespace <name>. */
  id: string;
  /** The namespace's clock time when it was taken. */
  taken_at: number;
  /** Runs in memory and durable rows it holds. */
  runs: number;
  durable_rows: number;
  /** The branch it was taken on. */
  branch: string;
  /** The checkpoint its state descends from (the nearest one still kept), or null. */
  parent: string | null;
  /** "METHOD /path" of the request it was taken after (an automatic checkpoint); null: taken by POST /__admin/checkpoints. */
  request: string | null;
  /**
   * `namespace`: it holds the namespace's clock, and a restore puts the time back; `caller`: the namespace runs on the
   * clock given to createEmulator({ clock }), whose time a restore leaves as it is (set it to `taken_at` to go back).
   */
  clock: 'namespace' | 'caller';
}

/** GET /__admin/timeline: the namespace's checkpoints as a graph, its branches and its head. */
export interface AdminTimeline {
  /** Whether each request that changed the namespace is followed by a checkpoint (x-hermetic-checkpoint). */
  auto: boolean;
  /** The branch checkpoints are taken on now. */
  branch: string;
  /** The checkpoint the live state descends from: the next one's parent (null after a reset, or before any). */
  head: string | null;
  /** Every branch in order of creation, and its head (null: no checkpoint on it yet). */
  branches: Record<string, string | null>;
  /** Oldest first. */
  checkpoints: AdminCheckpoint[];
  /** Estimated bytes of state the checkpoints hold, and the most they may. */
  bytes: number;
  max_bytes: number;
  max_checkpoints: number;
  /** Checkpoints let go to stay within the bounds (branch heads never are). */
  evicted: number;
  /** Automatic checkpoints not taken: the store was busy, or the state would not fit. */
  skipped: number;
}

/** POST /__admin/timeline. */
export interface AdminTimelineChange {
  /** Take a checkpoint after each request that changed the namespace (Hermes's answers then carry x-hermetic-checkpoint). */
  auto?: boolean;
}

/** POST /__admin/branches/{branch} and …/checkout. */
export interface AdminBranchAt {
  /** The checkpoint (of this namespace) the branch starts at, or is moved to; default: the head (create), the branch's head (checkout). */
  checkpoint?: string;
}

/** A branch and its head. */
export interface AdminBranch {
  branch: string;
  head: string | null;
}

/** POST /__admin/branches/{branch}/checkout. */
export interface AdminCheckout {
  branch: string;
  /** The checkpoint whose state the namespace took (null: the branch had none, and the state stayed). */
  checkpoint: AdminCheckpoint | null;
}

export interface AdminFaultList {
  /** In the order they are tried: this namespace's own (`namespace` null), then those for every namespace (`"*"`). */
  faults: FaultRuleState[];
  /** Requests any rule of this namespace affected since it started (or was last reset). */
  fired_total: number;
}

/** DELETE /__admin/faults. */
export interface AdminFaultsClear {
  /** `"*"`: the rules for every namespace instead of this namespace's own (absent or null, or this namespace's name: its own). */
  namespace?: string | null;
}

export interface AdminFaultPreset {
  name: FaultPresetName;
  description: string;
  /** The rule it stands for; POST /__admin/faults {"preset": name, …} may override any field but `action`. */
  rule: FaultRuleInput;
}

/**
 * The control-plane contract: per route, whether it takes a run id, its body (never: a GET) and its answer.
 * routes.ts checks at compile time that its table has exactly these names, and answers with these fields.
 */
export interface AdminIndex {
  emulator: 'hermetic';
  /** The Hermes release emulated. */
  hermes_release: string;
  /** Every control route, as "METHOD /__admin/…". */
  routes: string[];
  openapi: string;
  console: string;
  docs: string;
}

export interface AdminRoutes {
  /** GET /__admin: the control routes, and where the OpenAPI document, the console and the docs are. */
  index: { run: false; body: never; result: AdminIndex };
  /** GET /__admin/health: Hermetic's identity, its Hermes release and the namespace; never needs the admin key. */
  health: { run: false; body: never; result: AdminHealth };
  /** POST /__admin/clock: set, advance and/or freeze the emulator's clock. */
  clock: { run: false; body: AdminClockChange; result: AdminClockState };
  /** GET /__admin/clock. */
  getClock: { run: false; body: never; result: AdminClockState };
  /** POST /__admin/sweep: Hermes's 60-second retention sweep, now. */
  sweep: { run: false; body: AdminNoFields; result: AdminSweepResult };
  /** POST /__admin/restart: a gateway crash and restart on the same store. */
  restart: { run: false; body: AdminNoFields; result: AdminRestartResult };
  /** POST /__admin/gateway: draining, capacity, API key. */
  gateway: { run: false; body: AdminGatewayChange; result: AdminGatewayState };
  /** GET /__admin/gateway. */
  getGateway: { run: false; body: never; result: AdminGatewayState };
  /** POST /__admin/reset: this namespace (or, with all, every namespace) starts over. */
  reset: { run: false; body: AdminResetChange; result: AdminResetResult };
  /** GET /__admin/openapi.json: this API's OpenAPI 3.1 document (Hermes routes and control routes). */
  openapi: { run: false; body: never; result: AdminOpenApiDocument };
  /** GET /__admin/namespaces: every namespace with its run counts. */
  namespaces: { run: false; body: never; result: AdminNamespaceList };
  /** GET /__admin/runs: every run in the gateway's memory. */
  runs: { run: false; body: never; result: AdminRunList };
  /** GET /__admin/runs/{run_id}: what the fake agent holds for a run. */
  run: { run: true; body: never; result: AdminRunInfo };
  /** POST /__admin/runs/{run_id}/start: starts a queued run now. */
  start: { run: true; body: AdminNoFields; result: AdminRunState };
  /** POST /__admin/runs/{run_id}/event: one progress event. */
  event: { run: true; body: AdminAgentEvent; result: AdminEventResult };
  /** POST /__admin/runs/{run_id}/approval-request: parks the run on an approval. */
  approvalRequest: { run: true; body: AdminApprovalRequest; result: AdminApprovalEvent };
  /** POST /__admin/runs/{run_id}/complete: the agent returns its final answer. */
  complete: { run: true; body: AdminFinalAnswer; result: AdminRunState };
  /** POST /__admin/runs/{run_id}/fail: the agent returns failed. */
  fail: { run: true; body: AdminFailure; result: AdminRunState };
  /** POST /__admin/runs/{run_id}/raise: the agent raises instead of returning. */
  raise: { run: true; body: AdminRaise; result: AdminRunState };
  /** POST /__admin/runs/{run_id}/cancel: the agent returns interrupted (cancelled after a stop, else completed). */
  cancel: { run: true; body: AdminCompletion; result: AdminRunState };
  /** POST /__admin/runs/{run_id}/steer-policy: whether agent.steer() accepts text, or raises. */
  steerPolicy: { run: true; body: AdminSteerPolicy; result: { run_id: string; accept: boolean; raise: string | null } };
  /** POST /__admin/runs/{run_id}/stop-policy: whether a stop's interrupt is honoured. */
  stopPolicy: { run: true; body: { acknowledge: boolean }; result: { run_id: string; acknowledge: boolean } };
  /** POST /__admin/scenarios: adds scenarios (a name already listed is replaced in place) and/or sets the default. */
  scenarios: { run: false; body: AdminScenarioDocument; result: AdminScenarioList };
  /** GET /__admin/scenarios: the namespace's scenarios in matching order, and the default. */
  getScenarios: { run: false; body: never; result: AdminScenarioList };
  /** DELETE /__admin/scenarios: one by name, or every scenario (and the default back to manual). */
  deleteScenarios: { run: false; body: AdminScenarioRemoval; result: AdminScenarioList };
  /** GET /__admin/faults: this namespace's fault rules with their counts. */
  faults: { run: false; body: never; result: AdminFaultList };
  /** POST /__admin/faults: adds one rule, or a named preset with overrides; answers it with its id. */
  addFault: { run: false; body: FaultRuleInput; result: FaultRuleState };
  /** POST /__admin/faults/presets/{preset}: the preset, with the body's fields overriding it. */
  addPreset: { run: false; param: 'preset'; body: Omit<FaultRuleInput, 'preset'>; result: FaultRuleState };
  /** DELETE /__admin/faults: deletes every rule of this namespace (with {"namespace": "*"}: every rule for every namespace). */
  clearFaults: { run: false; body: AdminFaultsClear; result: { deleted: number } };
  /** GET /__admin/faults/presets: the named Hermes faults. */
  faultPresets: { run: false; body: never; result: { presets: AdminFaultPreset[] } };
  /** GET /__admin/faults/{fault_id}: one rule with its counts. */
  fault: { run: false; param: 'fault_id'; body: never; result: FaultRuleState };
  /** DELETE /__admin/faults/{fault_id}: deletes one rule; answers it as it was. */
  deleteFault: { run: false; param: 'fault_id'; body: never; result: FaultRuleState };
  /** POST /__admin/checkpoints: saves this namespace's runs, durable rows, clock, settings, faults and scenarios. */
  checkpoint: { run: false; body: AdminNoFields; result: AdminCheckpoint };
  /** GET /__admin/checkpoints: this namespace's checkpoints, oldest first. */
  checkpoints: { run: false; body: never; result: { checkpoints: AdminCheckpoint[] } };
  /** POST /__admin/checkpoints/{checkpoint_id}/restore: the namespace as it was when the checkpoint was taken. */
  restoreCheckpoint: { run: false; param: 'checkpoint_id'; body: AdminNoFields; result: AdminCheckpoint };
  /** DELETE /__admin/checkpoints/{checkpoint_id}: forgets one checkpoint; answers it as it was. */
  deleteCheckpoint: { run: false; param: 'checkpoint_id'; body: never; result: AdminCheckpoint };
  /** GET /__admin/timeline: the checkpoints as a graph, the branches and the head. */
  timeline: { run: false; body: never; result: AdminTimeline };
  /** POST /__admin/timeline: automatic checkpoints on or off for this namespace. */
  setTimeline: { run: false; body: AdminTimelineChange; result: AdminTimeline };
  /** POST /__admin/branches/{branch}: a new branch at a checkpoint (default: the head); the current branch stays. */
  createBranch: { run: false; param: 'branch'; body: AdminBranchAt; result: AdminBranch };
  /** POST /__admin/branches/{branch}/checkout: the branch becomes the current one, and the namespace takes its head's state. */
  checkout: { run: false; param: 'branch'; body: AdminBranchAt; result: AdminCheckout };
  /** DELETE /__admin/branches/{branch}: forgets a branch (not the current one); its checkpoints stay. */
  deleteBranch: { run: false; param: 'branch'; body: never; result: AdminBranch };
  /** GET /__admin/requests?…: the namespace's request journal, filtered. */
  requests: { run: false; body: never; query: AdminRequestFilter; result: AdminRequestList };
  /** GET /__admin/requests/count?…: how many entries the same filters list. */
  countRequests: { run: false; body: never; query: AdminRequestFilter; result: { count: number } };
  /** DELETE /__admin/requests: forgets the namespace's journal. */
  clearRequests: { run: false; body: AdminNoFields; result: { deleted: number } };
  /** GET /__admin/metrics: every namespace's series, Prometheus text format (answered as a string). */
  metrics: { run: false; body: never; result: string };
  /** DELETE /__admin/metrics: this namespace's request counters start over; the journal stays. */
  resetMetrics: { run: false; body: never; result: { reset: string } };
}

export type AdminRouteName = keyof AdminRoutes;

/** A GET takes no body; a body whose fields are all optional may be left out. */
type BodyArgs<B> = [B] extends [never] ? [] : {} extends B ? [body?: B] : [body: B];

/** A GET with filters takes them as an object, sent as the query string. */
type ArgsOf<E> = E extends { query: infer Q } ? [query?: Q] : E extends { body: infer B } ? BodyArgs<B> : [];

type AdminMethod<E extends AdminRoutes[AdminRouteName]> = E['run'] extends true
  ? (runId: string, ...body: ArgsOf<E>) => Promise<E['result']>
  : E extends { param: string }
    ? (id: string, ...body: ArgsOf<E>) => Promise<E['result']>
    : (...body: ArgsOf<E>) => Promise<E['result']>;

/** One method per control route; each throws AdminClientError when the control plane refuses. */
export type AdminClient = { readonly [N in keyof AdminRoutes]: AdminMethod<AdminRoutes[N]> };

export type FetchLike = (input: Request) => Promise<Response>;

export interface AdminClientOptions {
  /** The server's admin key (--admin-key), sent as x-hermetic-admin-key on every call; null or absent: none. */
  adminKey?: string | null;
}

/**
 * What the admin client throws when the control plane answers non-2xx: the server's HERMETIC_* code and sentence,
 * plus the HTTP status and the route. An answer that is not such an error (a proxy's page, say) is
 * HERMETIC_ADMIN_BAD_ANSWER. It is a HermeticError, so `instanceof HermeticError` and `.code` checks keep working.
 */
export class AdminClientError extends HermeticError {
  /** The HTTP status the control plane answered. */
  readonly httpStatus: number;
  /** The client method that was called. */
  readonly route: AdminRouteName;
  constructor(code: ErrorCode, message: string, httpStatus: number, route: AdminRouteName) {
    super(code, message);
    this.name = 'AdminClientError';
    this.httpStatus = httpStatus;
    this.route = route;
  }
}

function errorOf(parsed: unknown): { code: ErrorCode; message: string } | null {
  if (typeof parsed !== 'object' || parsed === null) return null;
  const error = (parsed as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return null;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code !== 'string' || typeof message !== 'string' || !Object.hasOwn(ERROR_CODES, code)) return null;
  return { code: code as ErrorCode, message };
}

/** `{operation: ['get', 'submit'], limit: 5}` → `?operation=get%2Csubmit&limit=5` (undefined fields left out). */
function queryString(fields: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    params.append(key, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * A check every admin client runs on each answer it receives, before reading it: the test suite installs one that
 * holds answers to the OpenAPI document (test/support/contract.ts, decision 0024). Nothing installs one otherwise.
 */
type AdminAnswerCheck = (answer: { method: string; url: string; status: number; headers: Headers; text: string }) => void;
const ANSWER_CHECK = Symbol.for('hermetic.adminAnswerCheck');

/**
 * @example
 *   const admin = createAdminClient(emulator.fetch, 'http://hermes.test');
 *   await admin.complete(runId, { output: 'Done.', usage: { input_tokens: 50, output_tokens: 200 } });
 *   // against `hermetic serve --admin-key K`:
 *   const remote = createAdminClient(fetch, 'http://127.0.0.1:8642', { adminKey: process.env.HERMETIC_ADMIN_KEY });
 */
export function createAdminClient(fetchImpl: FetchLike, baseUrl: string, options: AdminClientOptions = {}): AdminClient {
  const base = baseUrl.replace(/\/+$/, '');
  const adminKey = options.adminKey ?? null;
  const client: Record<string, unknown> = {};
  for (const route of ADMIN_ROUTES) {
    const name: AdminRouteName = route.name;
    // At most one path parameter (a run, fault or checkpoint id): the method's first argument.
    const param = /\{[a-z_]+\}/.exec(route.path)?.[0] ?? null;
    client[name] = async (...args: unknown[]) => {
      const id = param ? String(args[0]) : undefined;
      const body = param ? args[1] : args[0];
      let path = ADMIN_PREFIX + (param ? route.path.replace(param, encodeURIComponent(id ?? '')) : route.path);
      if (route.method === 'GET' && body && typeof body === 'object') path += queryString(body as Record<string, unknown>);
      const headers: Record<string, string> = {};
      if (adminKey !== null) headers[ADMIN_KEY_HEADER] = adminKey;
      const init: RequestInit = { method: route.method, headers };
      if (route.method !== 'GET') {
        init.body = JSON.stringify(body ?? {});
        headers['Content-Type'] = 'application/json';
      }
      const response = await fetchImpl(new Request(base + path, init));
      const text = await response.text();
      const check = (globalThis as { [ANSWER_CHECK]?: AdminAnswerCheck })[ANSWER_CHECK];
      if (check) check({ method: route.method, url: base + path, status: response.status, headers: response.headers, text });
      if (response.ok && (route as AdminRoute).text) return text;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (response.ok && parsed !== undefined) return parsed;
      const error = response.ok ? null : errorOf(parsed);
      if (error) throw new AdminClientError(error.code, error.message, response.status, name);
      const shown = text.length > 200 ? `${text.slice(0, 200)}…` : text;
      throw new AdminClientError(
        'HERMETIC_ADMIN_BAD_ANSWER',
        `${route.method} ${path} answered ${response.status} with ${JSON.stringify(shown)}, not a control-plane answer.`,
        response.status,
        name,
      );
    };
  }
  return client as AdminClient;
}
