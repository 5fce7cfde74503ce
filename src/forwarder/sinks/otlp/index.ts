// The OTLP sink's face: `createOtlpSink(url, options)` for otlp+http:// (protobuf) and otlp+http-json:// (JSON)
// receivers, and the pieces the CLI and tests name (decision 0039).
import { join } from 'node:path';
import { DATASET_FILE } from '../sqlite/dataset.js';
import { otlpSettings, type OtlpSinkOptions } from './options.js';
import { OtlpSink } from './sink.js';

export { isOtlpUrl, otlpSettings, type OtlpSinkOptions, type OtlpSettings, type OtlpPartialSuccess } from './options.js';
export { OtlpSink, type OtlpWriteResult } from './sink.js';
export { traceIdOf, spanIdOf } from './ids.js';

/**
 * A RemoteSink sending a dataset's deltas to an OTLP/HTTP receiver. Throws HermeticError (HERMETIC_SINK_OTLP_URL,
 * HERMETIC_SINK_OTLP_HEADERS, HERMETIC_OPTIONS_*) on a bad URL or option; its writes throw SinkError.
 * @example const sink = createOtlpSink('otlp+http://localhost:4318', { headers: ['x-api-key=…'], datasetPath: home + '/hermetic.db' });
 */
export function createOtlpSink(url: string, options: OtlpSinkOptions & { now?: () => number } = {}): OtlpSink {
  const { now, ...rest } = options;
  return new OtlpSink(otlpSettings(url, rest), now);
}

/**
 * The factory the sink registry calls for otlp+… URLs (sinks/remote/registry.ts): the dataset in the Hermetic home
 * gives deltas their context, and a config file's `sinks:` entry (or --sink-header / --otlp-content) its settings.
 */
export function otlpSinkFactory(url: string, options: { home: string; settings?: Readonly<Record<string, unknown>> }): OtlpSink {
  return createOtlpSink(url, { ...(options.settings as OtlpSinkOptions | undefined), datasetPath: join(options.home, DATASET_FILE) });
}
