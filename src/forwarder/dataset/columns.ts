// The canonical dataset, defined once: every table and column the forwarder writes, with its meaning. The embedded
// store's DDL, its migrations check and docs/reference/dataset.md are all generated from this list.

export type ColumnType = 'TEXT' | 'INTEGER' | 'REAL' | 'JSON';

export interface DatasetColumn {
  name: string;
  type: ColumnType;
  notNull?: boolean;
  doc: string;
}

export interface DatasetTable {
  name: string;
  doc: string;
  columns: DatasetColumn[];
  primaryKey: string[];
  /**
   * Stored as a clustered b-tree on the primary key (one b-tree per row written: faster bulk writes). Not for a table
   * of long rows: such a b-tree keeps at most ~1 KB of a row on its leaf and spills the rest (decision 0172).
   */
  withoutRowid?: boolean;
  indexes?: string[][];
  /** Internal bookkeeping of the forwarder, not part of the forwarded data. */
  internal?: boolean;
  /** The dataset version that added the table (default 1): its migration creates it (sinks/sqlite/dataset.ts). */
  since?: number;
  /** Its one INTEGER key never reuses a value, even after the rows holding the highest are deleted (AUTOINCREMENT). */
  autoincrement?: boolean;
}

const c = (name: string, type: ColumnType, doc: string, notNull = false): DatasetColumn => ({ name, type, doc, notNull });

const COUNTERS: DatasetColumn[] = [
  c('input_tokens', 'INTEGER', 'Non-cached prompt tokens (net of cache, as Hermes counts them).', true),
  c('output_tokens', 'INTEGER', 'Output tokens.', true),
  c('cache_read_tokens', 'INTEGER', 'Prompt tokens read from the provider cache.', true),
  c('cache_write_tokens', 'INTEGER', 'Prompt tokens written to the provider cache.', true),
  c('reasoning_tokens', 'INTEGER', 'Reasoning tokens (telemetry unless billed separately).', true),
  c('estimated_cost_usd', 'REAL', 'Estimated cost in US dollars (NULL when Hermes has none).'),
  c('actual_cost_usd', 'REAL', 'Billed cost in US dollars when reconciled (NULL when Hermes has none).'),
];

export const SESSIONS: DatasetTable = {
  name: 'sessions',
  doc: 'One row per Hermes session, open ones included, upserted as it changes. Its counters are Hermes\'s own `sessions` counters: summing this table never loses tokens.',
  primaryKey: ['store', 'session_id'],
  indexes: [['last_activity_at'], ['parent_session_id']],
  columns: [
    c('store', 'TEXT', 'Absolute path of the state.db the session was read from, or for a profile on Hermes\'s PostgreSQL backend `postgres://user@host:port/db#schema` (never a password).', true),
    c('session_id', 'TEXT', 'Hermes\'s session id (`sessions.id`, text).', true),
    c('profile', 'TEXT', 'Hermes profile of the store (`default` for the root home).', true),
    c('source', 'TEXT', 'Surface that owns the session (`cli`, `telegram`, `cron`, …).', true),
    c('model', 'TEXT', 'The session\'s current model.'),
    c('provider', 'TEXT', 'Normalized provider of the current billing route (never the raw base URL).', true),
    c('billing_host', 'TEXT', 'Host of `billing_base_url` (the URL itself may hold secrets and is never stored).'),
    c('billing_mode', 'TEXT', 'Pricing basis.'),
    c('scope', 'TEXT', 'Directory that decides the usage policy: `cwd` for interactive sessions, `<hermes home>/channels/<source>` for messaging, `<hermes home>/sources/<source>` for cron and other automation, the parent\'s for delegates; NULL when there is none.'),
    c('policy', 'TEXT', 'Usage policy class that governed the session: `full` or `local-only` (`ignore` sessions are never written).', true),
    c('parent_session_id', 'TEXT', 'Lineage parent.'),
    c('lineage_kind', 'TEXT', '`compression`, `branch`, `delegate`, `reset` or `child` (a parent without a marker); NULL for a root.'),
    c('lineage_root', 'TEXT', 'First session of the lineage chain (the session itself for a root).', true),
    c('is_sidechain', 'INTEGER', '1 for a delegate subagent\'s session (HypAware\'s `is_sidechain`), else 0.', true),
    c('title', 'TEXT', 'Session title.'),
    c('cwd', 'TEXT', 'Working directory Hermes recorded.'),
    c('git_branch', 'TEXT', 'Git branch Hermes recorded at capture.'),
    c('git_repo_root', 'TEXT', 'Git repository root Hermes recorded at capture.'),
    c('system_prompt', 'TEXT', 'System prompt (inline, or joined from `system_prompts` on v25+ stores).'),
    c('started_at', 'REAL', 'Start, epoch seconds.', true),
    c('ended_at', 'REAL', 'End, epoch seconds; NULL while open (a resumed session is open again).'),
    c('end_reason', 'TEXT', 'Why the session ended.'),
    c('last_activity_at', 'REAL', 'Latest of the last message time, Hermes\'s activity heartbeat, the end and the start.', true),
    c('message_count', 'INTEGER', 'Hermes\'s message count.', true),
    c('tool_call_count', 'INTEGER', 'Hermes\'s tool call count: the calls in its live messages (a schema-v2 store counted each assistant message with calls and each tool result once instead; `parts` has the calls).', true),
    c('api_call_count', 'INTEGER', 'LLM API calls (0 on stores older than v8).', true),
    ...COUNTERS,
    c('cost_status', 'TEXT', '`estimated`, `actual`, `included` or `unknown`.'),
    c('cost_source', 'TEXT', 'Where the price came from.'),
    c('rewind_count', 'INTEGER', 'Times the user rewound.', true),
    c('live_messages', 'INTEGER', 'Messages of the live transcript (rows in `messages` for this session with `compacted` 0).', true),
    c('archived_messages', 'INTEGER', 'Rows Hermes archived by in-place compaction (in `messages` with `compacted` 1, except those a live clone carries on).', true),
    c('inactive_messages', 'INTEGER', 'Rows rewound, undone or superseded (not in `messages`).', true),
    c('removed_from_store', 'INTEGER', '1 when Hermes has since deleted the session (its rows here are kept).', true),
    c('origin', 'TEXT', '`backfill` or `forward`: the command that last wrote the row.', true),
    c('attributes', 'JSON', 'Hermes\'s other session fields, by their Hermes names, when set (not NULL, not 0): `created_source`, `chat_type`, `title_source`, `profile_name`, `transport_profile`, `pricing_version`, `model_config` (parsed; credentials masked as `***`, URLs as their host) and `tool_names` (parsed: the tools offered to the model, in the order Hermes sent them, not the ones it called), `last_activity_description`, `last_activity_provenance`, `last_read_at`, `archived`, `pinned`, `hidden`, `expiry_finalized`, `git_metadata_generation`, `handoff_*`, `compression_*`. Who the user and the chat are (`user_id`, `session_key`, `chat_id`, `thread_id`, `display_name`, `origin_json`) stays in the store. NULL on rows written before dataset version 7 until their session is read again.'),
  ],
};

