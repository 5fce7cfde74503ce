// `hermetic statedb <generate|inspect>`: make deterministic synthetic Hermes stores and inspect real ones.
import { looksLikePath, parseFlags, usageError, type FlagSpec } from '../cli/args.js';
import { HermeticError } from '../shared/errors.js';
import { machineSeconds, readIsoTime } from '../shared/iso-time.js';
import { storePathProblem } from '../shared/sqlite.js';
import { generateAsync, profileSettings, PROFILES, type GenerateOptions, type GenerateResult } from './generate/index.js';
import { formatReport, inspectStore } from './inspect.js';
import { LATEST_LEVEL } from './schema/types.js';

export const STATEDB_HELP = `Usage: hermetic statedb <command> [options]

Commands:
  generate --out PATH [--force] [--schema 30] [--sessions N] [--messages M]
           [--seed S] [--journal wal|delete] [--profile NAME] [--created-at N]
           [--no-fts] [--end DATE] [--days N]
      write a deterministic synthetic state.db (same options, same --end, same
      SQL dump). An existing file is replaced only with --force; the folder
      must exist. A profile sets the schema (and some the journal and
      --created-at): give those flags only with the same values.
      --sessions N   exactly N sessions in the store (lineage children count;
                     default 40)
      --messages M   about M messages in all (default 20 per session)
      --days N       spread the sessions over the N days (default 30) that end
                     at --end
      --end DATE     when the history ends: an ISO date (the end of that local
                     day) or date-time; default now, so "hermetic report
                     --since 7d" over the generated store has data
  inspect PATH [--json]
      schema version, journal mode, table counts and column differences; reads
      without writing and leaves the store's folder as it found it (no -wal or
      -shm appears)

Schema: 1..30, "30-pre-daily" (v30 before session_daily_usage); 30 means the
current v30 with it.
Profiles (each names a schema and, for some, a journal mode and the version the
store was created at):
${Object.entries(PROFILES).map(([name, p]) => `  ${name.padEnd(15)}${(p.description.match(/\S.{0,62}(?=\s|$)/g) ?? []).join(`\n${' '.repeat(17)}`)}`).join('\n')}
`;

/** Maps a --schema value to a level (30 → 31, the current v30 with session_daily_usage). */
export function parseSchema(value: string): number {
  if (value === '30-pre-daily') return 30;
  if (value === 'latest') return LATEST_LEVEL;
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > 30) {
    throw new HermeticError('HERMETIC_STATEDB_SCHEMA', `Schema version "${value}" is not known; use 1 to 30 or 30-pre-daily.`);
  }
  return n === 30 ? LATEST_LEVEL : n;
}

/** A level as --schema spells it. */
const schemaName = (level: number) => (level === LATEST_LEVEL ? '30' : level === 30 ? '30-pre-daily' : String(level));

function count(name: string, value: string | undefined, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= max)) usageError(`--${name} must be a whole number from 1 to ${max}, not "${value}".`);
  return n;
}

