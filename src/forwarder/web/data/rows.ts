// What both sources (sqlite.ts, postgres.ts) share: the columns a session shows, a transcript row as the page gets it,
// and the slowest-calls query (written once, with @name parameters each dialect binds).
import { HermeticError } from '../../../shared/errors.js';
import type { Attributes, CutLength, DelegationRow, SessionDetail, SessionRow, SlowCall, TextField, TranscriptMessage, TranscriptPage } from './source.js';
import { callIdSql } from '../../sinks/sqlite/tool-calls.js';
import { startedByParent } from '../../report/query.js';
import { postgresOrder } from '../../report/dialect.js';

export const SESSION_COLUMNS = ['store', 'session_id', 'title', 'profile', 'source', 'model', 'provider', 'parent_session_id', 'lineage_kind', 'lineage_root', 'is_sidechain', 'cwd', 'git_repo_root', 'git_branch', 'started_at', 'ended_at', 'end_reason', 'last_activity_at', 'message_count', 'tool_call_count', 'api_call_count', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'estimated_cost_usd', 'actual_cost_usd', 'cost_status', 'live_messages', 'archived_messages', 'inactive_messages', 'removed_from_store'];
export const LINK_COLUMNS = ['store', 'session_id', 'title', 'lineage_kind', 'started_at', 'model'];
/** A delegation as the page shows it (`DelegationRow`). */
export const DELEGATION_COLUMNS: readonly (keyof DelegationRow)[] = ['delegation_id', 'state', 'delivery_state', 'delivery_attempts', 'dispatched_at', 'completed_at', 'delivered_at', 'duration_seconds', 'goal', 'summary', 'error', 'removed_from_store'];

/**
 * A session's delegations, by dispatch time (unknown times last) then id; `@store` and `@session` bound by each dialect,
 * `machine` adds the fleet's `@machine`, `collate` the id's byte order where the default collation is not (PostgreSQL).
 */
export function delegationsSql(machine = false, collate = ''): string {
  return `SELECT ${delegationColumnsSql()} FROM delegations d
    WHERE ${machine ? 'd.machine_id = @machine AND ' : ''}d.store = @store AND d.parent_session_id = @session
    ORDER BY d.dispatched_at IS NULL, d.dispatched_at, d.delegation_id${collate} LIMIT ${LIST_ROWS + 1}`;
}

/**
 * The dashboard's bounds on what one `/api/session` answer carries (decision 0088), whatever the dataset holds:
 * - `TEXT_CAP`: each long text of a message (content, reasoning, the tool calls' JSON, a call's arguments) is cut in
 *   SQL at this many characters (Unicode code points, as SQLite's and PostgreSQL's substr and length count them).
 *   32,768 keeps whole nearly every message people read (a reply, a diff, a few hundred lines of a result: about ten
 *   screens), and a cut one is still ≤ 128 KiB of UTF-8 (≤ 192 KiB as JSON escapes write control characters).
 * - `PAGE_BYTES`: a page stops at the first message after which its messages' JSON reaches 2 MiB (it always carries
 *   at least one); the rest of the page is asked for with `from` (the answer's `next_from`).
 * - `CUT_CALLS`: when a message's tool calls' JSON is itself past the cap, its first 8 calls are listed (each
 *   call's arguments cut at the cap), with the count of all of them.
 * - `TEXT_CHUNK`: `/api/message-text` reads a whole field this many characters at a time (one substr each).
 */
export const TEXT_CAP = 32_768;
export const PAGE_BYTES = 2 * 1024 * 1024;
export const CUT_CALLS = 8;
export const TEXT_CHUNK = 4 * 1024 * 1024;

/**
 * The dashboard's bounds on the rest of a session's texts and on its lists (decision 0094), whatever the dataset holds:
 * - `TITLE_CAP`: a title is cut in SQL at this many characters, in a list and in the session's own view. Hermes cuts
 *   titles at 100 characters (`SessionDB.MAX_TITLE_LENGTH`): 256 keeps every title Hermes writes whole, and a list of
 *   thousands of titles small.
 * - `FIELD_CAP`: the other short texts of a row (a path, a branch, a model's or tool's name, an end reason, an id Hermes
 *   copied from a call) at 4,096 characters: any real path (Linux's PATH_MAX is 4,096 bytes) stays whole.
 * - `ATTRIBUTES_CAP`: a row's `attributes` JSON longer than this is not sent at all (cut, it would not parse): its
 *   lengths are, and its whole is a text link. The same 32,768 as a message's texts: a model_config fits many times.
 * - `LIST_ROWS`: a session's children, delegations and model changes are listed up to 100 each (`more` says when there
 *   are others).
 * - `LIST_BYTES`: a list of sessions (the report by session) stops at the first row after which its rows' JSON reaches
 *   2 MiB, the rest summed into its "other" row, as a page of messages stops at PAGE_BYTES.
 */