export const MESSAGES: DatasetTable = {
  name: 'messages',
  doc: 'One row per message of the history Hermes shows: the live transcript it replays (active rows) and the messages in-place compaction summarized away (`compacted` = 1; a clone compaction carried on is one message, kept once), bookkeeping rows included and told apart by `kind`; rewound or replaced rows are counted on the session, not listed. The live transcript is `WHERE compacted IS NOT 1 ORDER BY seq`.',
  primaryKey: ['store', 'session_id', 'seq'],
  withoutRowid: false, // decision 0172
  columns: [
    c('store', 'TEXT', 'The state.db it came from.', true),
    c('session_id', 'TEXT', 'Owning session.', true),
    c('message_id', 'INTEGER', 'Hermes\'s row id (`messages.id`), unique in its store.', true),
    c('logical_id', 'INTEGER', 'First row id of the logical message: the same across compaction generations.', true),
    c('seq', 'INTEGER', '0-based position in the history (live and compacted messages, in Hermes\'s row order).', true),
    c('role', 'TEXT', '`user`, `assistant`, `tool`, `system` or `session_meta`.', true),
    c('kind', 'TEXT', '`message` for conversation; `session_meta`, `system`, `compaction_summary`, or Hermes\'s `display_kind` (`steer`, `model_switch`, `hidden`, …) for the rest.', true),
    c('content', 'TEXT', 'Content as Hermes stored it; for structured content the JSON document after the `\\x00json:` sentinel.'),
    c('content_format', 'TEXT', '`text` or `json` (structured content); NULL when there is no content.'),
    c('tool_calls', 'JSON', 'The parsed `tool_calls` array.'),
    c('tool_name', 'TEXT', 'On tool results: the tool that answered (Hermes\'s column, else the answered call\'s name).'),
    c('tool_call_id', 'TEXT', 'On tool results: the call answered.'),
    c('reasoning', 'TEXT', 'Reasoning text from `reasoning`, `reasoning_content` or `reasoning_details`.'),
    c('model', 'TEXT', 'Model that wrote the message (assistant rows only; follows `/model` switches).'),
    c('finish_reason', 'TEXT', 'Why the model stopped.'),
    c('created_at', 'REAL', 'Epoch seconds; a garbage stored time is replaced by the previous message\'s (see `row_issues`).', true),
    c('compacted', 'INTEGER', '1 for a message in-place compaction summarized away (Hermes no longer replays it to the model; it still shows it in the history), 0 for one of the live transcript (NULL on rows written before dataset version 6: all live).'),
    c('attributes', 'JSON', 'Hermes\'s other message fields, when set: `platform_message_id` (the messaging platform\'s own id), `effect_disposition`, `observed` (1: observed input rather than an addressed turn) and `reactions` (from `display_metadata`: each reaction\'s `emoji`, `at`, `seen`, and `author` when it is a role such as `user`, else `other`: who the people are stays in the store). NULL when none is set.'),
  ],
};

