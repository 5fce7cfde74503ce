// `hermetic statedb <generate|inspect>`: make deterministic synthetic Hermes stores and inspect real ones.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { HermeticError } from '../shared/errors.js';
import { generate, PROFILES } from './generate/index.js';
import { formatReport, inspectStore } from './inspect.js';
import { LATEST_LEVEL } from './schema/types.js';

const HELP = `Usage: hermetic statedb <command> [options]

Commands:
  generate --out PATH [--schema 30] [--sessions N] [--messages M] [--seed S] [--journal wal|delete]
           [--profile NAME] [--created-at N] [--no-fts]
      write a deterministic synthetic state.db (same options, same SQL dump)
  inspect PATH [--json]
      schema version, journal mode, table counts and column differences (read-only)

Schema: 1..30, "30-pre-daily" (v30 before session_daily_usage); 30 means the current v30 with it.
Profiles: ${Object.keys(PROFILES).join(', ')}
`;

/** Maps a --schema value to a level (30 → 31, the current v30 with session_daily_usage). */
export function parseSchema(value: string): number {
  if (value === '30-pre-daily') return 30;
  if (value === 'latest') return LATEST_LEVEL;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 30) {
    throw new HermeticError('HERMETIC_STATEDB_SCHEMA', `Schema version "${value}" is not known; use 1 to 30 or 30-pre-daily.`);
  }
  return n === 30 ? LATEST_LEVEL : n;
}

function positiveInt(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new HermeticError('HERMETIC_CLI_USAGE', `--${name} must be a positive whole number, not "${value}".`);
  return n;
}

type Values = Record<string, string | boolean | undefined>;

function parse(argv: string[], options: ParseArgsConfig['options']): { values: Values; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return { values: values as Values, positionals };
  } catch (e) {
    throw new HermeticError('HERMETIC_CLI_USAGE', `${(e as Error).message.replace(/\.$/, '')}.`);
  }
}

async function generateCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    out: { type: 'string' }, schema: { type: 'string' }, sessions: { type: 'string' }, messages: { type: 'string' },
    seed: { type: 'string' }, journal: { type: 'string' }, profile: { type: 'string' }, 'created-at': { type: 'string' },
    'no-fts': { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return console.log(HELP), 0;
  if (positionals.length > 0) throw new HermeticError('HERMETIC_CLI_USAGE', `Unexpected argument "${positionals[0]}".`);
  if (typeof values.out !== 'string') throw new HermeticError('HERMETIC_CLI_USAGE', 'generate needs --out PATH.');
  const journal = values.journal as string | undefined;
  if (journal !== undefined && journal !== 'wal' && journal !== 'delete') {
    throw new HermeticError('HERMETIC_CLI_USAGE', `--journal must be wal or delete, not "${journal}".`);
  }
  const level = typeof values.schema === 'string' ? parseSchema(values.schema) : undefined;
  const createdAt = typeof values['created-at'] === 'string' ? parseSchema(values['created-at']) : undefined;
  if (createdAt !== undefined && level !== undefined && createdAt > level) {
    throw new HermeticError('HERMETIC_CLI_USAGE', '--created-at must not be newer than --schema.');
  }
  const result = generate({
    out: values.out, level, createdAt, journal, profile: values.profile as string | undefined,
    sessions: positiveInt('sessions', values.sessions as string | undefined),
    messages: positiveInt('messages', values.messages as string | undefined), seed: values.seed as string | undefined,
    fts: values['no-fts'] ? false : undefined,
  });
  console.log(`wrote ${result.path}: schema v${Math.min(result.level, 30)}${result.createdAt !== result.level ? ` (created at v${result.createdAt})` : ''}, ` +
    `${result.journal} journal, ${result.sessions} sessions, ${result.messages} messages` +
    (result.walOnlySessions ? `, ${result.walOnlySessions} sessions only in -wal` : ''));
  return 0;
}

async function inspectCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } });
  if (values.help) return console.log(HELP), 0;
  if (positionals.length !== 1) throw new HermeticError('HERMETIC_CLI_USAGE', 'inspect needs exactly one PATH to a state.db.');
  const report = inspectStore(positionals[0]!);
  console.log(values.json ? JSON.stringify(report, null, 2) : formatReport(report));
  return 0;
}

export async function statedbCommand(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'generate':
      return generateCommand(rest);
    case 'inspect':
      return inspectCommand(rest);
    case undefined:
    case '-h':
    case '--help':
    case 'help':
      console.log(HELP);
      return command === undefined ? 1 : 0;
    default:
      throw new HermeticError('HERMETIC_CLI_USAGE', `Unknown statedb command "${command}"; use generate or inspect.`);
  }
}
