// The `hermetic` command: dispatches to its subcommands and turns HERMETIC_* errors into one plain line.
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import { isHermeticError } from '../shared/errors.js';
import { serveCommand } from '../emulator/serve/cli.js';
import { statedbCommand } from '../state-db/cli.js';

const HELP = `Usage: hermetic <command> [options]

Commands:
  serve      emulate Hermes Agent's /v1/runs API over HTTP (hermetic serve --help)
  statedb    make and inspect Hermes state.db stores (hermetic statedb --help)

Options:
  -h, --help     show this help
  -v, --version  show the version
`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'serve':
        return await serveCommand(rest);
      case 'statedb':
        return await statedbCommand(rest);
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        console.log(HELP);
        return command === undefined ? 1 : 0;
      case '-v':
      case '--version':
        console.log(version());
        return 0;
      default:
        console.error(`hermetic: unknown command "${command}". Run "hermetic --help" for the commands. [HERMETIC_CLI_USAGE]`);
        return 2;
    }
  } catch (e) {
    if (isHermeticError(e)) {
      console.error(`hermetic: ${e.message} [${e.code}]`);
      return e.code === 'HERMETIC_CLI_USAGE' ? 2 : 1;
    }
    console.error(`hermetic: unexpected failure: ${(e as Error).message}`);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