export const PARTS: DatasetTable = {
  name: 'parts',
  doc: 'One row per part of a message, in HypAware\'s `ai_gateway_messages` vocabulary, plus one `status` part per end of a session.',
  primaryKey: ['store', 'session_id', 'part_id'],
  withoutRowid: false, // decision 0172
  columns: [
    c('store', 'TEXT', 'The state.db it came from.', true),
    c('session_id', 'TEXT', 'Owning session.', true),
    c('part_id', 'TEXT', '`hermes-<session>-<logical message>-<k>#0`, or `hermes-<session>-session_end-<ended_at>#0`: stable across re-reads and compaction.', true),
    c('message_id', 'INTEGER', 'Hermes\'s row id of the message (NULL for a session-end part).'),
    c('part_index', 'INTEGER', 'Position of the part inside its message (k).', true),
    c('role', 'TEXT', 'Role of the message (`system` for a session end).', true),
    c('part_type', 'TEXT', '`text`, `reasoning`, `tool_call`, `tool_result` or `status`.', true),
    c('content_text', 'TEXT', 'Searchable text: message text, reasoning, tool result; NULL for tool calls.'),
    c('tool_name', 'TEXT', 'Tool of a call, or of the call a result answers.'),
    c('tool_call_id', 'TEXT', 'Call id.'),
    c('tool_args', 'JSON', 'Parsed call arguments.'),
    c('tool_result_for', 'TEXT', 'On results: the call answered.'),
    c('status', 'JSON', 'Finish reason (last part of an assistant message), session end details, or a bookkeeping row\'s kind.'),
    c('model', 'TEXT', 'Model (assistant parts only).'),
    c('created_at', 'REAL', 'Epoch seconds.', true),
    c('attributes', 'JSON', 'Provenance and extras: `hermes.kind`, `hermes.display_kind`, `usage.total_tokens`, `content.native_type`, …'),
    c('program', 'TEXT', 'On a call of the terminal tool (`tool_name` `terminal`): the program its command line runs, as `hermetic report --by command` groups it (decisions 0149, 0152, 0154): the first program the line runs, read with the shell\'s grammar — past `NAME=value` assignments, wrappers (`sudo`, `env`, `timeout`, …), runners that run the program after them (`npx`, `uv run`, `bundle exec`, …) and steps chained before it (`cd DIR &&`, `source …;`, `[ -f x ] &&`), into `bash -c` strings and the bodies of loops and conditionals — by its last path part (`/usr/bin/git` is `git`); `(empty)` when the line runs none, `(no command)` when the arguments hold no `command` text. Named from `tool_args` as stored, by the rules `dataset_meta.program_rules` names, and named again when a Hermetic with other rules opens the dataset. NULL on every other part (NULL everywhere on rows of a dataset before version 15, which its migration names).'),
  ],
};

export const MODEL_USAGE: DatasetTable = {
  name: 'model_usage',
  doc: 'One row per `session_model_usage` row (session × model × billing route × task). Rows with `in_session_totals = 1` (the main loop, task `\'\'`, and per-turn routes Hermes also counts on the session such as `voice_chat`) are already inside `sessions`\' counters; rows with 0 (auxiliary tasks such as title generation, compression, vision) are not, so total spend is SUM over `sessions` plus SUM over `model_usage WHERE in_session_totals = 0`.',
  primaryKey: ['store', 'session_id', 'model', 'provider_key', 'task'],
  withoutRowid: true,
  columns: [
    c('store', 'TEXT', 'The state.db it came from.', true),
    c('session_id', 'TEXT', 'Session.', true),
    c('model', 'TEXT', 'Model.', true),
    c('provider_key', 'TEXT', 'Hermes\'s route key: billing provider, base URL (host and path; a short hash of the whole URL when it also has credentials or a query, which are never stored) and billing mode, joined by `|`.', true),
    c('provider', 'TEXT', 'Normalized provider of the route.', true),
    c('billing_mode', 'TEXT', 'Pricing basis.'),
    c('task', 'TEXT', '`` for the main loop; `title_generation`, `compression`, `vision`, … for auxiliary calls.', true),
    c('in_session_totals', 'INTEGER', '1 when Hermes also counted this usage in the session\'s counters (the main loop, and `voice_chat`).', true),
    c('api_call_count', 'INTEGER', 'Calls.', true),
    ...COUNTERS,
    c('cost_status', 'TEXT', 'Cost certainty.'),
    c('cost_source', 'TEXT', 'Price source.'),
    c('first_seen', 'REAL', 'First call, epoch seconds.'),
    c('last_seen', 'REAL', 'Last call, epoch seconds.'),
  ],
};

export const USAGE_EVENTS: DatasetTable = {
  name: 'usage_events',
  doc: 'The log of usage as it was observed (spec forwarding §6.2 item 13; for reports use `usage_ledger`): one row per observed change of a session\'s cumulative counters, carrying the change. Backfill of a finished session gives one row (0 to its final counters), live forwarding several; both share one ledger per session, so they never count twice. Append-only: a re-read session keeps its events. A counter that went down (Hermes\'s absolute-mode counters after an agent restart) gives 0 for that counter and `clamped = 1`; SUM over this table is usage as it was observed, SUM over `sessions` is Hermes\'s current counters.',
  primaryKey: ['store', 'session_id', 'seq'],
  withoutRowid: true,
  indexes: [['observed_at']],
  columns: [
    c('store', 'TEXT', 'The state.db.', true),
    c('session_id', 'TEXT', 'Session.', true),
    c('event_id', 'TEXT', '`hermes-<session>-usage-<seq>`.', true),
    c('seq', 'INTEGER', '1, 2, … per session.', true),
    c('observed_at', 'REAL', 'The session\'s last activity when the change was seen (from the store, not the wall clock), epoch seconds.', true),
    c('model', 'TEXT', 'The session\'s model when the change was seen.'),
    c('provider', 'TEXT', 'Normalized provider of the route when the change was seen.', true),
    c('api_call_count', 'INTEGER', 'Calls in this change.', true),
    ...COUNTERS.map((col) => ({ ...col, doc: `Change of ${col.name} (${col.doc.charAt(0).toLowerCase()}${col.doc.slice(1)})` })),
    c('cost_status', 'TEXT', 'Cost certainty when seen.'),
    c('cost_source', 'TEXT', 'Price source when seen.'),
    c('billing_mode', 'TEXT', 'Pricing basis when seen.'),
    c('clamped', 'INTEGER', '1 when a counter went down and its change was counted as 0.', true),
    c('origin', 'TEXT', '`backfill` or `forward`.', true),
  ],
};

