// URL schemes → remote sink factories (decision 0035). Each sink's module is imported only when a URL of its scheme is
// given: a forwarder without sinks loads none of them (and none of their drivers).
import { hidePassword, userInfoProblem } from '../../../shared/url-password.js';
import { suggest } from '../../../shared/options.js';
import { SinkError, type RemoteSink, type SinkFactory, type SinkFactoryOptions } from './contract.js';

/** A scheme's module, imported on first use, and the factory it exports. */
const SCHEMES: Readonly<Record<string, { load: () => Promise<Record<string, unknown>>; factory: string }>> = {
  sqlite: { load: () => import('./sqlite-file.js'), factory: 'createSqliteFileSink' },
  postgres: { load: () => import('../postgres/index.js'), factory: 'createPostgresSink' },
  postgresql: { load: () => import('../postgres/index.js'), factory: 'createPostgresSink' },
  'otlp+http': { load: () => import('../otlp/index.js'), factory: 'otlpSinkFactory' },
  'otlp+http-json': { load: () => import('../otlp/index.js'), factory: 'otlpSinkFactory' },
  'otlp+https': { load: () => import('../otlp/index.js'), factory: 'otlpSinkFactory' },
  'otlp+https-json': { load: () => import('../otlp/index.js'), factory: 'otlpSinkFactory' },
};

export const SINK_SCHEMES: readonly string[] = Object.keys(SCHEMES);

/** The URL as it may be printed (its password as `***`). */
export const displayUrl = hidePassword;

/** The scheme of a sink URL, checked against the registry (a refusal names the schemes there are, and a near one). */
export function sinkScheme(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url);
  if (!m) {
    throw new SinkError('HERMETIC_SINK_URL', `"${displayUrl(url)}" is not a sink URL; a sink is given as SCHEME://…, with SCHEME one of ${SINK_SCHEMES.join(', ')}`, false);
  }
  // A URL has no blank in it (a space is %20): one there is a typo, such as a config line run into the next.
  if (/\s/.test(url)) {
    throw new SinkError('HERMETIC_SINK_URL', `"${displayUrl(url)}" has a blank in it; a sink URL writes a space as %20 (a config file's line may have run into the next)`, false);
  }
  const userInfo = userInfoProblem(url);
  if (userInfo) throw new SinkError('HERMETIC_SINK_URL', `"${displayUrl(url)}": ${userInfo}`, false);
  const scheme = m[1]!.toLowerCase();
  if (!Object.hasOwn(SCHEMES, scheme)) {
    const hint = suggest(scheme, SINK_SCHEMES);
    throw new SinkError('HERMETIC_SINK_URL', `No sink serves "${scheme}://" URLs${hint ? `; did you mean "${hint}://"?` : ''} (there are ${SINK_SCHEMES.map((s) => `${s}://`).join(', ')})`, false);
  }
  return scheme;
}

/**
 * Makes the sink a URL names, importing its module on first use.
 * @example const sink = await createRemoteSink('sqlite:///backup/hermetic-copy.db', { home });
 */
export async function createRemoteSink(url: string, options: SinkFactoryOptions): Promise<RemoteSink> {
  const entry = SCHEMES[sinkScheme(url)]!;
  let mod: Record<string, unknown>;
  try {
    mod = await entry.load();
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND') throw new SinkError('HERMETIC_SINK_NOT_BUILT', `The sink for ${displayUrl(url)} is not part of this build of Hermetic`, false, { cause: e });
    throw e;
  }
  const factory = mod[entry.factory];
  if (typeof factory !== 'function') throw new SinkError('HERMETIC_SINK_NOT_BUILT', `The sink module for ${displayUrl(url)} has no ${entry.factory}()`, false);
  return (factory as SinkFactory)(url, options);
}
