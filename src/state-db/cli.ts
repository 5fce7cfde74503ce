// `hermetic statedb <generate|inspect>`: placeholder dispatcher until the state-db toolkit lands.
import { HermeticError } from '../shared/errors.js';

export async function statedbCommand(argv: string[]): Promise<number> {
  throw new HermeticError('HERMETIC_CLI_USAGE', `"hermetic statedb ${argv[0] ?? ''}" is not available yet.`);
}