export const DAILY_USAGE: DatasetTable = {
  name: 'daily_usage',
  doc: 'One row per `session_daily_usage` row (session × local day), where the store has that table: usage of long sessions attributed to the day it happened.',
  primaryKey: ['store', 'session_id', 'day'],
  withoutRowid: true,
  columns: [
    c('store', 'TEXT', 'The state.db.', true),
    c('session_id', 'TEXT', 'Session.', true),
    c('day', 'TEXT', '`YYYY-MM-DD`, the machine\'s local day as Hermes computed it.', true),
    c('api_call_count', 'INTEGER', 'Calls that day.', true),
    ...COUNTERS,
  ],
};

const LEDGER_KEYS: DatasetColumn[] = [
  c('store', 'TEXT', 'The state.db.', true),
  c('session_id', 'TEXT', 'Session.', true),
  c('at', 'INTEGER', 'Start of the cell, epoch seconds: a UTC hour, cut where a local midnight falls inside it (zones 30 or 45 minutes off the hour). Windows compare with it.', true),
  c('day', 'TEXT', '`YYYY-MM-DD`, the local day of the cell in the ledger\'s time zone (`dataset_meta.ledger_time_zone`: `HERMETIC_TZ`, else the machine\'s).', true),
  c('day_utc', 'TEXT', '`YYYY-MM-DD`, the UTC day of the cell.', true),
  c('profile', 'TEXT', 'Hermes profile of the store.', true),
  c('source', 'TEXT', 'Surface that owns the session (`cli`, `telegram`, `cron`, …).', true),
  c('project', 'TEXT', 'The session\'s git repository root, else its working directory; NULL when Hermes recorded neither.'),
];

export const USAGE_LEDGER: DatasetTable = {
  name: 'usage_ledger',
  since: 3,
  doc: 'The usage ledger (decision 0031): every token and dollar Hermes recorded, once, by cell of time (local and UTC day), model, route, task and session. The main loop is the session\'s counters (`sessions`), split by its `session_model_usage` main rows (`basis` `route`) with the rest on the session\'s own model (`session`); auxiliary tasks (`auxiliary`) are added on top. Where newer Hermes recorded its calls (`session_model_usage_events`, kept as `call_usage`), what they recorded is placed at their hours, on their routes; the rest of each amount is laid along the days `session_daily_usage` names and the cells its messages were written in. So SUM over any grouping of it equals SUM over `sessions` plus the auxiliary rows of `model_usage`, for every counter and both costs, open sessions included. A session with no usage at all has one empty row (`none`) where it was last active. Rebuilt for a session from the dataset\'s own tables whenever the session is written.',
  // Clustered by time: a report's window reads one stretch of the table; a session's rows are found by the index.
  primaryKey: ['at', 'store', 'session_id', 'task', 'basis', 'model', 'provider_key'],
  withoutRowid: true,
  indexes: [['store', 'session_id']],
  columns: [
    ...LEDGER_KEYS,
    c('model', 'TEXT', 'Model (empty when Hermes recorded none).', true),
    c('provider', 'TEXT', 'Normalized provider of the billing route.', true),
    c('provider_key', 'TEXT', 'Hermes\'s route key, as in `model_usage`; empty for usage attributed to the session\'s own route.', true),
    c('billing_mode', 'TEXT', 'Pricing basis.'),
    c('task', 'TEXT', '`main` for the main loop (Hermes\'s empty task); `title_generation`, `compression`, `vision`, … for auxiliary calls.', true),
    c('basis', 'TEXT', 'Where the amount comes from: `route` (a main-loop `session_model_usage` row), `session` (the session\'s counters beyond its routes, on its own model), `auxiliary` (an auxiliary-task row), `none` (a session without usage).', true),
    c('api_calls', 'INTEGER', 'LLM API calls.', true),
    ...COUNTERS.slice(0, 5),
    c('estimated_cost_usd', 'REAL', 'Estimated cost in US dollars (0 when Hermes estimated none).', true),
    c('actual_cost_usd', 'REAL', 'Billed cost in US dollars; NULL where Hermes recorded none (a session whose `actual_cost_usd` is NULL, an auxiliary row whose actual cost is 0 and whose `cost_status` is not `actual`).'),
    c('cost_usd', 'REAL', 'The cost a report shows: `actual_cost_usd` where Hermes recorded a billed cost, else `estimated_cost_usd`.', true),
  ],
};

export const TOOL_USAGE: DatasetTable = {
  name: 'tool_usage',
  since: 3,
  doc: 'Tool calls by cell of time, session and tool (from `parts`), with the tool results that say they failed (a JSON object whose `exit_code` is not 0, whose `error` is set, whose `success` is false or whose `status` is `error` or `failed`). Rebuilt with the session\'s `usage_ledger` rows.',
  primaryKey: ['at', 'store', 'session_id', 'tool_name'],
  withoutRowid: true,
  indexes: [['store', 'session_id']],
  columns: [
    ...LEDGER_KEYS,
    c('tool_name', 'TEXT', 'Tool (empty when unknown).', true),
    c('calls', 'INTEGER', 'Tool calls.', true),
    c('errors', 'INTEGER', 'Tool results that say the call failed (where known).', true),
  ],
};

