// The fleet store's tables, generated from dataset/columns.ts (decision 0036): the shipped tables under their dataset
// names, each with `machine_id` and `hostname` first and the key (machine_id, dataset key); INTEGER → bigint, REAL →
// double precision, TEXT and JSON → text (the dataset's bytes kept as they are; `::jsonb` reads them). Plus
// `progress` (per machine, the last change-log sequence applied, written with the rows) and `schema_version`; and
// `tool_calls`, kept from `parts` by the database itself (tool-calls.ts, decision 0099).
import { BACKFILL_UNREAD, DAILY_USAGE, DELEGATIONS, MESSAGES, MODEL_USAGE, PARTS, ROW_ISSUES, SESSIONS, TOOL_USAGE, USAGE_EVENTS, USAGE_LEDGER, type ColumnType, type DatasetTable } from '../../dataset/columns.js';
import { uncostedSession } from '../../dataset/uncosted.js';
import type { ShippedTable } from '../remote/contract.js';
import { TERMINAL_TOOL } from '../../dataset/program.js';
import { FAILED_COLUMN, SQLITE_JSON_DEPTH, TERMINAL_CELLS_INDEX, TOOL_ERROR_FUNCTION, toolErrorFunctionSql } from '../../dataset/tool-error.js';
import { toolCallsChangedSql, toolCallsSchema } from './tool-calls.js';
import { quoteName as q } from '../../../shared/sql-name.js';

/** The tables of the fleet schema's first version (dataset version 3's shipped tables). */
const FIRST_TABLES: readonly DatasetTable[] = [SESSIONS, MESSAGES, PARTS, MODEL_USAGE, USAGE_EVENTS, DAILY_USAGE, USAGE_LEDGER, TOOL_USAGE];
/** The tables a remote sink receives, in the dataset's order. */
export const SHIPPED_TABLES: readonly DatasetTable[] = [...FIRST_TABLES, DELEGATIONS, ROW_ISSUES, BACKFILL_UNREAD];
export const SHIPPED: ReadonlyMap<ShippedTable, DatasetTable> = new Map(SHIPPED_TABLES.map((t) => [t.name as ShippedTable, t]));

export const PG_TYPE: Record<ColumnType, string> = { INTEGER: 'bigint', REAL: 'double precision', TEXT: 'text', JSON: 'text' };

/** The fleet key of a table: the machine, then the dataset's primary key. */
export const fleetKey = (t: DatasetTable): string[] => ['machine_id', ...t.primaryKey];

/** CREATE TABLE (and its indexes) for a shipped table, if it does not exist. */
export function createTable(schema: string, t: DatasetTable): string[] {
  const cols = [
    'machine_id text NOT NULL',
    'hostname text NOT NULL',
    ...t.columns.map((c) => `${q(c.name)} ${PG_TYPE[c.type]}${c.notNull ? ' NOT NULL' : ''}`),
    `PRIMARY KEY (${fleetKey(t).map(q).join(', ')})`,
  ];
  const out = [`CREATE TABLE IF NOT EXISTS ${q(schema)}.${q(t.name)} (\n  ${cols.join(',\n  ')}\n)`];
  for (const idx of t.indexes ?? []) {
    out.push(`CREATE INDEX IF NOT EXISTS ${q(`${t.name}_${idx.join('_')}`)} ON ${q(schema)}.${q(t.name)} (${['machine_id', ...idx].map(q).join(', ')})`);
  }
  // The ledger and tool usage are clustered by time in the dataset; across machines, a report's window is a range of `at`.
  if (t.primaryKey[0] === 'at') out.push(`CREATE INDEX IF NOT EXISTS ${q(`${t.name}_at`)} ON ${q(schema)}.${q(t.name)} (at)`);
  if (t === SESSIONS) out.push(uncostedIndex(schema));
  if (t === TOOL_USAGE) out.push(terminalCellsIndex(schema));
  // The tool calls kept from the parts (fleet schema version 6, decision 0099): a `parts` made again has its triggers,
  // and the index of the terminal tool's parts (version 10, decision 0152).
  if (t === PARTS) out.push(...toolCallsSchema(schema), terminalIndex(schema));
  return out;
}

/**
 * The terminal tool's parts by session (fleet schema version 10, decision 0152): `report --by command` reads a
 * session's terminal calls and results by it, and naming again reads a machine's calls by it, instead of every part.
 * Its keys are the primary key's first three, so any row the table takes fits in it.
 */
function terminalIndex(schema: string): string {
  return `CREATE INDEX IF NOT EXISTS parts_terminal ON ${q(schema)}.parts (machine_id, store, session_id) WHERE tool_name = '${TERMINAL_TOOL}'`;
}