export const TITLE_CAP = 256;
export const FIELD_CAP = 4096;
export const ATTRIBUTES_CAP = TEXT_CAP;
export const LIST_ROWS = 100;
export const LIST_BYTES = 2 * 1024 * 1024;

/** The texts `/api/message-text` gives whole: a message's columns, or one tool call's arguments (`call`, from 0). */
export const TEXT_FIELDS = ['content', 'reasoning', 'tool_calls', 'arguments', 'attributes'] as const;

/** A session's texts cut in its row, by column, with the cap each is cut at (ids are keys and stay whole). */
const SESSION_TEXTS: Readonly<Record<string, number>> = {
  title: TITLE_CAP, profile: FIELD_CAP, source: FIELD_CAP, model: FIELD_CAP, provider: FIELD_CAP, lineage_kind: FIELD_CAP,
  cwd: FIELD_CAP, git_repo_root: FIELD_CAP, git_branch: FIELD_CAP, end_reason: FIELD_CAP, cost_status: FIELD_CAP,
};
/** A message's short texts, cut at FIELD_CAP (its content, reasoning and calls at TEXT_CAP, decision 0088). */
const MESSAGE_TEXTS = ['role', 'kind', 'content_format', 'tool_name', 'tool_call_id', 'model', 'finish_reason'] as const;
/** A delegation's texts: its goal, summary and error at TEXT_CAP, its states at FIELD_CAP. */
const DELEGATION_TEXTS: Readonly<Record<string, number>> = { state: FIELD_CAP, delivery_state: FIELD_CAP, goal: TEXT_CAP, summary: TEXT_CAP, error: TEXT_CAP };

/** The texts `/api/session-text` gives whole: the session's cut columns, its system prompt and its attributes JSON. */
export const SESSION_TEXT_FIELDS = [...Object.keys(SESSION_TEXTS), 'system_prompt', 'attributes'] as const;


export interface RawMessage {
  seq: number; role: string; kind: string; content: string | null; content_format: string | null; tool_calls: string | null;
  tool_name: string | null; tool_call_id: string | null; reasoning: string | null; model: string | null; finish_reason: string | null; created_at: number;
  compacted: number | null;
  attributes: string | null;
  /** Each text's whole length (null when there is none); past TEXT_CAP its text is the cut one (`tool_calls`: null). */
  content_characters: number | null; content_bytes: number | null;
  reasoning_characters: number | null; reasoning_bytes: number | null;
  tool_calls_characters: number | null; tool_calls_bytes: number | null;
}

/** One call of a message whose tool calls' JSON was past the cap, read by the store's JSON functions (`callsSql`). */
export interface RawCall {
  id: string | null; name: string | null;
  /** Its arguments as text (a JSON string's value, else the JSON text of the value), cut at TEXT_CAP; null when none. */
  arguments: string | null;
  /** 1 when the arguments are a JSON string (tried as JSON, as a whole call's are), 0 when another JSON value. */
  arguments_string: number | null;
  arguments_characters: number | null; arguments_bytes: number | null;
  /** How many calls the message has in all. */
  calls: number;
}

/**
 * A text's UTF-8 bytes: `octet_length` in both (SQLite's, since 3.43, reads the stored size without the text). The
 * dataset is UTF-8, and so is the fleet store's database (the sink refuses any other encoding but SQL_ASCII).
 */
const octets = (x: string) => `octet_length(${x})`;
/**
 * `x` cut at `cap` characters, as SQL: whole when its bytes fit (SQLite's `substr` and `length` stop at a NUL
 * character, so a short text holding one would lose its end to a `substr`; PostgreSQL's text holds none).
 */
export const cutText = (x: string, cap: number) => `CASE WHEN ${octets(x)} <= ${cap} THEN ${x} ELSE substr(${x}, 1, ${cap}) END`;

/** A text column cut at TEXT_CAP in SQL (never read whole into JS), with its whole length (`message()` says it was cut). */
const cutColumn = (c: string) => `${cutText(c, TEXT_CAP)} AS ${c}, length(${c}) AS ${c}_characters, ${octets(c)} AS ${c}_bytes`;

