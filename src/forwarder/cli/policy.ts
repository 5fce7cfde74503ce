// `hermetic policy check PATH`: which usage-policy class governs a folder, and why (spec forwarding §4).
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseFlags, usageError } from '../../cli/args.js';
import { HermeticError } from '../../shared/errors.js';
import { hermeticHome } from '../home.js';
import { createPolicyResolver, explainPolicy } from '../policy/index.js';
import { POLICY_HELP } from './help.js';

/** The flags policy parses (its help page documents each: help.test.ts). */
export const FLAGS = { home: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;

export async function policyCommand(argv: string[]): Promise<number> {
  // Flags may come before or after `check` (`policy --home H check DIR` as well as `policy check DIR --home H`).
  const { values, positionals } = parseFlags(argv, FLAGS, 3);
  const [sub, ...rest] = positionals;
  if (values.help || sub === 'help') return console.log(POLICY_HELP), 0;
  if (sub !== 'check') usageError(sub === undefined ? 'policy needs a command: check PATH.' : `Unknown policy command "${sub}"; use check PATH.`);
  if (rest.length !== 1) usageError('policy check needs exactly one PATH (a folder).');
  // An empty PATH would resolve to the current folder: a slip in a script must not read as that folder's answer.
  if (rest[0]!.trim() === '') usageError('policy check PATH must not be empty; give a folder (. for the current one).');
  const positional = rest;
  const verdict = createPolicyResolver({ stateDir: hermeticHome(values.home), now: Date.now }).resolve(existingFolder(positional[0]!));
  console.log(values.json ? JSON.stringify(verdict, null, 2) : explainPolicy(verdict).join('\n'));
  return 0;
}

/** The absolute path of a folder that exists, or a refusal (HERMETIC_POLICY_PATH): a typo must not read as `full`. */
export function existingFolder(path: string): string {
  const abs = resolve(path);
  let isDir: boolean;
  try {
    isDir = statSync(abs).isDirectory();
  } catch {
    throw new HermeticError('HERMETIC_POLICY_PATH', `${abs} does not exist; give a folder (a session's working directory or a scope).`);
  }
  if (!isDir) throw new HermeticError('HERMETIC_POLICY_PATH', `${abs} is a file, not a folder; give the folder a session ran in.`);
  return abs;
}