/**
 * `parts.failed` (fleet schema version 12, decision 0167): whether a terminal result says its call failed, by the
 * fleet's rule (`hermetic_tool_error`), stored by PostgreSQL itself as each row is written or changed — by any writer,
 * any path — so a report by command reads a verdict instead of parsing each result. NULL on every other part. Made
 * after the rule (version 10), so a `parts` made by version 1 or again by a first copy gets it by this statement;
 * adding it to a table with rows writes the table again, the rule judging each terminal result once.
 */
export function failedColumn(schema: string): string {
  return `ALTER TABLE ${q(schema)}.parts ADD COLUMN IF NOT EXISTS ${FAILED_COLUMN} boolean GENERATED ALWAYS AS (CASE WHEN tool_name = '${TERMINAL_TOOL}' AND part_type = 'tool_result' THEN ${q(schema)}.${TOOL_ERROR_FUNCTION}(content_text) END) STORED`;
}

/**
 * The stored verdicts of the terminal results whose text the rule of fleet schema version 13 may judge otherwise
 * (an escape `\u`, more than SQLITE_JSON_DEPTH brackets), stored again: a generated column is computed again when
 * its row is updated. Only the rows whose verdict moves are written (decision 0170).
 */
function verdictsAgain(schema: string): string {
  const t = `${q(schema)}.parts`;
  return `UPDATE ${t} SET content_text = content_text WHERE tool_name = '${TERMINAL_TOOL}' AND part_type = 'tool_result'
    AND (strpos(content_text, '\\u') > 0 OR length(content_text) - length(translate(content_text, '[{', '')) > ${SQLITE_JSON_DEPTH})
    AND ${FAILED_COLUMN} IS DISTINCT FROM ${q(schema)}.${TOOL_ERROR_FUNCTION}(content_text)`;
}

/**
 * The terminal tool's `tool_usage` rows by session and time, its text keys in byte order (fleet schema version 12,
 * decision 0167): a report by command finds each gathered part's cell, the session's latest terminal row at or before
 * it, by one descent of this index (report/commands.ts), its keys compared byte by byte (`COLLATE "C"`; equal text is
 * equal bytes in any deterministic collation, so the rows found are the same) instead of by the database's collation,
 * which made most of a lookup's cost on a database that sorts by a language. Its keys are the primary key's, so any
 * row the table takes fits in it.
 */
function terminalCellsIndex(schema: string): string {
  const c = (k: string) => `${k} COLLATE "C"`;
  return `CREATE INDEX IF NOT EXISTS ${TERMINAL_CELLS_INDEX} ON ${q(schema)}.tool_usage (${c('machine_id')}, ${c('store')}, ${c('session_id')}, at) WHERE tool_name = '${TERMINAL_TOOL}'`;
}

/** `progress.program_rules` (fleet schema version 10): the naming rules the machine's terminal programs are named by. */
const progressRules = (schema: string) => `ALTER TABLE ${q(schema)}.progress ADD COLUMN IF NOT EXISTS program_rules integer`;

/**
 * The sessions Hermes recorded no cost for (fleet schema version 5, decision 0098; its rule widened by version 9,
 * decision 0132): the report's and the dashboard's count of them (report/uncosted.ts) starts from these, a handful,
 * instead of reading every session of the fleet. Its keys are the primary key's, so any row the table takes fits in it.
 */
function uncostedIndex(schema: string): string {
  return `CREATE INDEX IF NOT EXISTS sessions_uncosted ON ${q(schema)}.sessions (machine_id, store, session_id) WHERE ${uncostedSession()}`;
}

function createProgress(schema: string): string {
  return `CREATE TABLE IF NOT EXISTS ${q(schema)}.progress (\n  machine_id text PRIMARY KEY,\n  hostname text NOT NULL,\n  applied_seq bigint NOT NULL,\n  updated_at timestamptz NOT NULL\n)`;
}

export interface Migration { version: number; doc: string; sql(schema: string): string[] }