/**
 * `expr` cut at `cap` characters as `name`, in both dialects, with its whole lengths as `"name.characters"` and
 * `"name.bytes"` when it is longer (else NULL): `takeCuts` turns them into the row's `cut` (decision 0094).
 */
export function cutSql(expr: string, name: string, cap: number): string {
  const past = `length(${expr}) > ${cap}`;
  return `${cutText(expr, cap)} AS ${name}, CASE WHEN ${past} THEN length(${expr}) END AS "${name}.characters", CASE WHEN ${past} THEN ${octets(expr)} END AS "${name}.bytes"`;
}

/** A JSON text sent whole within `cap`, else NULL (it would not parse cut), with its lengths as `cutSql` gives them. */
export function jsonCutSql(expr: string, name: string, cap = ATTRIBUTES_CAP): string {
  const past = `length(${expr}) > ${cap}`;
  return `CASE WHEN ${past} THEN NULL ELSE ${expr} END AS ${name}, CASE WHEN ${past} THEN length(${expr}) END AS "${name}.characters", CASE WHEN ${past} THEN ${octets(expr)} END AS "${name}.bytes"`;
}

/** Takes the lengths `cutSql` added off a row: the cut texts by name with their whole lengths, or null when none was cut. */
export function takeCuts(row: Record<string, unknown>, names: readonly string[]): Record<string, CutLength> | null {
  const cut: Record<string, CutLength> = {};
  for (const name of names) {
    const [c, b] = [row[`${name}.characters`], row[`${name}.bytes`]];
    delete row[`${name}.characters`];
    delete row[`${name}.bytes`];
    if (c !== null && c !== undefined) cut[name] = { characters: Number(c), bytes: Number(b) };
  }
  return Object.keys(cut).length > 0 ? cut : null;
}

/**
 * A session's row in both dialects (over `s`): each text cut (SESSION_TEXTS), `attributes` (the expression, NULL where
 * the column is missing) whole within ATTRIBUTES_CAP, and the system prompt's lengths only (the page links to it).
 */
export function sessionColumnsSql(attributesExpr: string): string {
  const columns = SESSION_COLUMNS.map((c) => (SESSION_TEXTS[c] === undefined ? `s.${c}` : cutSql(`s.${c}`, c, SESSION_TEXTS[c]!)));
  return `${columns.join(', ')}, ${jsonCutSql(attributesExpr, 'attributes')}, length(s.system_prompt) AS "system_prompt.characters", ${octets('s.system_prompt')} AS "system_prompt.bytes"`;
}

/** A parent's or child's row (LINK_COLUMNS over `s`), its texts cut. */
export function linkColumnsSql(): string {
  return LINK_COLUMNS.map((c) => (SESSION_TEXTS[c] === undefined ? `s.${c}` : cutSql(`s.${c}`, c, SESSION_TEXTS[c]!))).join(', ');
}

/** The most descendants a session's view adds up (decision 0110): a bound on the list its usage is filtered by. */
export const DESCENDANTS_CAP = 1000;

/**
 * The ids of a session's descendants in its store (children by `parent_session_id`, theirs, …), level by level, at most
 * DESCENDANTS_CAP + 1 (one more says there are more). A child a reset started (`lineage_kind` `reset`: a new
 * conversation in the same chat) is not part of the work, nor are its own: the walk stops there. UNION keeps each id
 * once, so a loop of parents ends where it meets a session already found (the session itself included). The walk stops
 * once enough are found: SQLite by the LIMIT in its recursive step, PostgreSQL because it evaluates a WITH query only as
 * far as the query reads it. Parameters: @store, @session (and @machine in the fleet store).
 */
export function descendantsSql(fleet: boolean): string {
  const machine = fleet ? 's.machine_id = @machine AND ' : '';
  const stop = fleet ? '' : ` LIMIT ${DESCENDANTS_CAP + 2}`;
  return `WITH RECURSIVE tree(id) AS (
      SELECT CAST(@session AS TEXT)
      UNION SELECT s.session_id FROM tree t JOIN sessions s ON ${machine}s.store = @store AND s.parent_session_id = t.id
        WHERE ${startedByParent('s')}${stop})
    SELECT id FROM tree WHERE id <> @session LIMIT ${DESCENDANTS_CAP + 1}`;
}

/**
 * What a session's view says of its descendants (`below`, as `descendantsSql` found them): how many are counted, whether
 * there are more, and the sessions whose usage is added up (the session and those counted); null when it has none.
 */
