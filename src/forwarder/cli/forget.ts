// `hermetic forget --session ID | --scope DIR`: removes from the dataset what was forwarded before its folder became
// `ignore` (pipeline/forget.ts); sessions that are not ignored now are named and kept.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseFlags, usageError } from '../../cli/args.js';
import { HermeticError } from '../../shared/errors.js';
import { forgetSessions } from '../pipeline/forget.js';
import { hermeticHome } from '../pipeline/forwarder.js';
import { createPolicyResolver } from '../policy/index.js';
import { explicitStore } from '../reader/discover.js';
import { DATASET_FILE } from '../sinks/sqlite/dataset.js';
import { SqliteSink } from '../sinks/sqlite/sink.js';
import { COMMON_FLAGS, plural } from './common.js';
import { FORGET_HELP } from './help.js';
import { terminalText } from '../../shared/terminal-text.js';
import { existingFolder } from './policy.js';

function scopeFolder(path: string): string {
  const abs = resolve(path);
  return existsSync(abs) ? existingFolder(abs) : abs;
}

/** The flags forget parses (its help page documents each: help.test.ts). */
export const FLAGS = { ...COMMON_FLAGS, session: { type: 'string', multiple: true }, scope: { type: 'string' } } as const;

export async function forgetCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, FLAGS);
  if (values.help) return console.log(FORGET_HELP), 0;
  if ((values.session === undefined) === (values.scope === undefined)) usageError('forget needs --session ID (repeatable) or --scope DIR, not both.');
  // A folder that is gone (a deleted project, one the machine's list ignores) can still be forgotten: only a file is
  // refused, as it cannot hold sessions.
  const scope = values.scope === undefined ? undefined : scopeFolder(values.scope);
  const home = resolve(hermeticHome(values.home));
  if (!existsSync(join(home, DATASET_FILE))) throw new HermeticError('HERMETIC_DATASET_OPEN', `There is no dataset at ${join(home, DATASET_FILE)} yet; there is nothing to forget.`);
  const sink = SqliteSink.open(home);
  try {
    const policy = createPolicyResolver({ stateDir: home, now: Date.now });
    const stores = values['state-db']?.map(explicitStore);
    const r = forgetSessions(sink, policy, { sessions: values.session, scope, stores });
    if (values.json) {
      console.log(JSON.stringify({ forgotten: r.forgotten, kept: r.kept, messages_removed: r.written.messagesRemoved, parts_removed: r.written.partsRemoved }, null, 2));
    }
    for (const k of r.kept) console.error(terminalText(`hermetic: session ${k.sessionId} kept: ${k.reason} (only what the usage policy ignores now is forgotten)`));
    if (r.forgotten.length === 0) {
      // As typed, but harmless on a terminal: an id or folder holding a line break or an escape is shown as such.
      const what = terminalText(scope !== undefined ? `under ${scope}` : `with id ${values.session!.join(', ')}`);
      throw new HermeticError('HERMETIC_FORGET_NONE', r.kept.length === 0
        ? `No forwarded session ${what}; nothing was removed.`
        : `None of the ${plural(r.kept.length, 'session')} ${what} is ignored by the usage policy now; nothing was removed (put "ignore" in a .hypignore above it first).`);
    }
    if (!values.json) console.log(`forget: ${plural(r.forgotten.length, 'session')} removed (${plural(r.written.messagesRemoved, 'message')}, ${plural(r.written.partsRemoved, 'part')}, with their usage and issues)${r.kept.length ? `; ${r.kept.length} kept` : ''}.`);
    return 0;
  } finally {
    sink.close();
  }
}
