// Where Hermetic keeps the forwarder's dataset, policy list and state: one small module, so commands that only read
// the dataset (report, query, status) need not load the pipeline.
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Hermetic's home: the option, else HERMETIC_HOME, else ~/.hermetic. */
export function hermeticHome(option: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return option ?? env.HERMETIC_HOME ?? join(homedir(), '.hermetic');
}