export function lineageOf(id: string, below: readonly string[]): { descendants: number; more: boolean; sessions: string[] } | null {
  if (below.length === 0) return null;
  const counted = below.slice(0, DESCENDANTS_CAP);
  return { descendants: counted.length, more: below.length > DESCENDANTS_CAP, sessions: [id, ...counted] };
}

/** A lineage row as the page gets it: `cut` names its cut texts (null when none was). */
export function linkRow(row: Record<string, unknown>): SessionRow {
  const cut = takeCuts(row, Object.keys(SESSION_TEXTS));
  return { ...row, cut } as unknown as SessionRow;
}

/**
 * A transcript row's columns with its texts cut, in both dialects: content and reasoning cut at TEXT_CAP; `tool_calls`
 * whole when within it (parsed as before), else NULL (its calls are then read by `callsSql`, each one's arguments
 * cut); each with its whole length in characters and bytes.
 */
export function messageColumns(attributesExpr: string): string {
  const short = (c: string) => cutSql(c, c, FIELD_CAP);
  return `seq, ${short('role')}, ${short('kind')}, ${cutColumn('content')}, ${short('content_format')},
    CASE WHEN length(tool_calls) > ${TEXT_CAP} THEN NULL ELSE tool_calls END AS tool_calls, length(tool_calls) AS tool_calls_characters, ${octets('tool_calls')} AS tool_calls_bytes,
    ${short('tool_name')}, ${short('tool_call_id')}, ${cutColumn('reasoning')}, ${short('model')}, ${short('finish_reason')}, created_at, ${jsonCutSql(attributesExpr, 'attributes')}`;
}

/** A delegation's columns (DELEGATION_COLUMNS over `d`), its texts cut (DELEGATION_TEXTS). */
function delegationColumnsSql(): string {
  return DELEGATION_COLUMNS.map((c) => (DELEGATION_TEXTS[c] === undefined ? `d.${c}` : cutSql(`d.${c}`, c, DELEGATION_TEXTS[c]!))).join(', ');
}

/** A delegation as the page gets it: `cut` names its cut texts (null when none was). */
export function delegationRow(row: Record<string, unknown>): DelegationRow {
  const cut = takeCuts(row, Object.keys(DELEGATION_TEXTS));
  return { ...row, cut } as unknown as DelegationRow;
}

/** A call's arguments (`function.arguments`, else `arguments`, as `call()` picks them) as SQL, from the call `c`. */
function argumentsSql(pg: boolean, c: string): string {
  if (pg) {
    const some = (x: string) => `json_typeof(${x}) IS NOT NULL AND json_typeof(${x}) <> 'null'`;
    return `CASE WHEN json_typeof(${c}) IS DISTINCT FROM 'object' THEN NULL WHEN ${some(`${c} -> 'function' -> 'arguments'`)} THEN ${c} -> 'function' -> 'arguments'
      WHEN ${some(`${c} -> 'arguments'`)} THEN ${c} -> 'arguments' END`;
  }
  const some = (p: string) => `json_type(${c}, '${p}') NOT IN ('null')`;
  return `CASE WHEN json_type(${c}) IS NOT 'object' THEN NULL WHEN ${some('$.function.arguments')} THEN '$.function.arguments' WHEN ${some('$.arguments')} THEN '$.arguments' END`;
}

/**
 * The first CUT_CALLS calls of one message (`@store`, `@session`, `@seq`; the fleet's `@machine`), each as `call()` reads
 * a parsed one — id and name when they are strings, the arguments of `function` else of the call — with the
 * arguments cut at TEXT_CAP, from the stored JSON by the store's own JSON functions. A message whose `tool_calls` is
 * not a JSON array has none (as `message()` shows it).
 */
