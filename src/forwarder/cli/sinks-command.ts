// `hermetic sinks remove URL`: stop feeding a remote sink. Its cursor goes; with the last sink, the change log and its
// triggers go too, so the forwarder pays nothing for sinks again (decision 0035). The destination keeps what it has.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseFlags, usageError } from '../../cli/args.js';
import { HermeticError } from '../../shared/errors.js';
import { hermeticHome } from '../home.js';
import { removeSink, sinkRows } from '../sinks/remote/changelog.js';
import { displayUrl } from '../sinks/remote/registry.js';
import { DATASET_FILE, openDataset } from '../sinks/sqlite/dataset.js';
import { SINKS_HELP } from './help.js';

/** The flags sinks parses (its help page documents each: help.test.ts). */
export const FLAGS = { home: { type: 'string' }, help: { type: 'boolean', short: 'h' } } as const;

export async function sinksCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, FLAGS, 2);
  if (values.help) return console.log(SINKS_HELP), 0;
  const [action, target] = positionals;
  if (action !== 'remove') usageError(action === undefined ? 'Say what to do: hermetic sinks remove URL.' : `Unknown sinks action "${action}"; use: hermetic sinks remove URL.`);
  if (target === undefined) usageError('hermetic sinks remove needs the sink\'s URL (as hermetic status shows it).');
  const home = resolve(hermeticHome(values.home));
  // Nothing to remove from a dataset that is not there, and none is made to say so.
  if (!existsSync(join(home, DATASET_FILE))) throw new HermeticError('HERMETIC_SINK_UNKNOWN', `The dataset feeds no sink ${displayUrl(target)}: there is no dataset in ${home} yet.`);
  const db = openDataset(home);
  try {
    const rows = sinkRows(db);
    const shown = displayUrl(target);
    // The URL as given (with or without its password), as status shows it, or the sink's id.
    let found = rows.find((r) => r.sink_id === target || r.display === target || r.display === shown);
    if (!found && /^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
      const { createRemoteSink } = await import('../sinks/remote/registry.js');
      const id = await createRemoteSink(target, { home }).then((s) => s.id, () => null);
      found = rows.find((r) => r.sink_id === id);
    }
    if (!found) {
      throw new HermeticError('HERMETIC_SINK_UNKNOWN', `The dataset feeds no sink ${shown}${rows.length ? `; it feeds ${rows.map((r) => r.display).join(', ')}` : ' (it feeds none)'}.`);
    }
    removeSink(db, found.sink_id);
    console.log(`sinks: ${found.display} removed${rows.length === 1 ? '; no sink is left, so the change log is gone too' : ''}`);
    return 0;
  } finally {
    db.close();
  }
}