export const DELEGATIONS: DatasetTable = {
  name: 'delegations',
  since: 8,
  doc: 'One row per background subagent dispatch Hermes recorded in `async_delegations` (decision 0054), upserted as it changes: its state, its delivery back to the parent\'s chat, its times, the task and what came back. Hermes keeps only the recent ones (delivered rows a week, about 50 finished ones); a row it deletes stays here, marked `removed_from_store`, so fan-out can be analysed over the whole history. Where the gateway routed the result (`origin_session`, the chat\'s routing key) and the owner process stay in the store.',
  primaryKey: ['store', 'delegation_id'],
  indexes: [['store', 'parent_session_id'], ['dispatched_at']],
  columns: [
    c('store', 'TEXT', 'The state.db it came from.', true),
    c('delegation_id', 'TEXT', 'Hermes\'s `async_delegations.delegation_id`.', true),
    c('parent_session_id', 'TEXT', 'The delegating agent\'s session (`sessions.session_id`; its own session is a `subagent` child of it); NULL when Hermes recorded none.'),
    c('origin_ui_session_id', 'TEXT', 'The TUI or desktop tab the dispatch came from (Hermes\'s UI session id, not a session of this dataset); NULL when none (`\'\'` in the store).'),
    c('state', 'TEXT', 'Hermes\'s state: `running`, then `completed`, `error`, `interrupted`, `stalled`, `timeout`, or `unknown` (its owner process died first); other values as Hermes wrote them.'),
    c('delivery_state', 'TEXT', 'Whether the result reached the parent\'s chat: `pending`, `delivered` or `dropped`.'),
    c('delivery_attempts', 'INTEGER', 'Delivery attempts so far (Hermes drops the result after 8).'),
    c('dispatched_at', 'REAL', 'When the task was handed to the subagent, epoch seconds.'),
    c('completed_at', 'REAL', 'When it finished, epoch seconds; NULL while running.'),
    c('updated_at', 'REAL', 'When Hermes last changed the row (a state or a delivery claim), epoch seconds.'),
    c('delivered_at', 'REAL', 'When the result was delivered, epoch seconds.'),
    c('duration_seconds', 'REAL', '`completed_at - dispatched_at`, when both are plausible times and the first is not before the second; else NULL.'),
    c('goal', 'TEXT', 'The task given (`task_json.goal`, else the completion event\'s; a batch\'s goals one per line). Transcript text: redacted when the dataset is.'),
    c('summary', 'TEXT', 'What the subagent answered (the completion event\'s `summary`, else `result_json`\'s; a batch\'s children\'s summaries, a blank line between them). Transcript text: redacted when the dataset is.'),
    c('error', 'TEXT', 'Why it failed (the event\'s or result\'s `error`; a batch\'s children\'s errors, a blank line between them). Redacted when the dataset is.'),
    c('attributes', 'JSON', 'The task\'s and outcome\'s other fields, by Hermes\'s names, when set: `context` (the parent\'s context for the task: transcript text, redacted when the dataset is), `toolsets`, `role`, `model`, `is_batch`, `api_calls`, `exit_reason`, `duration_seconds` (Hermes\'s own figure), `total_duration_seconds`, `stall_phase`, `stalled_after_quiet_seconds`, `stall_threshold_seconds`, `stall_grace_seconds`, and per child of a batch `results` (`task_index`, `status`, `exit_reason`, `api_calls`, `duration_seconds`, `summary_truncated`). Who the user and the chat are (`session_key`, `user_id`, `user_name`, `scope_id`), local paths and the processes\' commands and output stay in the store.'),
    c('policy', 'TEXT', 'Usage policy class of the delegating session\'s scopes when the row was written: `full` or `local-only` (rows of an `ignore` scope are never written; a parent the store does not have makes it `local-only`).', true),
    c('removed_from_store', 'INTEGER', '1 once Hermes has deleted the row (it prunes finished delegations): kept here.', true),
    c('origin', 'TEXT', '`backfill` or `forward`: the command that last wrote the row.', true),
  ],
};

export const ROW_ISSUES: DatasetTable = {
  name: 'row_issues',
  doc: 'Every problem found in a Hermes row and how it was handled (a garbage time replaced, invalid JSON left out): nothing is dropped silently, and no value is changed without a row here — BLOB or invalid UTF-8 text; a number stored as content or as a tool call\'s id or name (kept as text); `tool_calls` elements that are not calls; `reasoning_details` that is not JSON (kept as the reasoning text); counters that are negative, not numbers, fractions of a token or beyond what the usage ledger counts exactly (2^53 - 1 tokens, $900,719.93); `session_daily_usage.day` values that are no date (their usage is spread as usage without a day is); usage times that are not plausible; in `async_delegations` rows, times that are not plausible, attempts that are not whole numbers or below 0, and JSON documents that do not parse or are no object (`field` `async_delegations.<column>`, `session_id` the delegation\'s id).',
  primaryKey: ['store', 'session_id', 'message_id', 'field'],
  withoutRowid: true,
  columns: [
    c('store', 'TEXT', 'The state.db.', true),
    c('session_id', 'TEXT', 'Session; for a problem in an `async_delegations` row, the delegation\'s id.', true),
    c('message_id', 'INTEGER', 'Hermes row id (0 for a session-level problem or a delegation\'s).', true),
    c('field', 'TEXT', 'Column with the problem.', true),
    c('problem', 'TEXT', 'What was wrong and what was done.', true),
  ],
};

