// The `hermetic` command: dispatches to its subcommands and turns HERMETIC_* errors into one plain line on stderr.
// Exit codes (docs/reference/errors.md): 0 done, 2 the command line was refused (a 4xx code), 1 it failed (5xx).
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import { HermeticError, isHermeticError } from '../shared/errors.js';
import { damagedFile } from '../shared/sqlite-errors.js';
import { terminalText } from '../shared/terminal-text.js';
import { oneLineWarnings } from './warnings.js';
import { outputErrorsSaid } from './output.js';
import { suggest } from '../shared/options.js';
import { releaseStopSignals } from './stop-signals.js';
import { tuneForBulkReads } from './v8-tuning.js';

// Each command's modules are loaded when it runs: a backfill does not pay for the emulator's (prom-client, the HTTP
// stack) or the generator's start-up (issue 16 §4: a fixed cost of every run).
const serveCommand = async (argv: string[]) => (await import('../emulator/serve/cli.js')).serveCommand(argv);
const statedbCommand = async (argv: string[]) => (await import('../state-db/cli.js')).statedbCommand(argv);
const backfillCommand = async (argv: string[]) => (tuneForBulkReads(), (await import('../forwarder/cli/backfill.js')).backfillCommand(argv));
const forwardCommand = async (argv: string[]) => (tuneForBulkReads(), (await import('../forwarder/cli/forward.js')).forwardCommand(argv));
const statusCommand = async (argv: string[]) => (await import('../forwarder/cli/status.js')).statusCommand(argv);
const queryCommand = async (argv: string[]) => (await import('../forwarder/cli/query.js')).queryCommand(argv);
const policyCommand = async (argv: string[]) => (await import('../forwarder/cli/policy.js')).policyCommand(argv);
const reportCommand = async (argv: string[]) => (await import('../forwarder/cli/report.js')).reportCommand(argv);
const exportCommand = async (argv: string[]) => (await import('../forwarder/cli/export.js')).exportCommand(argv);
const webCommand = async (argv: string[]) => (await import('../forwarder/cli/web.js')).webCommand(argv);
const forgetCommand = async (argv: string[]) => (await import('../forwarder/cli/forget.js')).forgetCommand(argv);
const sinksCommand = async (argv: string[]) => (await import('../forwarder/cli/sinks-command.js')).sinksCommand(argv);

const COMMANDS = ['serve', 'statedb', 'backfill', 'forward', 'status', 'report', 'export', 'web', 'query', 'policy', 'forget', 'sinks'] as const;
/** What a missing or unknown command is told: every command, in order. */
const USE_ONE_OF = `use ${COMMANDS.slice(0, -1).join(', ')} or ${COMMANDS.at(-1)}.`;

const HELP = `Usage: hermetic <command> [options]

Commands:
  serve      emulate Hermes Agent's /v1/runs API over HTTP
  statedb    make and inspect Hermes state.db stores
  backfill   read Hermes's state.db stores into the dataset once
  forward    keep the dataset up to date as Hermes writes
  status     stores found, cursors, rows, errors, quarantined sessions, sinks
  report     what the agent spent: cost and tokens by day, model, session, …
  export     the dataset as Parquet files for DuckDB, pandas, Spark
  web        the usage dashboard in a browser, over the dataset
  query      read-only SQL on the dataset (hermetic query "SELECT ...")
  policy     which usage policy governs a folder (hermetic policy check PATH)
  forget     remove what was forwarded before its folder became ignore
  sinks      stop feeding a remote sink (hermetic sinks remove URL)

Each command's options: hermetic <command> --help.

Options:
  -h, --help     show this help
  -v, --version  show the version

Exit codes: 0 done, 2 the command line was refused (see --help), 1 the command
failed, 3 a report over its --max-cost; serve, forward and web stop cleanly
with 0 on Ctrl-C (SIGINT) or SIGTERM. Error codes: docs/reference/errors.md
`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** The exit code for a Hermetic error: 2 when the command line was refused (4xx), 1 when the command failed. */
export function exitCode(e: HermeticError): 1 | 2 {
  return e.status < 500 ? 2 : 1;
}

