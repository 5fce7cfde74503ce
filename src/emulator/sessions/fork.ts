// POST /api/sessions/{id}/fork's rules, pure (decision 0141): the fork's id, its lineage title
// (SessionDB.get_next_title_in_lineage) and what SessionDB.replace_messages makes of the rows get_messages read from
// the source (hermes_state_messages.py `_message_row_params`, `_insert_message_rows`). The store and the --state-db
// recorder both copy through these, so the emulator's fork and the recorded one hold the same values.
import { dumps, isDict, parsePyJson, PyFloat, pyInt, pyStr, pyStrip, pyTruthy, scrubSurrogates, type PyValue } from '../../shared/python/index.js';
import { CONTENT_JSON_PREFIX } from './object.js';
import { mintSessionId } from './rules.js';
import type { MessageRow, NewMessage } from './table.js';

/** The end reason the source takes (Hermes's CLI /branch and the API fork alike). */
export const BRANCHED = 'branched';
/** The lineage base of a source without a title. */
export const UNTITLED_BASE = 'fork';

/**
 * The fork's id: `str(body.get("id") or body.get("session_id") or f"api_{int(time.time())}_{hex8}").strip()`; null
 * when it is empty or holds CR, LF or NUL (400 `Invalid session ID`). Unlike POST /api/sessions, no length limit and
 * no path check. `mint` is called only when neither field is truthy (the uuid is drawn only then).
 */
export function forkId(body: Map<string, PyValue>, mint: () => string): { id: string; minted: boolean } | null {
  const given = [body.get('id'), body.get('session_id')].find((v) => v !== undefined && pyTruthy(v));
  const id = given === undefined ? mint() : pyStrip(pyStr(given));
  if (!id || /[\r\n\x00]/.test(id)) return null;
  return { id, minted: given === undefined };
}

/** A minted fork id, as POST /api/sessions mints one. */
export const mintForkId = (now: number, uuid4Hex: string): string => mintSessionId(now, uuid4Hex);

/** Python's `re.match(r'^(.*?) #(\d+)$', s)`: `.` is anything but `\n`, `\d` any Unicode digit, `$` also before a final `\n`. */
const NUMBERED = /^([^\n]*?) #(\p{Nd}+)(?=\n?$)/u;

/** The lineage base of a title: its ` #N` suffix stripped. */
export function lineageBase(title: string): string {
  return NUMBERED.exec(title)?.[1] ?? title;
}

/**
 * get_next_title_in_lineage: `base` alone when no title is `base` or LIKE `base #%` (the rows the store found, SQLite's
 * LIKE: ASCII case folded), else `base #<highest N + 1>`, the unnumbered original counting as #1.
 * @example nextTitleInLineage('my session', ['my session']) // 'my session #2'
 */
export function nextTitleInLineage(base: string, existing: readonly string[]): string {
  if (existing.length === 0) return base;
  let max = 1n;
  for (const title of existing) {
    const n = NUMBERED.exec(title);
    const value = n ? pyInt(n[2]!) : null;
    if (value !== null && value > max) max = value;
  }
  return `${base} #${max + 1n}`;
}

/** LIKE's pattern for `base #%` with `\`, `%` and `_` escaped (hermes_state_common.escape_like), ESCAPE '\'. */
export const lineagePattern = (base: string): string => `${base.replace(/[\\%_]/g, (c) => `\\${c}`)} #%`;

/** What Python's sqlite3 binds for a decoded value going into a TEXT column: ints as INTEGER, floats as REAL. */
export type Bound = string | number | bigint | null;

/**
 * `_encode_content(_decode_content(stored))`: `\x00json:` content parsed and written again by json.dumps (a list or
 * dict), or bound as the scalar it decoded to (the TEXT column then holds its text); anything else as stored.
 */