export const STORES: DatasetTable = {
  name: 'stores',
  internal: true,
  doc: 'Each state.db the forwarder has read: identity, cursor and health (what `hermetic status` shows).',
  primaryKey: ['store'],
  columns: [
    c('store', 'TEXT', 'Absolute path of the state.db, or `postgres://user@host:port/db#schema` for a PostgreSQL profile.', true),
    c('profile', 'TEXT', 'Hermes profile.', true),
    c('identity', 'TEXT', 'Device and inode, schema version and `state_meta.db_file_generation`: a change means the file was replaced and is re-read whole.'),
    c('schema_version', 'INTEGER', 'Hermes schema version.'),
    c('journal_mode', 'TEXT', '`wal` or `delete`.'),
    c('read_mode', 'TEXT', '`in-place` (read-only connection) or `copy` (a private copy, when SQLite would have had to create files beside the store).'),
    c('max_message_id', 'INTEGER', 'Highest Hermes message id seen: the cursor of new rows.', true),
    c('usage_stamp', 'TEXT', 'Rows, calls, tokens and newest `last_seen` of `session_model_usage` when last read: auxiliary usage changes only that table. Ends `+calls` where the store has newer Hermes\'s per-call table (decision 0112).'),
    c('delegation_marks', 'JSON', 'What `async_delegations` held when last read (decision 0054): a stamp of the whole table (rows per state and delivery state, sums of times and attempts), checked every pass, and a digest per row, so only rows that changed are read and written and rows Hermes deleted are marked `removed_from_store`. NULL: not read yet (every row is read on the next pass).'),
    c('last_tick_at', 'REAL', 'End of the last successful read, epoch seconds.'),
    c('last_error', 'TEXT', 'Last error reading this store (cleared by a good read).'),
    c('hermes_home', 'TEXT', 'The Hermes home the store belongs to (the folder of its state.db, or of a PostgreSQL profile\'s config.yaml): channel and source scopes hang under it, so `hermetic forget` judges a session by the scopes `forward` judged it by. NULL on rows written before dataset version 9 until the store is read again.'),
    c('unread', 'JSON', 'The sessions the last complete pass left unread because they were outside its window (`backfill --since/--until`), new or changed since last read: an array of up to two spans, `{"sessions", "from", "to"}` (those active only before the window, those started after it), each how many and from the earliest start to the latest activity among them (epoch seconds). A report over that span is missing them, and says so. NULL: none (the pass had no window, or it left nothing out).'),
  ],
};

export const BACKFILL_UNREAD: DatasetTable = {
  name: 'backfill_unread',
  internal: true,
  since: 13,
  doc: 'The sessions windowed backfills left unread, over every store, so the fleet store knows them too (decision 0102): one row, kept from `stores.unread` by the sink in the transaction that writes a store\'s row (only when it changes), shipped to remote sinks. Only the numbers leave: no store path, no id.',
  primaryKey: ['scope'],
  columns: [
    c('scope', 'TEXT', 'Always `stores` (the dataset\'s stores together): one row per dataset, and so one per machine in the fleet store.', true),
    c('stores', 'JSON', 'One element per store whose `stores.unread` holds spans, in store order: that store\'s spans as `{"sessions", "from", "to"}` (numbers only). `[]`: no store has any.', true),
  ],
};

export const CURSORS: DatasetTable = {
  name: 'session_cursors',
  internal: true,
  doc: 'Per session, the fingerprint of what was last written: a session whose fingerprint has not changed is not read again.',
  primaryKey: ['store', 'session_id'],
  columns: [
    c('store', 'TEXT', 'The state.db.', true),
    c('session_id', 'TEXT', 'Session.', true),
    c('fingerprint', 'TEXT', 'Counters, end, activity and newest message id of the session when it was written.', true),
    c('max_message_id', 'INTEGER', 'Highest message id of the session when written.', true),
    c('usage_mark', 'TEXT', 'Rows, calls and newest `last_seen` of the session\'s `session_model_usage` when written (auxiliary usage changes only that table); ending `+calls` where the store has newer Hermes\'s per-call table (decision 0112).', true),
    c('ledger', 'JSON', 'The usage ledger\'s last observed counters and sequence number (kept when the store is replaced or the session removed, so nothing is counted twice).'),
    c('tail', 'JSON', 'Where the session\'s transcript was last projected to (counts, the last good time, recent calls, a rolling hash with checkpoints): the next write is a delta against it (decision 0032). NULL: the next write replaces the session\'s rows.'),
  ],
};

export const QUARANTINE: DatasetTable = {
  name: 'quarantine',
  internal: true,
  doc: 'Sessions that failed to project, retried with backoff and shown by `hermetic status`.',
  primaryKey: ['store', 'session_id'],
  columns: [
    c('store', 'TEXT', 'The state.db.', true),
    c('session_id', 'TEXT', 'Session.', true),
    c('failures', 'INTEGER', 'Consecutive failures.', true),
    c('last_error', 'TEXT', 'The last failure.', true),
    c('retry_at', 'REAL', 'Not retried before this time, epoch seconds.', true),
  ],
};