/**
 * Refusals of a well-formed command line whose message already says what to do next: nothing matched what it names
 * (decision 0100's left item). They keep exit 2, as their help pages document, without pointing at the options.
 */
const NOT_THE_OPTIONS = new Set(['HERMETIC_FORGET_NONE', 'HERMETIC_FORGET_READ', 'HERMETIC_SINK_UNKNOWN']);

/** Where a refused command line's reader should look next. */
function helpFor(argv: string[]): string {
  const [command, sub] = argv;
  if (command === 'serve') return 'Run "hermetic serve --help" for the options.';
  if (['backfill', 'forward', 'status', 'report', 'export', 'web', 'query', 'policy', 'forget', 'sinks'].includes(command ?? '')) return `Run "hermetic ${command} --help" for the options.`;
  if (command === 'statedb') return `Run "hermetic statedb --help" for the ${sub === 'generate' || sub === 'inspect' ? 'options' : 'commands'}.`;
  return 'Run "hermetic --help" for the commands.';
}

/**
 * Runs one `hermetic` command line and resolves with its exit code; never throws. A refusal or failure is one line;
 * only a bug (HERMETIC_INTERNAL, or any error Hermetic did not expect) prints its stack after that line.
 * @example process.exitCode = await main(['statedb', 'inspect', 'state.db']);
 */
export async function main(argv: string[]): Promise<number> {
  oneLineWarnings();
  outputErrorsSaid();
  const [command, ...rest] = argv;
  try {
    // Only `serve`, `forward` and `web` stop cleanly on SIGINT/SIGTERM (they take the signals over); every other command
    // ends by the signal as any process does, and one the bin held while the modules loaded ends it now.
    if (command !== 'serve' && command !== 'forward' && command !== 'web') await releaseStopSignals();
    switch (command) {
      case 'serve':
        return await serveCommand(rest);
      case 'statedb':
        return await statedbCommand(rest);
      case 'backfill':
        return await backfillCommand(rest);
      case 'forward':
        return await forwardCommand(rest);
      case 'status':
        return await statusCommand(rest);
      case 'report':
        return await reportCommand(rest);
      case 'export':
        return await exportCommand(rest);
      case 'web':
        return await webCommand(rest);
      case 'query':
        return await queryCommand(rest);
      case 'policy':
        return await policyCommand(rest);
      case 'forget':
        return await forgetCommand(rest);
      case 'sinks':
        return await sinksCommand(rest);
      case '-h':
      case '--help':
      case 'help':
        console.log(HELP);
        return 0;
      case '-v':
      case '--version':
        console.log(version());
        return 0;
      case undefined:
        throw new HermeticError('HERMETIC_CLI_USAGE', `No command given; ${USE_ONE_OF}`);
      default: {
        // A mistyped command gets the did-you-mean a mistyped option gets; an option where the command goes is said so.
        const guess = suggest(command, COMMANDS);
        if (command.startsWith('-')) throw new HermeticError('HERMETIC_CLI_USAGE', `Unknown option "${command}": the command comes first; ${USE_ONE_OF}`);
        throw new HermeticError('HERMETIC_CLI_USAGE', guess ? `Unknown command "${command}"; did you mean "${guess}"?` : `Unknown command "${command}"; ${USE_ONE_OF}`);
      }
    }
  } catch (caught) {
    // A damaged dataset is the file's state, not a bug: said in a sentence with what to do.
    const e = damagedFile(caught) ?? caught;
    if (isHermeticError(e) && e.code !== 'HERMETIC_INTERNAL') {
      const code = exitCode(e);
      // One line, harmless on a terminal: a message quotes what it was given (an id, a path, SQL, a value from a
      // store), and no line break or escape sequence in that may end the line early or steer the terminal.
      console.error(`hermetic: ${terminalText(e.message)} [${e.code}]`);
      if (code === 2 && !NOT_THE_OPTIONS.has(e.code)) console.error(helpFor(argv));
      return code;
    }
    // A bug: said in one line, then its stack, so it can be reported (and fails the tests that meet it).
    console.error(`hermetic: unexpected failure: ${(e as Error)?.message ?? String(e)} (a bug: please report it with the command line and what follows) [HERMETIC_INTERNAL]`);
    console.error((e as Error)?.stack ?? String(e));
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