export function copiedContent(stored: string | null): Bound {
  if (stored === null || !stored.startsWith(CONTENT_JSON_PREFIX)) return stored === null ? null : scrubSurrogates(stored);
  let value: PyValue;
  try {
    value = parsePyJson(stored.slice(CONTENT_JSON_PREFIX.length));
  } catch {
    return scrubSurrogates(stored);
  }
  return bound(value, (v) => CONTENT_JSON_PREFIX + dumps(v));
}

function bound(value: PyValue, structured: (v: PyValue) => string): Bound {
  if (value === null) return null;
  if (typeof value === 'string') return scrubSurrogates(value);
  if (typeof value === 'boolean') return value ? 1n : 0n;
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (value instanceof PyFloat) return value.value;
  return structured(value);
}

/**
 * tool_calls through get_messages (JSON text decoded when truthy, [] when it does not parse) and replace_messages
 * (`_parse_tool_calls`: a str is parsed again; `json.dumps(...) if tool_calls else None`), with what it adds to
 * `tool_call_count` (`_tool_calls_count`: None 0, a list its length, anything else 1).
 */
export function copiedToolCalls(stored: string | null): { text: string | null; count: number } {
  let value: PyValue = stored;
  if (stored) value = parseOr(stored, []);
  if (typeof value === 'string') value = parseOr(value, []);
  return {
    text: pyTruthy(value) ? dumps(value) : null,
    count: value === null ? 0 : Array.isArray(value) ? value.length : 1,
  };
}

function parseOr(text: string, fallback: PyValue): PyValue {
  try {
    return parsePyJson(text);
  } catch {
    return fallback;
  }
}

/** hermes_cli.timefmt.coerce_epoch's window: a timestamp outside it is replaced (see decision 0141). */
const EPOCH_WINDOW = [0, 4_200_000_000] as const;

/**
 * replace_messages over the source's rows (id order), as the fork's new rows: role, content, tool call id and name,
 * token count and finish reason copied; reasoning only on assistant rows; display_kind when it is text; the timestamp
 * kept when it is a sane epoch, else `now` moved past the previous row's. New ids; the counters are set to these.
 */
export function forkedMessages(rows: readonly MessageRow[], now: number): { messages: NewMessage[]; toolCalls: number } {
  let nowTs = now;
  let toolCalls = 0;
  const messages = rows.map((row): NewMessage => {
    const calls = copiedToolCalls(row.tool_calls);
    toolCalls += calls.count;
    const timestamp = copiedTimestamp(row.timestamp, nowTs);
    nowTs = Math.max(nowTs, timestamp) + 1e-6;
    const assistant = row.role === 'assistant';
    const text = (v: string | null) => (typeof v === 'string' ? scrubSurrogates(v) : null);
    return {
      role: row.role,
      content: copiedContent(row.content) as string | null,
      tool_call_id: row.tool_call_id,
      tool_calls: calls.text,
      tool_name: text(row.tool_name),
      timestamp,
      token_count: row.token_count,
      finish_reason: row.finish_reason,
      reasoning: assistant ? text(row.reasoning) : null,
      reasoning_content: assistant ? text(row.reasoning_content) : null,
      display_kind: text(row.display_kind),
    };
  });
  return { messages, toolCalls };
}

/**
 * `_coerce_timestamp(value, default)` for a REAL column: a number inside the epoch window (-0.0 as 0.0), else the
 * default (NaN and infinities included).
 */
export function copiedTimestamp(value: unknown, fallback: number): number {
  if (typeof value !== 'number' || !(value >= EPOCH_WINDOW[0] && value <= EPOCH_WINDOW[1])) return fallback;
  return value === 0 ? 0 : value;
}

/**
 * display_metadata through `_decode_display_metadata` (two string layers unwrapped; only a dict kept) and
 * `_encode_display_metadata` (json.dumps of a non-empty dict, else NULL).
 */
export function copiedDisplayMetadata(stored: string | null): string | null {
  let value: PyValue = stored;
  for (let i = 0; i < 2 && typeof value === 'string'; i++) value = parseOr(value, null);
  return isDict(value) && value.size > 0 ? dumps(value) : null;
}