export function callsSql(pg: boolean): string {
  if (pg) {
    const str = (x: string) => `CASE WHEN json_typeof(${x}) = 'string' THEN ${x} #>> '{}' END`;
    return `SELECT ${cutText('id', FIELD_CAP)} AS id, ${cutText('name', FIELD_CAP)} AS name, ${cutText('a', TEXT_CAP)} AS arguments, s AS arguments_string, length(a) AS arguments_characters, ${octets('a')} AS arguments_bytes, calls
      FROM (SELECT e.n, CASE WHEN json_typeof(e.v) = 'object' THEN COALESCE(${str("e.v -> 'id'")}, ${str("e.v -> 'call_id'")}) END AS id,
          CASE WHEN json_typeof(e.v) = 'object' THEN COALESCE(${str("e.v -> 'function' -> 'name'")}, ${str("e.v -> 'name'")}) END AS name,
          CASE WHEN json_typeof(x.a) = 'string' THEN x.a #>> '{}' ELSE x.a::text END AS a, CASE WHEN x.a IS NULL THEN NULL WHEN json_typeof(x.a) = 'string' THEN 1 ELSE 0 END AS s,
          json_array_length(t.j) AS calls
        FROM (SELECT CASE WHEN json_typeof(tool_calls::json) = 'array' THEN tool_calls::json ELSE '[]'::json END AS j FROM messages
          WHERE machine_id = @machine AND store = @store AND session_id = @session AND seq = @seq) t,
          json_array_elements(t.j) WITH ORDINALITY AS e(v, n),
          LATERAL (SELECT ${argumentsSql(true, 'e.v')} AS a) x
        ORDER BY e.n LIMIT ${CUT_CALLS}) c ORDER BY n`;
  }
  const str = (p: string) => `CASE WHEN j.type = 'object' AND json_type(j.value, '${p}') = 'text' THEN j.value ->> '${p}' END`;
  return `SELECT ${cutText('id', FIELD_CAP)} AS id, ${cutText('name', FIELD_CAP)} AS name, ${cutText('a', TEXT_CAP)} AS arguments, s AS arguments_string, length(a) AS arguments_characters, ${octets('a')} AS arguments_bytes, calls
    FROM (SELECT n, id, name, calls, CASE WHEN p IS NULL THEN NULL WHEN json_type(v, p) = 'text' THEN v ->> p ELSE v -> p END AS a,
        CASE WHEN p IS NULL THEN NULL WHEN json_type(v, p) = 'text' THEN 1 ELSE 0 END AS s
      FROM (SELECT n, id, name, v, calls, ${argumentsSql(false, 'v')} AS p
        FROM (SELECT CAST(j.key AS INTEGER) AS n, COALESCE(${str('$.id')}, ${str('$.call_id')}) AS id, COALESCE(${str('$.function.name')}, ${str('$.name')}) AS name,
            CASE WHEN j.type = 'object' THEN j.value END AS v, json_array_length(m.tool_calls) AS calls
          FROM (SELECT tool_calls FROM messages WHERE store = @store AND session_id = @session AND seq = @seq AND json_valid(tool_calls) AND json_type(tool_calls) = 'array') m,
            json_each(m.tool_calls) j
          ORDER BY j.key LIMIT ${CUT_CALLS})))
    ORDER BY n`;
}

/**
 * One read of a whole field for `/api/message-text` (`@store`, `@session`, `@seq`, `@call` for arguments; the fleet's
 * `@machine`): `length` its lengths (null when the message has no such text), `chunk` TEXT_CHUNK characters from
 * `@from` (1-based) when the field still has `@bytes` bytes — a row rewritten meanwhile reads nothing, and the answer is broken off rather than a
 * mix of two texts (the byte length, which SQLite reads without the text: a column is read once per chunk, not twice).
 */
export function textSql(pg: boolean, field: TextField['name'], what: 'chunk' | 'length'): string {
  let value: string = field;
  // One call's arguments: the call's index is the parameter `@call` (from 0), so one statement serves every call.
  if (field === 'arguments') {
    value = pg
      ? `(SELECT CASE WHEN json_typeof(a) = 'string' THEN a #>> '{}' ELSE a::text END
          FROM (SELECT ${argumentsSql(true, 'c')} AS a FROM (SELECT CASE WHEN json_typeof(tool_calls::json) = 'array' THEN tool_calls::json -> CAST(@call AS int) END AS c) e) x)`
      : `(SELECT CASE WHEN p IS NULL THEN NULL WHEN json_type(c, p) = 'text' THEN c ->> p ELSE c -> p END
          FROM (SELECT c, ${argumentsSql(false, 'c')} AS p FROM (SELECT CASE WHEN json_valid(tool_calls) AND json_type(tool_calls) = 'array' THEN tool_calls -> ('$[' || CAST(@call AS INTEGER) || ']') END AS c)))`;
  }
  const where = `${pg ? 'machine_id = @machine AND ' : ''}store = @store AND session_id = @session AND seq = @seq`;
  if (what === 'length') return `SELECT length(v) AS characters, ${octets('v')} AS bytes FROM (SELECT ${value} AS v FROM messages WHERE ${where}) t`;
  return `SELECT substr(v, @from, ${TEXT_CHUNK}) AS chunk FROM (SELECT ${value} AS v FROM messages WHERE ${where}) t WHERE octet_length(v) = @bytes`;
}