export const SESSION_ACTIVITY: DatasetTable = {
  name: 'session_activity',
  internal: true,
  since: 3,
  doc: 'Messages of each session per quarter of an hour: counted by the forwarder as it inserts messages, uncounted by triggers on `messages` whatever deletes or changes one. When a session\'s usage is attributed to time, this is read instead of its messages.',
  primaryKey: ['store', 'session_id', 'quarter'],
  withoutRowid: true,
  columns: [
    c('store', 'TEXT', 'The state.db.', true),
    c('session_id', 'TEXT', 'Session.', true),
    c('quarter', 'INTEGER', '`created_at / 900`, rounded down.', true),
    c('messages', 'INTEGER', 'Messages written in it.', true),
    c('assistant', 'INTEGER', 'Assistant messages among them.', true),
  ],
};

export const CALL_USAGE: DatasetTable = {
  name: 'call_usage',
  internal: true,
  since: 14,
  doc: 'Newer Hermes\'s per-call usage (`session_model_usage_events`, one row per API call with its time; decision 0112), summed per session, quarter of an hour, route and task, where the store has that table: what the usage ledger places usage in time by. Replaced with the session\'s `daily_usage` rows.',
  primaryKey: ['store', 'session_id', 'quarter', 'task', 'model', 'provider_key'],
  withoutRowid: true,
  columns: [
    c('store', 'TEXT', 'The state.db.', true),
    c('session_id', 'TEXT', 'Session.', true),
    c('quarter', 'INTEGER', '`recorded_at / 900`, rounded down.', true),
    c('model', 'TEXT', 'Model of the calls, as in `model_usage`.', true),
    c('provider_key', 'TEXT', 'Route key, as in `model_usage` (the calls of a route share its row\'s key).', true),
    c('task', 'TEXT', 'Hermes\'s task (empty: the main loop).', true),
    c('calls', 'INTEGER', 'Hermes rows summed here.', true),
    c('api_call_count', 'INTEGER', 'API calls they record.', true),
    ...COUNTERS.slice(0, 5),
    c('estimated_cost_usd', 'REAL', 'Estimated cost in US dollars.', true),
    c('actual_cost_usd', 'REAL', 'Billed cost in US dollars (0 where Hermes recorded none).', true),
  ],
};

export const TOOL_ACTIVITY: DatasetTable = {
  name: 'tool_activity',
  internal: true,
  since: 3,
  doc: 'Tool calls and failed tool results of each session per quarter of an hour and tool: counted by the forwarder as it inserts parts, uncounted by triggers on `parts` whatever deletes or changes one.',
  primaryKey: ['store', 'session_id', 'quarter', 'tool_name'],
  withoutRowid: true,
  columns: [
    c('store', 'TEXT', 'The state.db.', true),
    c('session_id', 'TEXT', 'Session.', true),
    c('quarter', 'INTEGER', '`created_at / 900`, rounded down.', true),
    c('tool_name', 'TEXT', 'Tool (empty when unknown).', true),
    c('calls', 'INTEGER', 'Tool calls.', true),
    c('errors', 'INTEGER', 'Tool results that say the call failed.', true),
  ],
};

export const TOOL_CALLS: DatasetTable = {
  name: 'tool_calls',
  internal: true,
  since: 11,
  doc: 'Each tool call id of each session with the times of its call and of its first result (decision 0069): what the dashboard\'s slowest tool calls are read from, instead of every tool part. Counted by the forwarder as it inserts parts; triggers on `parts` take back what any delete or change removes, and a call whose earliest time or tool name may have gone with a duplicate of its id is marked `stale` and counted again from `parts` before the transaction ends (after a hand edit, when the forwarder next writes; until then the dashboard groups `parts` itself).',
  primaryKey: ['store', 'session_id', 'call_id'],
  withoutRowid: true,
  columns: [
    c('store', 'TEXT', 'The state.db.', true),
    c('session_id', 'TEXT', 'Session.', true),
    c('call_id', 'TEXT', 'The call id: `parts.tool_call_id` of its calls, `parts.tool_result_for` of its results.', true),
    c('tool', 'TEXT', 'The greatest tool name among its calls (one call: its tool); NULL when none has a name.'),
    c('called', 'REAL', 'The earliest of its calls, epoch seconds; NULL when only results carry the id.'),
    c('answered', 'REAL', 'The earliest of its results, epoch seconds; NULL while unanswered.'),
    c('calls', 'INTEGER', 'Tool-call parts with this id.', true),
    c('results', 'INTEGER', 'Tool-result parts with this id.', true),
    c('stale', 'INTEGER', '1 while `tool`, `called` or `answered` may be out of date (a part holding one of them was deleted and others with the id remain): never left so by the forwarder\'s own writes.', true),
  ],
};

export const ROW_COUNTS: DatasetTable = {
  name: 'row_counts',
  internal: true,
  since: 11,
  doc: 'Rows of each forwarded table, kept exact in the transaction that changes them (decision 0069), so `hermetic status` reads ten numbers instead of counting a million rows: the forwarder adds what its inserts add, triggers take off every row any delete removes (a replaced row included). Rows another program inserts are not counted (nor are they in the activity tables or the ledger): the dataset is the forwarder\'s to write.',
  primaryKey: ['tbl'],
  columns: [
    c('tbl', 'TEXT', 'The table.', true),
    c('rows', 'INTEGER', 'Its rows.', true),
  ],
};

