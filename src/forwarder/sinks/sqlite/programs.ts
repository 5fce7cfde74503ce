// The program of each terminal call, kept on its part (`parts.program`, decision 0152): the projector names it as it
// writes the part (dataset/program.ts), this file names again what is already stored — the migration to dataset
// version 15 (every call written before), and any open of a dataset whose `dataset_meta.program_rules` is not this
// Hermetic's PROGRAM_RULES (the rules changed). Only the names that change are written, so a remote sink receives
// those calls again through the change log, and nothing else. Plus the index `hermetic report --by command` reads the
// terminal tool's parts by, instead of the whole transcript of every session that ran a command.
import type { Db } from '../../../shared/sqlite.js';
import { PARTS } from '../../dataset/columns.js';
import { datasetSetting, setDatasetSetting } from './ledger.js';
import { PROGRAM_RULES, programOfArgs, TERMINAL_TOOL } from '../../dataset/program.js';

/** The `dataset_meta` key that says which rules named the stored programs. */
export const PROGRAM_RULES_KEY = 'program_rules';

/**
 * The terminal tool's parts by session (calls and results; a partial index, so the other tools' parts cost nothing),
 * with what the report reads of a call: it answers from the index alone, without the row. Results need their text
 * (whether they failed), read from the row only in the sessions and cells that counted a failure. `part_id` is named
 * since `parts` became a rowid table (decision 0172): its entries no longer carry the key on their own.
 */
export const TERMINAL_INDEX = 'parts_terminal';
export const TERMINAL_INDEX_SQL = `CREATE INDEX IF NOT EXISTS ${TERMINAL_INDEX} ON ${PARTS.name} (store, session_id, part_type, created_at, tool_call_id, tool_result_for, program, part_id) WHERE tool_name = '${TERMINAL_TOOL}'`;

/** The rules version the dataset's stored programs were named by (null: not recorded, a dataset before version 15). */
export function storedProgramRules(db: Db): number | null {
  const value = datasetSetting(db, PROGRAM_RULES_KEY);
  return value === null ? null : Number(value);
}

/**
 * Names every terminal call of the dataset again by `name` (this Hermetic's rules unless a test gives others), writes
 * the names that changed, and records `rules` as the rules that named them; returns how many changed. In the caller's
 * transaction. The calls are read by the terminal index, their arguments with them (a year of 1M messages holds about
 * 70,000 terminal calls).
 */
export function nameTerminalCalls(db: Db, name: (args: unknown) => string = programOfArgs, rules: number = PROGRAM_RULES): number {
  const calls = db.prepare(`SELECT store, session_id, part_id, tool_args, program FROM ${PARTS.name} INDEXED BY ${TERMINAL_INDEX}
    WHERE tool_name = '${TERMINAL_TOOL}' AND part_type = 'tool_call'`).raw().iterate() as Iterable<[unknown, unknown, unknown, unknown, unknown]>;
  const changed: [unknown, unknown, unknown, string][] = [];
  for (const [store, session, part, args, stored] of calls) {
    const program = name(args);
    if (program !== stored) changed.push([store, session, part, program]);
  }
  const update = db.prepare(`UPDATE ${PARTS.name} SET program = ? WHERE store = ? AND session_id = ? AND part_id = ?`);
  for (const [store, session, part, program] of changed) update.run(program, store, session, part);
  setDatasetSetting(db, PROGRAM_RULES_KEY, String(rules));
  return changed.length;
}

/**
 * At open: the dataset's programs named again, in one transaction, when the rules that named them are not this
 * Hermetic's (decision 0152). A dataset named by these rules costs one read of `dataset_meta`.
 */
export function keepProgramsNamed(db: Db): void {
  if (storedProgramRules(db) === PROGRAM_RULES) return;
  db.transaction(() => {
    if (storedProgramRules(db) !== PROGRAM_RULES) nameTerminalCalls(db);
  }).immediate();
}