/**
 * One read of a session's whole text for `/api/session-text` (`@store`, `@session`; the fleet's `@machine`), as
 * `textSql` reads a message's: `length` its lengths, `chunk` TEXT_CHUNK characters from `@from` while it has `@bytes`.
 * `column` is one of SESSION_TEXT_FIELDS (or NULL where the dataset has no such column).
 */
export function sessionTextSql(pg: boolean, column: string, what: 'chunk' | 'length'): string {
  // A column name goes into the SQL: only the fields the route takes (checked there with a sentence), never a value.
  if (column !== 'NULL' && !(SESSION_TEXT_FIELDS as readonly string[]).includes(column)) throw new Error(`not a session text: ${column}`);
  const where = `${pg ? 'machine_id = @machine AND ' : ''}store = @store AND session_id = @session`;
  if (what === 'length') return `SELECT length(v) AS characters, ${octets('v')} AS bytes FROM (SELECT ${column} AS v FROM sessions WHERE ${where}) t`;
  return `SELECT substr(v, @from, ${TEXT_CHUNK}) AS chunk FROM (SELECT ${column} AS v FROM sessions WHERE ${where}) t WHERE octet_length(v) = @bytes`;
}

/** The refusal of a session text that is not there. */
export const noSessionText = (id: string, field: string) => new HermeticError('HERMETIC_WEB_NOT_FOUND', `Session "${id}" has no ${field === 'system_prompt' ? 'system prompt' : field}.`);

/** An `attributes` JSON text parsed: an object, or null (none set, or not an object: nothing to show). */
export function attributes(text: unknown): Attributes {
  if (typeof text !== 'string') return null;
  try {
    const v = JSON.parse(text) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Attributes) : null;
  } catch {
    return null; // the dataset holds valid JSON
  }
}

/**
 * The session's row as the page gets it (from `sessionColumnsSql`): `attributes` parsed (null when cut), `cut` naming
 * each text cut with its whole length, `system_prompt_length` its system prompt's (null when it has none).
 */
export function sessionDetail(row: Record<string, unknown>): SessionDetail {
  const raw = { ...row };
  const prompt = raw['system_prompt.characters'];
  const system_prompt_length = prompt === null || prompt === undefined ? null : { characters: Number(prompt), bytes: Number(raw['system_prompt.bytes']) };
  delete raw['system_prompt.characters'];
  delete raw['system_prompt.bytes'];
  const cut = takeCuts(raw, [...Object.keys(SESSION_TEXTS), 'attributes']);
  return { ...(raw as SessionRow), attributes: attributes(raw.attributes), system_prompt_length, cut };
}

/** A tool call as Hermes stored it (OpenAI's nested form or a flattened one), its arguments parsed when they are JSON. */
function call(raw: unknown): TranscriptMessage['tool_calls'][number] {
  const c = (raw ?? {}) as Record<string, unknown>;
  const fn = (c.function ?? {}) as Record<string, unknown>;
  let args: unknown = fn.arguments ?? c.arguments ?? null;
  if (typeof args === 'string') {
    try { args = JSON.parse(args); } catch { /* shown as the text it is */ }
  }
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return { id: text(c.id) ?? text(c.call_id), name: text(fn.name) ?? text(c.name), arguments: args, cut: null };
}

/** A text's whole length when it was cut (longer than TEXT_CAP), else null. */
const cutOf = (characters: number | null, bytes: number | null): CutLength | null =>
  (characters === null || Number(characters) <= TEXT_CAP ? null : { characters: Number(characters), bytes: Number(bytes) });

/** A call read by `callsSql`: as `call()` gives a parsed one, its arguments the cut text when they were cut. */
function cutCall(r: RawCall): TranscriptMessage['tool_calls'][number] {
  const cut = cutOf(r.arguments_characters, r.arguments_bytes);
  let args: unknown = r.arguments;
  if (cut === null && typeof args === 'string') {
    try { args = JSON.parse(args); } catch { /* shown as the text it is */ }
  }
  return { id: r.id, name: r.name, arguments: args, cut };
}

/**
 * A transcript row as the page gets it; `calls` are its calls as `callsSql` read them when its tool calls' JSON was
 * past the cap. `cut` names each text that was cut, with its whole length (null when none was).
 */
