// `hermetic forget --session ID | --scope DIR`: removes from the dataset what was forwarded before its folder became
// `ignore` (pipeline/forget.ts); sessions that are not ignored now are named and kept. `--store PATH`: every row read
// from a store no pass reads any more.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseFlags, usageError } from '../../cli/args.js';
import { HermeticError } from '../../shared/errors.js';
import { forgetSessions, forgetStores } from '../pipeline/forget.js';
import { hermeticHome } from '../home.js';
import { findStores } from '../pipeline/stores.js';
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
export const FLAGS = { ...COMMON_FLAGS, session: { type: 'string', multiple: true }, scope: { type: 'string' }, store: { type: 'string', multiple: true } } as const;

export async function forgetCommand(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, FLAGS);
  if (values.help) return console.log(FORGET_HELP), 0;
  const asked = [values.session, values.scope, values.store].filter((v) => v !== undefined).length;
  if (asked !== 1) usageError('forget needs one of --session ID (repeatable), --scope DIR or --store PATH (repeatable).');
  if (values.store !== undefined) {
    if (values['state-db'] !== undefined) usageError('forget --store names the stores itself; leave out --state-db.');
    return forgetStoresCommand(values.store, values.home, values.json === true);
  }
  // A folder that is gone (a deleted project, one the machine's list ignores) can still be forgotten: only a file is
  // refused, as it cannot hold sessions.
  const scope = values.scope === undefined ? undefined : scopeFolder(values.scope);
  return onDataset(values.home, (sink, home) => {
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
  });
}

/** `fn` on the dataset under Hermetic's home (`--home`), closed after; refused when there is none yet. */
function onDataset<T>(homeOption: string | undefined, fn: (sink: SqliteSink, home: string) => T): T {
  const home = resolve(hermeticHome(homeOption));
  if (!existsSync(join(home, DATASET_FILE))) throw new HermeticError('HERMETIC_DATASET_OPEN', `There is no dataset at ${join(home, DATASET_FILE)} yet; there is nothing to forget.`);
  const sink = SqliteSink.open(home);
  try {
    return fn(sink, home);
  } finally {
    sink.close();
  }
}

/** `forget --store PATH`: every row read from each store, removed (pipeline/forget.ts forgetStores). */
function forgetStoresCommand(given: string[], homeOption: string | undefined, json: boolean): number {
  return onDataset(homeOption, (sink, home) => {
    const r = forgetStores(sink, given, findStores(), home);
    if (json) {
      console.log(JSON.stringify({ stores: r.map((s) => ({ store: s.store, sessions: s.sessions, messages_removed: s.messagesRemoved, parts_removed: s.partsRemoved, mirror_removed: s.mirror })) }, null, 2));
      return 0;
    }
    for (const s of r) {
      const mirror = s.mirror === null ? '' : `; its local mirror ${s.mirror} deleted`;
      console.log(terminalText(`forget: store ${s.store} removed (${plural(s.sessions, 'session')}, ${plural(s.messagesRemoved, 'message')}, ${plural(s.partsRemoved, 'part')}, with their usage, issues and cursors)${mirror}.`));
    }
    return 0;
  });
}
