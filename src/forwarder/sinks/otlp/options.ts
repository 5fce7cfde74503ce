// The OTLP sink's front door: its URL (otlp+http://, otlp+http-json://, and the https forms), its headers (options
// over OTEL_EXPORTER_OTLP_*HEADERS) and its options, validated once and frozen. Header values never appear in a
// message, an id or a display string: they are often credentials.
import { hidePassword } from '../../../shared/url-password.js';
import { HermeticError } from '../../../shared/errors.js';
import { check, is, parseOptions, type OptionsInput } from '../../../shared/options.js';

export type OtlpEncoding = 'protobuf' | 'json';

export interface OtlpPartialSuccess {
  signal: 'traces' | 'metrics';
  /** Spans or data points the receiver refused, as it said. */
  rejected: number;
  message: string;
}

const SCHEMA = {
  /** Extra headers, `K=V` each (`--sink-header`), or an object; they win over OTEL_EXPORTER_OTLP_HEADERS. */
  headers: check<string[], string[] | Record<string, string>>((value, name) => {
    if (Array.isArray(value)) return is.stringArray(value, name);
    if (value && typeof value === 'object') {
      return Object.entries(value as Record<string, unknown>).map(([k, v]) => `${k}=${is.string(v, `${name}.${k}`)}`);
    }
    return is.stringArray(value, name);
  }),
  /** Message text, reasoning, tool arguments and results on the spans (`--otlp-content`); off by default. */
  content: is.boolean,
  /** The local dataset (hermetic.db), read read-only for what a delta leaves out: its turn's earlier messages. */
  datasetPath: is.nullable(is.string),
  /** The environment OTEL_EXPORTER_OTLP_HEADERS is read from (default: process.env). */
  env: check((value, name): Record<string, string | undefined> => {
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, string | undefined>;
    throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${name}" must be an object of environment variables.`);
  }),
  /** How long one POST may take before it counts as unreachable (retriable), in milliseconds. */
  timeoutMs: check((value, name): number => {
    const n = is.number(value, name);
    if (n <= 0) throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${name}" must be above 0; got ${n}.`);
    return n;
  }),
  /** Most spans in one request (default 1000: a whole backfill in one body would pass many receivers' size limits). */
  spansPerRequest: check((value, name): number => {
    const n = is.integer(value, name);
    if (n < 1) throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${name}" must be at least 1; got ${n}.`);
    return n;
  }),
  /** Most data points in one request (default 3000; a series' points are never split). */
  pointsPerRequest: check((value, name): number => {
    const n = is.integer(value, name);
    if (n < 9) throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${name}" must be at least 9 (one series); got ${n}.`);
    return n;
  }),
  /** Told of every partial success the receiver answers (spans or points it refused); default: one line on stderr. */
  onPartialSuccess: check((value, name): (p: OtlpPartialSuccess) => void => {
    if (typeof value === 'function') return value as (p: OtlpPartialSuccess) => void;
    throw new HermeticError('HERMETIC_OPTIONS_INVALID', `Option "${name}" must be a function.`);
  }),
};

export type OtlpSinkOptions = OptionsInput<typeof SCHEMA>;

export interface OtlpSettings {
  /** The receiver's base URL (http or https, with any path prefix, no trailing slash, no credentials). */
  base: string;
  tracesUrl: string;
  metricsUrl: string;
  encoding: OtlpEncoding;
  /** Headers per signal, names lower-cased; credentials from the URL become a Basic Authorization header. */
  tracesHeaders: Readonly<Record<string, string>>;
  metricsHeaders: Readonly<Record<string, string>>;
  /** The sink's stable id: `otlp+http://host:4318/prefix` without credentials. */
  id: string;
  display: string;
  content: boolean;
  datasetPath: string | null;
  timeoutMs: number;
  spansPerRequest: number;
  pointsPerRequest: number;
  onPartialSuccess: (p: OtlpPartialSuccess) => void;
  /** Span attribute values cut to so many characters (OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT, else
   * OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT, as the OpenTelemetry SDKs read them); null: no limit (the SDKs' default). */
  attributeValueLengthLimit: number | null;
}

const SCHEMES: Record<string, { http: 'http' | 'https'; encoding: OtlpEncoding }> = {
  'otlp+http:': { http: 'http', encoding: 'protobuf' },
  'otlp+https:': { http: 'https', encoding: 'protobuf' },
  'otlp+http-json:': { http: 'http', encoding: 'json' },
  'otlp+https-json:': { http: 'https', encoding: 'json' },
};

// The OpenTelemetry SDK environment variables for the attribute value length limit: the span one wins.
function lengthLimit(env: Record<string, string | undefined>): number | null {
  for (const name of ['OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT', 'OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT']) {
    const text = env[name]?.trim();
    if (!text) continue;
    if (!/^\d+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
      throw new HermeticError('HERMETIC_OPTIONS_INVALID', `${name} must be a whole number of characters above 0; got ${JSON.stringify(text.slice(0, 40))}.`);
    }
    return Number(text);
  }
  return null;
}