export function message(r: RawMessage, calls: RawCall[] = []): TranscriptMessage {
  const { content_characters, content_bytes, reasoning_characters, reasoning_bytes, tool_calls_characters, tool_calls_bytes, ...row } = r;
  const cut: NonNullable<TranscriptMessage['cut']> = { ...takeCuts(row as unknown as Record<string, unknown>, [...MESSAGE_TEXTS, 'attributes']) };
  const content = cutOf(content_characters, content_bytes);
  if (content) cut.content = content;
  const reasoning = cutOf(reasoning_characters, reasoning_bytes);
  if (reasoning) cut.reasoning = reasoning;
  let shown: TranscriptMessage['tool_calls'] = [];
  const whole = cutOf(tool_calls_characters, tool_calls_bytes);
  if (whole) {
    shown = calls.map(cutCall);
    cut.tool_calls = { ...whole, calls: Number(calls[0]?.calls ?? 0), shown: calls.length };
  } else if (r.tool_calls) {
    try {
      const parsed = JSON.parse(r.tool_calls) as unknown;
      if (Array.isArray(parsed)) shown = parsed.map(call);
    } catch { /* the dataset holds valid JSON; nothing to show otherwise */ }
  }
  return {
    ...row, bookkeeping: r.kind !== 'message', compacted: r.compacted === 1, attributes: attributes(r.attributes), tool_calls: shown,
    cut: Object.keys(cut).length > 0 ? cut : null,
  };
}

/**
 * A page's messages within PAGE_BYTES: `add` takes a message and says whether there is room for another (the first
 * is always taken); `next_from` is where the rest of the page starts when it stopped before `wanted` (else null).
 */
export class PageBudget {
  readonly messages: TranscriptMessage[] = [];
  bytes = 0;
  constructor(private readonly wanted: number) {}
  add(m: TranscriptMessage): boolean {
    this.messages.push(m);
    this.bytes += Buffer.byteLength(JSON.stringify(m));
    return this.bytes < PAGE_BYTES && this.messages.length < this.wanted;
  }
  get next_from(): number | null {
    const last = this.messages[this.messages.length - 1];
    return this.messages.length < this.wanted && this.bytes >= PAGE_BYTES && last ? last.seq + 1 : null;
  }
}


/**
 * A page of a session's transcript: how many pages it has, the seq its answer starts at and how many messages it may
 * hold from there. A page past the end is refused, and so is a `from` outside the page (HERMETIC_WEB_INVALID).
 */
export function transcriptPages(id: string, total: number, p: TranscriptPage): { pages: number; from: number; wanted: number } {
  const pages = Math.max(1, Math.ceil(total / p.size));
  if (p.page > pages) throw new HermeticError('HERMETIC_WEB_INVALID', `Session "${id}" has ${pages} page${pages === 1 ? '' : 's'} of ${p.size} messages; page ${p.page} is past its end.`);
  const start = (p.page - 1) * p.size;
  const end = Math.max(start, Math.min(start + p.size, total) - 1);
  if (p.from !== null && (p.from < start || p.from > end)) {
    throw new HermeticError('HERMETIC_WEB_INVALID', `"from" must be a message of page ${p.page} (#${start} to #${end}); got ${p.from}.`);
  }
  const from = p.from ?? start;
  return { pages, from, wanted: p.size - (from - start) };
}

/** The refusals of `/api/message-text` for a message or a text that is not there. */
export const noMessage = (id: string, seq: number) => new HermeticError('HERMETIC_WEB_NOT_FOUND', `Session "${id}" has no message #${seq}.`);
export const noText = (id: string, seq: number, field: TextField) =>
  new HermeticError('HERMETIC_WEB_NOT_FOUND', field.name === 'arguments'
    ? `Message #${seq} of session "${id}" has no call ${field.call} with arguments.`
    : `Message #${seq} of session "${id}" has no ${field.name === 'tool_calls' ? 'tool calls' : field.name}.`);

/** The refusal of an id two stores hold: it names both, to be picked with store=. */
export const twoStores = (id: string, stores: readonly unknown[]) =>
  new HermeticError('HERMETIC_WEB_INVALID', `Two stores hold session "${id}"; name one with store=${stores.map((s) => encodeURIComponent(String(s))).join(' or store=')}.`);