const GENERATE_FLAGS = {
  out: { type: 'string', lone: looksLikePath }, force: { type: 'boolean' }, schema: { type: 'string' }, sessions: { type: 'string' },
  messages: { type: 'string' }, seed: { type: 'string' }, journal: { type: 'string' }, profile: { type: 'string' },
  'created-at': { type: 'string' }, 'no-fts': { type: 'boolean' }, end: { type: 'string' }, days: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Record<string, FlagSpec>;

/** 2000-01-01 and 2100-01-01: the times Hermes's own readers accept (spec state-db §3). */
const EARLIEST = 946684800;
const LATEST = 4102444800;

/**
 * Epoch seconds from --end: `now`, an ISO date (the end of that day in the machine's zone: the next local midnight),
 * or an ISO date-time (local unless it has a zone); a date or time that does not exist (2026-02-30, 25:00) is refused.
 */
export function parseEnd(value: string, nowMs: number): number {
  const text = value.trim();
  let t = NaN;
  // Read strictly (shared/iso-time): 2026-02-30 or 25:00 is refused, never rolled over into the next month or day.
  const iso = readIsoTime(text);
  if (iso !== null && 'problem' in iso) usageError(`--end ${iso.problem}.`);
  if (text === 'now') t = nowMs / 1000;
  else if (iso !== null && iso.time === null) t = new Date(iso.year, iso.month - 1, iso.date + 1).getTime() / 1000;
  else if (iso !== null) t = machineSeconds(iso);
  if (!Number.isFinite(t)) usageError(`--end must be an ISO date such as 2026-07-14, a date-time such as 2026-07-14T18:00Z, or now; got "${value}".`);
  if (t <= EARLIEST || t > LATEST) usageError(`--end must fall between 2000 and 2100 (the times Hermes accepts); got "${value}".`);
  return t;
}

async function generateCommand(argv: string[], now: () => number): Promise<number> {
  const { values } = parseFlags(argv, GENERATE_FLAGS);
  if (values.help) return console.log(STATEDB_HELP), 0;
  const out = values.out;
  if (out === undefined) usageError('generate needs --out PATH.');
  const journal = values.journal;
  if (journal !== undefined && journal !== 'wal' && journal !== 'delete') usageError(`--journal must be wal or delete, not "${journal}".`);
  const level = values.schema === undefined ? undefined : parseSchema(values.schema);
  const createdAt = values['created-at'] === undefined ? undefined : parseSchema(values['created-at']);
  const name = values.profile;
  const profile = name === undefined ? undefined : profileSettings(name);
  if (profile) {
    // A profile is a named set of these flags: a flag may repeat the profile's value, never contradict it.
    const conflict = (flag: string, given: string, set: string) =>
      usageError(`--${flag} ${given} conflicts with --profile ${name}, which sets ${set}; give one or the other.`);
    if (level !== undefined && level !== profile.level) conflict('schema', values.schema!, `schema ${schemaName(profile.level)}`);
    const profileCreatedAt = profile.createdAt ?? profile.level;
    if (createdAt !== undefined && createdAt !== profileCreatedAt) conflict('created-at', values['created-at']!, `created-at ${schemaName(profileCreatedAt)}`);
    if (journal !== undefined && profile.journal !== undefined && journal !== profile.journal) conflict('journal', journal, `journal ${profile.journal}`);
  } else if (createdAt !== undefined && createdAt > (level ?? LATEST_LEVEL)) {
    usageError('--created-at must not be newer than --schema.');
  }
  const sessions = count('sessions', values.sessions, 1_000_000);
  const messages = count('messages', values.messages, 100_000_000);
  const days = count('days', values.days, 36_500) ?? 30;
  const end = values.end === undefined ? now() / 1000 : parseEnd(values.end, now());
  if (end - days * 86400 < EARLIEST) usageError(`--days ${days} before --end starts before 2000; give fewer days.`);
  // A folder the user named must exist: a typo in --out should fail, not grow a tree.
  const problem = storePathProblem(out);
  if (problem && problem !== 'it is a folder, not a file') {
    throw new HermeticError('HERMETIC_STATEDB_WRITE', `Cannot write a state.db at ${out}: ${problem}.`);
  }
  const result = await interruptible({
    out, replace: values.force === true, level, createdAt, journal, profile: name, sessions, messages,
    seed: values.seed, fts: values['no-fts'] ? false : undefined, end, days,
  });
  if (result === null) {
    console.error('hermetic: interrupted — nothing was written');
    return 130;
  }
  console.log(`wrote ${result.path}: schema v${Math.min(result.level, 30)}${result.createdAt !== result.level ? ` (created at v${result.createdAt})` : ''}, ` +
    `${result.journal} journal, ${counted(result.sessions, 'session')}, ${counted(result.messages, 'message')}` +
    (result.walOnlySessions ? `, ${counted(result.walOnlySessions, 'session')} only in -wal` : ''));
  return 0;
}

/**
 * Generates with SIGINT and SIGTERM taken over: either one stops the generator at its next pause (within about 50 ms),
 * its temporary files removed, and resolves null. A signal after the last pause comes too late to matter: the store is
 * whole and in place, and the result is returned.
 */
async function interruptible(options: GenerateOptions): Promise<GenerateResult | null> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await generateAsync(options, { signal: stop.signal });
  } catch (e) {
    if (stop.signal.aborted && e === stop.signal.reason) return null;
    throw e;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

async function inspectCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, 1);
  if (values.help) return console.log(STATEDB_HELP), 0;
  if (positionals.length !== 1 || positionals[0] === '') usageError('inspect needs exactly one PATH to a state.db.');
  const report = inspectStore(positionals[0]!);
  console.log(values.json ? JSON.stringify(report, null, 2) : formatReport(report));
  return 0;
}

/** @param now epoch milliseconds, the default --end (injected by tests) */
export async function statedbCommand(argv: string[], now: () => number = Date.now): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'generate':
      return generateCommand(rest, now);
    case 'inspect':
      return inspectCommand(rest);
    case '-h':
    case '--help':
    case 'help':
      console.log(STATEDB_HELP);
      return 0;
    case undefined:
      return usageError('statedb needs a command: generate or inspect.');
    default:
      throw new HermeticError('HERMETIC_CLI_USAGE', `Unknown statedb command "${command}"; use generate or inspect.`);
  }
}

/** `n` and the word, in the plural unless n is 1: "1 session", "12 sessions". */
const counted = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