/**
 * Versioned migrations, applied in order under an advisory lock (migrate.ts). Append only: a new dataset column is a
 * new migration adding it (reconcileColumns adds any column columns.ts has and the table lacks, as a safety net).
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    doc: 'The shipped tables of dataset version 3, progress per machine.',
    sql: (s) => [
      ...FIRST_TABLES.flatMap((t) => createTable(s, t)),
      createProgress(s),
    ],
  },
  {
    version: 2,
    doc: 'delegations: Hermes\'s background subagent dispatches (dataset version 8, decision 0054).',
    sql: (s) => createTable(s, DELEGATIONS),
  },
  {
    version: 3,
    doc: 'progress: the range and digest of the log batch that brought applied_seq, so a dataset tells its own batch from another copy\'s (decision 0035 addendum).',
    sql: (s) => [
      `ALTER TABLE ${q(s)}.progress ADD COLUMN IF NOT EXISTS applied_from bigint`,
      `ALTER TABLE ${q(s)}.progress ADD COLUMN IF NOT EXISTS applied_digest text`,
    ],
  },
  {
    version: 4,
    doc: 'row_issues: the values each forwarder changed or left out, so a fleet report says how many (dataset version 12, decision 0092).',
    sql: (s) => createTable(s, ROW_ISSUES),
  },
  {
    version: 5,
    doc: 'sessions_uncosted: the sessions with no cost recorded, so counting them reads those alone (decision 0098).',
    sql: (s) => [uncostedIndex(s)],
  },
  {
    version: 6,
    doc: 'tool_calls: each call id of each session with its first call and first result, kept from parts by triggers, so the slowest tool calls read one row per call (decision 0099).',
    sql: (s) => toolCallsSchema(s),
  },
  {
    version: 7,
    doc: 'backfill_unread: per machine, the sessions its windowed backfills left unread (numbers only), so a fleet report says them (dataset version 13, decision 0102).',
    sql: (s) => createTable(s, BACKFILL_UNREAD),
  },
  {
    version: 8,
    doc: 'tool_calls: of a call id with two tool names, the greater by bytes, as each machine\'s dataset keeps it, on a database of any collation; the table counted again from parts (decision 0130).',
    sql: (s) => toolCallsSchema(s),
  },
  {
    version: 9,
    doc: 'sessions_uncosted: also the sessions whose cost status is unknown (usage Hermes could not price, recorded as 0), as the count now reads them (decision 0132).',
    sql: (s) => [`DROP INDEX IF EXISTS ${q(s)}.sessions_uncosted`, uncostedIndex(s)],
  },
  {
    version: 10,
    doc: 'parts.program: each terminal call\'s program, as its machine named it, and progress.program_rules, the rules each machine\'s names are by (named again by the next forwarder with newer rules); parts_terminal, the terminal tool\'s parts by session; hermetic_tool_error, the rule a tool result says it failed by; tool_calls counted again only when an update changes what it reads (decision 0152).',
    sql: (s) => [
      `ALTER TABLE ${q(s)}.parts ADD COLUMN IF NOT EXISTS program text`,
      progressRules(s),
      terminalIndex(s),
      toolErrorFunctionSql(q(s)),
      toolCallsChangedSql(s),
    ],
  },
  {
    version: 11,
    doc: 'hermetic_tool_error made again PARALLEL UNSAFE: its EXCEPTION block starts a subtransaction, which a parallel query refuses (decision 0160).',
    sql: (s) => [toolErrorFunctionSql(q(s))],
  },
  {
    version: 12,
    doc: 'parts.failed: whether each terminal result says its call failed, stored by PostgreSQL as the row is written (a generated column of hermetic_tool_error), so a report by command reads the verdict instead of judging the text; tool_usage_terminal, the terminal tool\'s cells by session and time in byte order, so it finds each call\'s cell by one descent (decision 0167).',
    sql: (s) => [failedColumn(s), terminalCellsIndex(s)],
  },
  {
    version: 13,
    doc: 'hermetic_tool_error made again reading what SQLite reads: a NUL or surrogate escape as another character, nesting past 1,000 levels as not JSON; the verdicts stored of the results it may judge otherwise stored again (decision 0170).',
    sql: (s) => [toolErrorFunctionSql(q(s)), verdictsAgain(s)],
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/**
 * ALTER statements for columns columns.ts has and the table lacks (nullable: rows already there have none), after
 * `progress` again if it was dropped by hand: it holds only what each machine applied, so an empty one costs a resend
 * of batches the tables hold already (idempotent upserts), never a row.
 */
export function missingColumns(schema: string, have: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const out: string[] = [];
  if (!have.has('progress')) out.push(createProgress(schema), ...MIGRATIONS.find((m) => m.version === 3)!.sql(schema), progressRules(schema));
  for (const t of SHIPPED_TABLES) {
    const cols = have.get(t.name);
    if (!cols) continue;
    for (const c of t.columns) if (!cols.has(c.name)) out.push(`ALTER TABLE ${q(schema)}.${q(t.name)} ADD COLUMN IF NOT EXISTS ${q(c.name)} ${PG_TYPE[c.type]}`);
  }
  // The stored verdict dropped by hand (or a `parts` made again, whose version-1 statement has none): made again.
  if (have.has('parts') && !have.get('parts')!.has(FAILED_COLUMN)) out.push(failedColumn(schema));
  return out;
}