export const DATASET_META: DatasetTable = {
  name: 'dataset_meta',
  internal: true,
  since: 3,
  doc: 'Settings the dataset was built with: `ledger_time_zone` (the zone of `usage_ledger.day`; the ledger is rebuilt when the forwarder runs with another), `ledger_rules` (the version of the attribution rules), `program_rules` (the version of the rules that named `parts.program`, decision 0152) and `redact` (`on` once text was written through the secret redactor: every later run redacts too).',
  primaryKey: ['key'],
  columns: [
    c('key', 'TEXT', 'Setting.', true),
    c('value', 'TEXT', 'Its value.'),
  ],
};

export const REMOTE_SINKS: DatasetTable = {
  name: 'remote_sinks',
  internal: true,
  since: 4,
  doc: 'Each remote sink the dataset feeds (PostgreSQL, OTLP, another SQLite file; decision 0035) and its own cursor in `change_log`: what `hermetic status` shows. While any row is here, triggers on the shipped tables fill `change_log`.',
  primaryKey: ['sink_id'],
  columns: [
    c('sink_id', 'TEXT', 'The sink\'s identity: its kind and URL without credentials.', true),
    c('display', 'TEXT', 'The URL as shown, any password replaced by `***`.', true),
    c('acked_seq', 'INTEGER', 'Every `change_log` entry up to this sequence number is at the sink.', true),
    c('snapshot', 'JSON', 'While the sink\'s first copy of the dataset is under way: `{"table": …, "after": [key…]}`, the last row it acknowledged in key order; NULL once done.'),
    c('registered_at', 'REAL', 'When the sink was first given, epoch seconds.', true),
    c('acked_at', 'REAL', 'Its last acknowledged batch, epoch seconds.'),
    c('caught_up_at', 'REAL', 'The last time it held everything the dataset held, epoch seconds: the lag in seconds counts from it.'),
    c('shipped_rows', 'INTEGER', 'Rows upserted and keys deleted at the sink so far.', true),
    c('failures', 'INTEGER', 'Consecutive failed attempts (0 after a success).', true),
    c('last_error', 'TEXT', 'The last failure, in words (never a password); NULL after a success.'),
    c('retry_at', 'REAL', 'A sink that failed retriably is not tried before this, epoch seconds.'),
  ],
};

export const CHANGE_LOG: DatasetTable = {
  name: 'change_log',
  internal: true,
  since: 4,
  autoincrement: true,
  doc: 'The keys of rows written or removed in the shipped tables, in order, kept by triggers only while a remote sink is registered (decision 0035); entries every sink acknowledged are pruned.',
  primaryKey: ['seq'],
  columns: [
    c('seq', 'INTEGER', 'Sequence number: increases with every change and is never reused.', true),
    c('tbl', 'TEXT', 'The table changed.', true),
    c('key', 'JSON', 'The row\'s primary key, as a JSON array in the table\'s key order.', true),
    c('note', 'TEXT', 'For `sessions`: the usage policy of the row written or removed (a session becoming `local-only`, or `full` again, moves all its rows).'),
  ],
};

/** Every table, forwarded data first. */
export const DATASET_TABLES: readonly DatasetTable[] = [SESSIONS, MESSAGES, PARTS, MODEL_USAGE, USAGE_EVENTS, DAILY_USAGE, USAGE_LEDGER, TOOL_USAGE, DELEGATIONS, ROW_ISSUES, STORES, BACKFILL_UNREAD, CURSORS, QUARANTINE, SESSION_ACTIVITY, TOOL_ACTIVITY, DATASET_META, REMOTE_SINKS, CHANGE_LOG, TOOL_CALLS, ROW_COUNTS, CALL_USAGE];

/**
 * The dataset's schema version: bump it with a migration in sinks/sqlite/dataset.ts (and `since` on new tables).
 * 2: session_cursors.tail (decision 0032); 3: the usage ledger (decision 0031); 4: remote sinks and the change log
 * (decision 0035); 5: the sink counts the activity of what it inserts, the per-row insert triggers dropped (decision 0040);
 * 6: messages.compacted, the history in-place compaction summarized away kept (decision 0048); 7: sessions.attributes and
 * messages.attributes (decision 0050); 8: delegations and stores.delegation_marks (decision 0054); 9: stores.hermes_home;
 * 10: stores.unread (decision 0062); 11: tool_calls and row_counts, kept by the writer (decision 0069); 12: row_issues
 * shipped to remote sinks (its change-log triggers; decision 0092); 13: backfill_unread, what windowed backfills left unread,
 * kept from stores.unread and shipped (decision 0102); 14: call_usage, newer Hermes's per-call usage by quarter hour,
 * which the ledger places usage in time by (decision 0112); 15: parts.program, the program of each terminal call, and
 * the index of the terminal tool's parts (decision 0152); 16: `messages` and `parts` stored as rowid tables, their
 * columns unchanged (decision 0172).
 */
export const DATASET_VERSION = 16;

/**
 * Versions whose migration changed only how tables are stored, not their columns: an export made at the version before
 * one of them holds the same tables (export/parquet/export.ts).
 */
export const STORAGE_ONLY_VERSIONS: ReadonlySet<number> = new Set([16]);

/** The version whose columns dataset version `v` has: `v`, or the last before it that changed a column. */
export function columnsVersion(v: number): number {
  while (STORAGE_ONLY_VERSIONS.has(v)) v--;
  return v;
}

export type RecordOf = Record<string, unknown>;