/** Whether a sink URL is one for this sink (the integrator's `--sink` dispatch). */
export function isOtlpUrl(url: string): boolean {
  return /^otlp\+https?(-json)?:\/\//i.test(url);
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function header(entry: string, where: string, out: Record<string, string>, decode: boolean): void {
  const eq = entry.indexOf('=');
  const rawName = (eq < 0 ? entry : entry.slice(0, eq)).trim();
  if (eq < 0 || !TOKEN.test(rawName)) {
    const shown = TOKEN.test(rawName) ? `"${rawName}"` : 'one';
    throw new HermeticError('HERMETIC_SINK_OTLP_HEADERS', `The OTLP header ${shown} from ${where} must be written name=value with a valid header name.`);
  }
  let value = entry.slice(eq + 1).trim();
  if (decode) {
    try {
      value = decodeURIComponent(value);
    } catch {
      throw new HermeticError('HERMETIC_SINK_OTLP_HEADERS', `The value of OTLP header "${rawName}" from ${where} is not valid percent-encoding.`);
    }
  }
  if (/[\r\n\0]/.test(value)) {
    throw new HermeticError('HERMETIC_SINK_OTLP_HEADERS', `The value of OTLP header "${rawName}" from ${where} holds a line break or NUL, which HTTP cannot carry.`);
  }
  // HTTP header values are bytes: fetch refuses a character above U+00FF at every request, which would read as an
  // unreachable receiver forever. Percent-encode such a value in OTEL_EXPORTER_OTLP_HEADERS only if the receiver
  // decodes it.
  if (/[^\x00-\xff]/.test(value)) {
    throw new HermeticError('HERMETIC_SINK_OTLP_HEADERS', `The value of OTLP header "${rawName}" from ${where} holds a character above U+00FF, which HTTP headers cannot carry.`);
  }
  out[rawName.toLowerCase()] = value;
}

// OTel's exporter spec: W3C-baggage-like `k=v,k2=v2`, values percent-decoded; the per-signal variable wins.
function envHeaders(env: Record<string, string | undefined>, signal: 'TRACES' | 'METRICS'): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['OTEL_EXPORTER_OTLP_HEADERS', `OTEL_EXPORTER_OTLP_${signal}_HEADERS`]) {
    const text = env[name];
    if (!text) continue;
    for (const entry of text.split(',')) if (entry.trim()) header(entry, name, out, true);
  }
  return out;
}

/**
 * The sink's settings from its URL and options.
 * @example otlpSettings('otlp+http://collector:4318', { headers: ['x-team=ml'] }).tracesUrl // 'http://collector:4318/v1/traces'
 */
export function otlpSettings(url: string, options: OtlpSinkOptions = {}): OtlpSettings {
  const o = parseOptions('OTLP sink', options, SCHEMA, {
    headers: [], content: false, datasetPath: null, env: process.env, timeoutMs: 10_000, spansPerRequest: 1000, pointsPerRequest: 3000,
    onPartialSuccess: (p: OtlpPartialSuccess) => {
      process.stderr.write(`hermetic: the OTLP receiver refused ${p.rejected} ${p.signal === 'traces' ? 'spans' : 'data points'} of a batch: ${p.message} [HERMETIC_SINK_OTLP_PARTIAL]\n`);
    },
  });
  const bad = (why: string): never => {
    throw new HermeticError('HERMETIC_SINK_OTLP_URL', `The OTLP sink URL ${shownUrl(url)} ${why}; write it like otlp+http://localhost:4318 (protobuf) or otlp+http-json://localhost:4318 (JSON).`);
  };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return bad('is not a URL');
  }
  const scheme = SCHEMES[parsed.protocol.toLowerCase()];
  if (!scheme) return bad(`has the scheme "${parsed.protocol.replace(/:$/, '')}"`);
  if (!parsed.hostname) return bad('has no host');
  if (parsed.search || parsed.hash) return bad('has a query or a fragment');
  const port = parsed.port ? `:${parsed.port}` : '';
  const path = parsed.pathname.replace(/\/+$/, '');
  const base = `${scheme.http}://${parsed.hostname}${port}${path}`;
  const id = `${parsed.protocol.toLowerCase()}//${parsed.hostname}${port}${path}`;
  let user: string, password: string;
  try {
    user = decodeURIComponent(parsed.username);
    password = decodeURIComponent(parsed.password);
  } catch {
    return bad('has a user or password that is not valid percent-encoding (write % as %25)');
  }
  // A user alone is a key (the collector's Basic auth with no password): hidden as a password is (hidePassword).
  const display = parsed.username ? `${parsed.protocol.toLowerCase()}//${parsed.password ? `${user}:***` : '***'}@${parsed.hostname}${port}${path}` : id;

  const own: Record<string, string> = {};
  if (parsed.username || parsed.password) {
    own.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  }
  for (const entry of o.headers) header(entry, '--sink-header', own, false);
  const signalHeaders = (signal: 'TRACES' | 'METRICS') => Object.freeze({ ...envHeaders(o.env, signal), ...own });
  return Object.freeze({
    base, tracesUrl: `${base}/v1/traces`, metricsUrl: `${base}/v1/metrics`, encoding: scheme.encoding,
    tracesHeaders: signalHeaders('TRACES'), metricsHeaders: signalHeaders('METRICS'),
    id, display, content: o.content, datasetPath: o.datasetPath, timeoutMs: o.timeoutMs, spansPerRequest: o.spansPerRequest, pointsPerRequest: o.pointsPerRequest,
    onPartialSuccess: o.onPartialSuccess, attributeValueLengthLimit: lengthLimit(o.env),
  });
}

// A URL as it may be shown: never its password.
function shownUrl(url: string): string {
  return JSON.stringify(hidePassword(url));
}
