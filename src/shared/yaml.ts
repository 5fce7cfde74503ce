// The YAML parser, loaded the first time a YAML file is read: importing it up front cost every command that may read
// one (serve, backfill, forward) ~30 ms of start-up for its 73 modules, and most runs read no YAML at all.
import { createRequire } from 'node:module';

type Yaml = typeof import('yaml');
let loaded: Yaml | undefined;

/** The `yaml` package, required on first use. */
export function yaml(): Yaml {
  return (loaded ??= createRequire(import.meta.url)('yaml') as Yaml);
}
