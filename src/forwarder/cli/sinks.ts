// The remote-sink flags of `backfill` and `forward` (decision 0035): --sink URL (repeatable) added to the config file's
// `sinks:`, --no-redact, --config FILE. The sinks are made (and their URLs checked) before the local pass runs.
import { resolve } from 'node:path';
import type { FlagSpec } from '../../cli/args.js';
import { loadForwarderConfig } from '../config.js';
import { hermeticHome } from '../home.js';
import type { RemoteSink } from '../sinks/remote/contract.js';
import type { SinkSpec } from '../sinks/remote/index.js';

export const SINK_FLAGS = {
  sink: { type: 'string', multiple: true },
  'no-redact': { type: 'boolean' },
  config: { type: 'string' },
} as const satisfies Record<string, FlagSpec>;

export interface SinkSetup {
  home: string;
  specs: SinkSpec[];
  sinks: RemoteSink[];
  redact: boolean;
  /** The config file read, or null. */
  configPath: string | null;
}

/** The sinks of this run: the config file's, then --sink's; none loads no sink module at all. */
export async function sinkSetup(values: { home?: string; sink?: string[]; 'no-redact'?: true; config?: string }): Promise<SinkSetup> {
  const home = resolve(hermeticHome(values.home));
  const config = loadForwarderConfig(values.config, home);
  const specs: SinkSpec[] = [...config.sinks, ...(values.sink ?? []).map((url) => ({ url }))];
  if (specs.length === 0) return { home, specs, sinks: [], redact: values['no-redact'] !== true, configPath: config.path };
  const { makeSinks } = await import('../sinks/remote/index.js');
  return { home, specs, sinks: await makeSinks(specs, home), redact: values['no-redact'] !== true, configPath: config.path };
}
