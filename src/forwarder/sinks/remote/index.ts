// Remote sinks as the commands use them: sinks made from URLs (checked before anything runs), the shipper over its own
// connection to the dataset, and the machine's origin. The parts: contract.ts, changelog.ts, deltas.ts, shipper.ts,
// registry.ts, conformance.ts (decision 0035).
import { HermeticError, type ErrorCode, ERROR_CODES } from '../../../shared/errors.js';
import { openDataset, type DatasetOptions } from '../sqlite/dataset.js';
import { SinkError, type RemoteSink } from './contract.js';
import { machineOrigin } from './origin.js';
import { createRemoteSink } from './registry.js';
import { Shipper, type ShipperOptions, type ShipResult } from './shipper.js';

export { displayUrl, SINK_SCHEMES } from './registry.js';
export { Shipper, type ShipResult } from './shipper.js';

export interface SinkSpec {
  url: string;
  /** false: no redaction for this sink; undefined: the run's default. */
  redact?: boolean;
  options?: Readonly<Record<string, unknown>>;
  /** Where a config file wrote it (`In …/config.yaml, sinks.0`): said before a refusal of it. */
  where?: string;
}

/** A SinkError as the HermeticError a command reports (its code when it is one of the catalogue's). */
export function asHermeticError(e: SinkError): HermeticError {
  const code = (Object.hasOwn(ERROR_CODES, e.code) ? e.code : e.retriable ? 'HERMETIC_SINK_UNAVAILABLE' : 'HERMETIC_SINK_FAILED') as ErrorCode;
  return new HermeticError(code, e.message.endsWith('.') ? e.message : `${e.message}.`);
}

/** Makes every sink (an unknown scheme or a malformed URL is refused here, before any work). */
export async function makeSinks(specs: readonly SinkSpec[], home: string, cwd = process.cwd()): Promise<RemoteSink[]> {
  const out: RemoteSink[] = [];
  for (const s of specs) {
    try {
      out.push(await createRemoteSink(s.url, { home, cwd, ...(s.options ? { settings: s.options } : {}) }));
    } catch (e) {
      const h = e instanceof SinkError ? asHermeticError(e) : e;
      // A config file's entry: its refusal says where the entry is, as the file's own refusals do.
      throw s.where !== undefined && h instanceof HermeticError ? new HermeticError(h.code, `${s.where}: ${h.message}`) : h;
    }
  }
  const seen = new Set<string>();
  for (const s of out) {
    if (seen.has(s.id)) throw new HermeticError('HERMETIC_SINK_DUPLICATE', `The sink ${s.display} is given twice (by --sink or the config file's sinks:).`);
    seen.add(s.id);
  }
  return out;
}

export interface OpenShipperOptions extends Pick<ShipperOptions, 'say' | 'once' | 'onShipped' | 'now' | 'random' | 'limits'> {
  home: string;
  sinks: readonly RemoteSink[];
  specs: readonly SinkSpec[];
  /** Redaction for sinks that leave the machine (default true; --no-redact). A spec's own `redact: false` wins. */
  redact: boolean;
  dataset?: DatasetOptions;
}

/**
 * The shipper for a command: its own connection to the dataset (created if missing), the home's origin.
 * @example const s = openShipper({ home, sinks, specs, redact: true }); await s.shipAll(); await s.close();
 */
export function openShipper(options: OpenShipperOptions): Shipper & { closeAll(): Promise<void> } {
  const db = openDataset(options.home, options.dataset);
  const off = new Set(options.sinks.filter((_, i) => options.specs[i]?.redact === false).map((s) => s.id));
  const shipper = new Shipper({
    db, sinks: options.sinks, origin: machineOrigin(options.home), say: options.say, once: options.once, onShipped: options.onShipped, now: options.now, random: options.random, limits: options.limits,
    redact: (sink) => options.redact && !off.has(sink.id),
  });
  return Object.assign(shipper, {
    closeAll: async () => {
      await shipper.close();
      db.close();
    },
  });
}

/**
 * One line for a sink's pass, for the commands' output. A failure's sentence is not repeated here: the shipper said it
 * on stderr when it happened (shipper.ts `say`); this line gives its code and what became of the sink.
 */
export function shipLine(r: ShipResult): string {
  const what = `${r.rows.toLocaleString('en-US')} row${r.rows === 1 ? '' : 's'} in ${r.batches} batch${r.batches === 1 ? '' : 'es'}`;
  switch (r.state) {
    case 'caught-up': return `sink ${r.display}: up to date (${what} sent)`;
    case 'behind': return `sink ${r.display}: ${what} sent, more to send`;
    case 'waiting': return `sink ${r.display}: waiting to retry after ${new Date((r.retryAt ?? 0) * 1000).toISOString()}`;
    case 'retrying': return `sink ${r.display}: failed [${r.error!.code}], ${what} sent; its cursor stays and it catches up on a later try`;
    case 'stopped': return `sink ${r.display}: stopped [${r.error!.code}]`;
  }
}