/** A parent the dataset does not hold (forgotten, or in a store not read): its id, nothing else. */
export const unknownParent = (id: unknown, store: string): SessionRow => ({ session_id: id as string, title: null, store, lineage_kind: null, started_at: null, model: null, cut: null });

/**
 * The slowest calls' keys for their ties, in SQLite's order: its own, and on the fleet store (`machine`: PostgreSQL)
 * the same whatever the database's collation (decision 0122), so both list the same calls.
 */
const byBytes = (machine: boolean, alias: string): string =>
  [...(machine ? ['machine_id'] : []), 'store', 'session_id', 'call_id'].map((c) => (machine ? postgresOrder(`${alias}.${c}`) : `${alias}.${c}`)).join(', ');

/**
 * The slowest tool calls: a call's time is from it to its first result. The sessions come first, from `tool_usage`
 * where the report counts their tool calls (`tools`: the window's cells and the filter); then only their tool parts
 * are read, by the parts' key, grouped by call id (parts has no index by call id; a join would search a session's
 * parts once per call). Ties go by call time, then store, session and call id, so every way of reading them agrees.
 * `machine` adds the fleet's machine to every key, and takes a call's greatest tool name by bytes as SQLite does
 * (decision 0130). The plain query: an SQLite dataset, and a fleet store of schema version 6 on, read `tool_calls`
 * instead (`slowestKeptSql`), which keeps the same groups.
 */
export function slowestSql(request: { since?: number | null; until?: number | null }, tools: string, limit: number, machine = false): string {
  const window = [request.since != null ? 'x.called >= @since' : null, request.until != null ? 'x.called < @until' : null].filter(Boolean).join(' AND ') || '1 = 1';
  // The call id as the kept tool calls group by it (one rule, so the two ways of reading agree).
  const callId = callIdSql('p');
  const m = machine ? 'p.machine_id, ' : '';
  return `SELECT ${cutText('x.tool', FIELD_CAP)} AS tool, x.session_id, x.store, ${machine ? 'x.machine_id, ' : ''}x.called AS started_at, x.answered - x.called AS seconds FROM (
      SELECT ${m}p.store, p.session_id, ${callId} AS call_id, MAX(CASE WHEN p.part_type = 'tool_call' THEN p.tool_name${machine ? ' COLLATE "C"' : ''} END) AS tool,
        MIN(CASE WHEN p.part_type = 'tool_call' THEN p.created_at END) AS called,
        MIN(CASE WHEN p.part_type = 'tool_result' THEN p.created_at END) AS answered
      FROM (SELECT DISTINCT ${machine ? 'l.machine_id, ' : ''}l.store, l.session_id FROM tool_usage l WHERE ${tools}) s
      JOIN parts p ON ${machine ? 'p.machine_id = s.machine_id AND ' : ''}p.store = s.store AND p.session_id = s.session_id
      WHERE p.part_type IN ('tool_call', 'tool_result') AND ${callId} IS NOT NULL
      GROUP BY ${m}p.store, p.session_id, ${callId}) x
    WHERE ${window} AND x.answered >= x.called
    ORDER BY seconds DESC, x.called, ${byBytes(machine, 'x')} LIMIT ${Math.trunc(limit)}`;
}

/**
 * The slowest tool calls read from `tool_calls` (an SQLite dataset of version 11 on, decision 0069; the fleet store
 * from schema version 6 on, with `machine`, decision 0099): the same rows in the same order as `slowestSql`, the
 * window's sessions first, then their calls by key, one row each instead of every tool part grouped.
 */
export function slowestKeptSql(request: { since?: number | null; until?: number | null }, tools: string, limit: number, machine = false): string {
  const window = [request.since != null ? 'c.called >= @since' : null, request.until != null ? 'c.called < @until' : null].filter(Boolean).join(' AND ') || '1 = 1';
  return `SELECT ${cutText('c.tool', FIELD_CAP)} AS tool, c.session_id, c.store, ${machine ? 'c.machine_id, ' : ''}c.called AS started_at, c.answered - c.called AS seconds
    FROM (SELECT DISTINCT ${machine ? 'l.machine_id, ' : ''}l.store, l.session_id FROM tool_usage l WHERE ${tools}) s
      JOIN tool_calls c ON ${machine ? 'c.machine_id = s.machine_id AND ' : ''}c.store = s.store AND c.session_id = s.session_id
    WHERE ${window} AND c.answered >= c.called
    ORDER BY seconds DESC, c.called, ${byBytes(machine, 'c')} LIMIT ${Math.trunc(limit)}`;
}

export type { SlowCall };
