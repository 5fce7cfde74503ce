// Text as Hermes's columns hold it: usually TEXT, but a BLOB can end up where text belongs, and SQLite hands back
// TEXT that is not valid UTF-8 with U+FFFD in place of the bad bytes. Either way the value changes on its way into the
// dataset, so each change is said (a row_issues entry), never made silently (issue 16 §5).
import { SESSION_EXTRA_COLUMNS } from './extras.js';

/** The message columns read as text: a BLOB in any of them is decoded, and its decoding reported. */
export const MESSAGE_TEXT_COLUMNS = [
  'role', 'content', 'tool_call_id', 'tool_calls', 'tool_name', 'finish_reason', 'reasoning', 'reasoning_content',
  'reasoning_details', 'codex_message_items', 'api_content', 'display_kind', 'platform_message_id', 'effect_disposition',
  'display_metadata', 'observed',
] as const;

/**
 * The session columns the dataset keeps as text, and those it keeps in `attributes` (normalize/extras.ts): a BLOB in
 * any of them is decoded as text, and said.
 */
export const SESSION_TEXT_COLUMNS = [
  'source', 'model', 'billing_provider', 'billing_base_url', 'billing_mode', 'parent_session_id', 'title', 'cwd',
  'git_branch', 'git_repo_root', 'system_prompt', 'end_reason', 'cost_status', 'cost_source', 'model_config',
  ...SESSION_EXTRA_COLUMNS.filter((c) => c !== 'model_config'),
] as const;

/** The `async_delegations` columns read as text (decision 0054). */
export const DELEGATION_TEXT_COLUMNS = [
  'delegation_id', 'parent_session_id', 'origin_ui_session_id', 'state', 'delivery_state', 'task_json', 'event_json', 'result_json',
] as const;

/**
 * Columns whose stored bytes are not valid UTF-8, as the reader found them (reader/store.ts): SQLite replaced the
 * bad bytes with U+FFFD. The reader sets this on a row only when one of its texts holds a U+FFFD.
 */
export const INVALID_UTF8 = '__invalid_utf8';

const fatal = new TextDecoder('utf-8', { fatal: true });
const lenient = new TextDecoder('utf-8');

export interface TextProblem { field: string; problem: string }

/** A BLOB decoded as UTF-8 text, and what was done to it. */
export function blobText(bytes: Uint8Array): { text: string; problem: string } {
  try {
    return { text: fatal.decode(bytes), problem: `stored as a ${bytes.length}-byte BLOB, not text; decoded as UTF-8` };
  } catch {
    return { text: lenient.decode(bytes), problem: `stored as a ${bytes.length}-byte BLOB that is not valid UTF-8; decoded with U+FFFD in place of the bad bytes` };
  }
}

/** Whether a value is a BLOB as better-sqlite3 returns it (a Buffer, which is a Uint8Array). */
export const isBlob = (v: unknown): v is Uint8Array => v instanceof Uint8Array;

type RowTest = (row: Readonly<Record<string, unknown>>) => boolean;

/**
 * A test of a row's `columns`, generated once per column list: each column read by its name at its own site (a read by
 * a variable key costs about 1 µs a row over 13 columns, most of a backfill's budget for it).
 */
function rowTest(columns: readonly string[], test: (v: string) => string): RowTest {
  return new Function('r', `return ${columns.map((c) => test(`r[${JSON.stringify(c)}]`)).join(' || ')};`) as RowTest;
}

const blobTests = new Map<readonly string[], RowTest>();
const fffdTests = new Map<readonly string[], RowTest>();

/** Whether any of the row's `columns` holds a BLOB, or the reader marked invalid UTF-8 in it. */
function anyBlob(row: Readonly<Record<string, unknown>>, columns: readonly string[]): boolean {
  let test = blobTests.get(columns);
  if (!test) blobTests.set(columns, (test = rowTest(columns, (v) => `${v} instanceof Uint8Array`)));
  return test(row) || row[INVALID_UTF8] !== undefined;
}

/** Whether any of the row's `columns` is text holding U+FFFD (the reader then looks at its bytes). */
export function anyReplacement(row: Readonly<Record<string, unknown>>, columns: readonly string[]): boolean {
  let test = fffdTests.get(columns);
  if (!test) fffdTests.set(columns, (test = rowTest(columns, (v) => `(typeof ${v} === 'string' && ${v}.includes('\\uFFFD'))`)));
  return test(row);
}

/**
 * The row with every BLOB among `columns` decoded to text, and one problem per column changed (a BLOB decoded, or
 * invalid UTF-8 the reader found replaced). The row is returned as is when nothing changed.
 */
export function textColumns<R extends Readonly<Record<string, unknown>>>(row: R, columns: readonly string[]): { row: R; problems: TextProblem[] } {
  // Nearly every row: nothing to say, and nothing allocated for it.
  if (!anyBlob(row, columns)) return { row, problems: NONE };
  let out: Record<string, unknown> | null = null;
  let problems: TextProblem[] | null = null;
  for (const c of columns) {
    const v = row[c];
    if (!isBlob(v)) continue;
    const { text, problem } = blobText(v);
    (out ??= { ...row })[c] = text;
    (problems ??= []).push({ field: c, problem });
  }
  const invalid = row[INVALID_UTF8];
  if (Array.isArray(invalid)) {
    for (const c of invalid as string[]) (problems ??= []).push({ field: c, problem: 'stored text is not valid UTF-8; the bad bytes were replaced with U+FFFD' });
  }
  return problems === null ? { row, problems: NONE } : { row: (out as R | null) ?? row, problems };
}

const NONE: TextProblem[] = [];
