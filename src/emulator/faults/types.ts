// The JSON shapes of fault rules: what POST /__admin/faults, the `faults` option and `hermetic serve --faults FILE`
// accept, and what the control plane lists. Types only and no imports, so the admin client can re-export them
// without reaching server internals. Rule fields are snake_case like every control body (decision 0021).

/** What a rule matches: the request's operation as describeRequest names it (`admin` is never faulted). */
export type FaultOperation =
  | 'submit'
  | 'get'
  | 'events'
  | 'approval'
  | 'steer'
  | 'stop'
  | 'health'
  | 'capabilities'
  | 'sessions'
  | 'session_create'
  | 'session'
  | 'session_update'
  | 'session_delete'
  | 'session_messages'
  | 'session_fork'
  | 'session_chat'
  | 'session_chat_stream'
  | 'session_model_lock'
  | 'unsupported'
  | 'other';

/**
 * - `respond`: answer with `status`, `body`, `headers` instead of Hermes (the request never reaches it).
 * - `delay`: wait `seconds` (on the namespace's clock, or in wall time), before the request is handled or after;
 *   later rules still match.
 * - `server_error`: aiohttp's 500 page, as when a Hermes handler raises (HTML when `Accept` names text/html, else
 *   text), and the connection closes: byte for byte the emulator's own 500 (the request never reaches Hermes).
 * - `drop`: the connection is dropped without an answer (the request never reaches Hermes).
 * - `admit_then_drop`: Hermes handles the request (a submit admits its run), then the connection drops before the
 *   answer; spent only by a 2xx answer.
 * - `sse_drop`: an event stream's connection drops after `after_events` events (no `: stream closed`, no `done`).
 * - `sse_stall`: an event stream sends `after_events` events, then nothing more (no events, keep-alives or end).
 *   Both apply to `events` (the default) and to `session_chat_stream`; a rule for any other operation is refused.
 * - `throttle`: Hermes's own capacity check refuses (429, `Retry-After: 1`) at its place in POST /v1/runs: after
 *   validation and the idempotency lookup, so a replay or a 400 is answered as before and does not spend the rule.
 * - `drain`: Hermes's own draining check refuses (503, `Retry-After: 1`) at its place: right after auth, replays too.
 */
export type FaultAction =
  | 'respond'
  | 'server_error'
  | 'delay'
  | 'drop'
  | 'admit_then_drop'
  | 'sse_drop'
  | 'sse_stall'
  | 'throttle'
  | 'drain';

export type FaultPresetName =
  | 'hermes_submit_accepted_drop'
  | 'hermes_submit_drop'
  | 'hermes_throttled'
  | 'hermes_draining'
  | 'hermes_slow_poll'
  | 'hermes_poll_timeout'
  | 'hermes_events_drop'
  | 'hermes_events_stall'
  | 'hermes_server_error';

/** Any JSON value (a `respond` body other than a string is sent as Python's json.dumps, as Hermes writes JSON). */
export type FaultJson = string | number | boolean | null | FaultJson[] | { [key: string]: FaultJson };

/** A rule as given: every field optional; `preset` fills in the rest, and the other fields override it. */
export interface FaultRuleInput {
  /** Letters, digits, '.', '_', '-' (default fault_<n>); adding an id again replaces that rule and its count. */
  id?: string;
  preset?: FaultPresetName;
  /** Match: the request's operation (null or absent: any). */
  operation?: FaultOperation | null;
  /** Match: the HTTP method (any case). */
  method?: string | null;
  /** Match: the path starts with this (the path without its /ns/<name> prefix or query string). */
  path_prefix?: string | null;
  /** Match: the run id the path names. */
  run_id?: string | null;
  /**
   * Which namespaces it applies to: absent or null, the namespace it is added to (in the `faults` option: each
   * namespace, with counts of its own); `"*"`, every namespace — one rule, one count, tried after each namespace's own
   * rules; a namespace's name, that namespace only (on the control plane, only the namespace the request is for).
   */
  namespace?: string | null;
  /** How many requests it may affect (null or absent: no limit; presets: 1). */
  times?: number | null;
  /** Fire for this share of the matching requests, drawn from the namespace's seed (null: always). */
  probability?: number | null;
  /** Draw this rule's probability from this seed instead of the namespace's. */
  seed?: string | null;
  action?: FaultAction;
  /** respond: the status (200 … 599). */
  status?: number;
  /** respond: a string is sent as it is (text/plain unless headers say), null sends no body, other JSON as JSON. */
  body?: FaultJson;
  /** respond: extra headers, in order. */
  headers?: Record<string, string>;
  /** delay: how long. */
  seconds?: number;
  /** delay: `virtual` (default: the namespace's clock; a frozen clock waits until moved) or `wall`. */
  clock?: 'virtual' | 'wall';
  /** delay: `before` (default) the request is handled, or `after` (the answer waits). */
  when?: 'before' | 'after';
  /** sse_drop, sse_stall: events sent first (default 0; the hermes_events_drop preset: 1). */
  after_events?: number;
}

/** A rule as the control plane lists it: every match field present, action fields for its action only. */
export interface FaultRule {
  id: string;
  /** The preset it was made from, if any. */
  preset: FaultPresetName | null;
  operation: FaultOperation | null;
  method: string | null;
  path_prefix: string | null;
  run_id: string | null;
  /** `"*"`: a rule for every namespace (listed in each, after the namespace's own); null: this namespace's own. */
  namespace: string | null;
  times: number | null;
  probability: number | null;
  seed: string | null;
  action: FaultAction;
  status?: number;
  /** The exact text sent (null: no body). */
  body?: string | null;
  headers?: Record<string, string>;
  seconds?: number;
  clock?: 'virtual' | 'wall';
  when?: 'before' | 'after';
  after_events?: number;
}

/** A listed rule with its counters. */
export interface FaultRuleState extends FaultRule {
  /** Requests it affected. */
  fired: number;
  /** How many more it may affect (null: no limit). */
  remaining: number | null;
}
