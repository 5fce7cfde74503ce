// The OTLP sink's URL and options: the four schemes, paths, credentials kept out of ids and displays, headers from
// the option and OTEL_EXPORTER_OTLP_*HEADERS, and refusals with a code and a sentence that never shows a value.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HermeticError } from '../../../shared/errors.js';
import { createOtlpSink, isOtlpUrl, otlpSettings } from './index.js';

const refused = (fn: () => unknown, code: string, message: string | RegExp) =>
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof HermeticError);
    assert.equal(e.code, code);
    if (typeof message === 'string') assert.equal(e.message, message);
    else assert.match(e.message, message);
    return true;
  });

test('the schemes give the transport and the encoding; a path prefix is kept', () => {
  const p = otlpSettings('otlp+http://collector:4318', { env: {} });
  assert.deepEqual([p.tracesUrl, p.metricsUrl, p.encoding, p.id], ['http://collector:4318/v1/traces', 'http://collector:4318/v1/metrics', 'protobuf', 'otlp+http://collector:4318']);
  const j = otlpSettings('OTLP+HTTPS-JSON://otel.example.com/ingest/', { env: {} });
  assert.deepEqual([j.tracesUrl, j.encoding, j.id], ['https://otel.example.com/ingest/v1/traces', 'json', 'otlp+https-json://otel.example.com/ingest']);
  assert.equal(otlpSettings('otlp+http-json://[::1]:4318', { env: {} }).metricsUrl, 'http://[::1]:4318/v1/metrics');
  assert.deepEqual([isOtlpUrl('otlp+http://h'), isOtlpUrl('otlp+https-json://h'), isOtlpUrl('postgres://h'), isOtlpUrl('otlp://h')], [true, true, false, false]);
});

test('a password in the URL is never in the id or the display, and becomes Basic auth', () => {
  const sink = createOtlpSink('otlp+https://team:hunter2@otel.example.com', { env: {} });
  assert.equal(sink.id, 'otlp+https://otel.example.com');
  assert.equal(sink.display, 'otlp+https://team:***@otel.example.com');
  assert.equal(sink.leavesMachine, true);
  assert.equal(otlpSettings('otlp+https://team:hunter2@otel.example.com', { env: {} }).tracesHeaders.authorization, `Basic ${Buffer.from('team:hunter2').toString('base64')}`);
});

test('a user alone in the URL is a key: hidden in the display and in errors, sent as Basic auth', () => {
  const sink = createOtlpSink('otlp+https://k3y-0123456789@otel.example.com/v/', { env: {} });
  assert.equal(sink.display, 'otlp+https://***@otel.example.com/v');
  assert.equal(sink.id, 'otlp+https://otel.example.com/v');
  assert.equal(otlpSettings('otlp+https://k3y-0123456789@otel.example.com', { env: {} }).tracesHeaders.authorization, `Basic ${Buffer.from('k3y-0123456789:').toString('base64')}`);
  refused(() => otlpSettings('otlp+http://k3y-0123456789@h:4318/?x=1', { env: {} }), 'HERMETIC_SINK_OTLP_URL', /^The OTLP sink URL "otlp\+http:\/\/\*\*\*@h:4318\/\?x=1" has a query or a fragment;/);
});

test('headers: env pairs percent-decoded, per-signal env over the general one, the option over both', () => {
  const s = otlpSettings('otlp+http://h:4318', {
    headers: { 'X-Tenant': 'flag' },
    env: { OTEL_EXPORTER_OTLP_HEADERS: 'x-tenant=env,authorization=Bearer%20tok', OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'authorization=Bearer%20traces' },
  });
  assert.deepEqual(s.tracesHeaders, { 'x-tenant': 'flag', authorization: 'Bearer traces' });
  assert.deepEqual(s.metricsHeaders, { 'x-tenant': 'flag', authorization: 'Bearer tok' });
});

test('bad URLs are refused with HERMETIC_SINK_OTLP_URL, the password hidden', () => {
  const how = 'write it like otlp+http://localhost:4318 (protobuf) or otlp+http-json://localhost:4318 (JSON).';
  refused(() => otlpSettings('otlp+grpc://h:4317', { env: {} }), 'HERMETIC_SINK_OTLP_URL', `The OTLP sink URL "otlp+grpc://h:4317" has the scheme "otlp+grpc"; ${how}`);
  refused(() => otlpSettings('collector:4318', { env: {} }), 'HERMETIC_SINK_OTLP_URL', /has the scheme "collector"/);
  refused(() => otlpSettings('not a url', { env: {} }), 'HERMETIC_SINK_OTLP_URL', `The OTLP sink URL "not a url" is not a URL; ${how}`);
  refused(() => otlpSettings('otlp+http://u:secret@h:4318/?x=1', { env: {} }), 'HERMETIC_SINK_OTLP_URL', `The OTLP sink URL "otlp+http://u:***@h:4318/?x=1" has a query or a fragment; ${how}`);
});

test('bad headers are refused with HERMETIC_SINK_OTLP_HEADERS and never show the value', () => {
  refused(() => otlpSettings('otlp+http://h', { headers: ['x-api-key'], env: {} }), 'HERMETIC_SINK_OTLP_HEADERS', 'The OTLP header "x-api-key" from --sink-header must be written name=value with a valid header name.');
  refused(() => otlpSettings('otlp+http://h', { headers: ['bad name=sk-123'], env: {} }), 'HERMETIC_SINK_OTLP_HEADERS', 'The OTLP header one from --sink-header must be written name=value with a valid header name.');
  refused(() => otlpSettings('otlp+http://h', { env: { OTEL_EXPORTER_OTLP_HEADERS: 'api-key=%E0%A4%A' } }), 'HERMETIC_SINK_OTLP_HEADERS', 'The value of OTLP header "api-key" from OTEL_EXPORTER_OTLP_HEADERS is not valid percent-encoding.');
  refused(() => otlpSettings('otlp+http://h', { headers: ['x=a\r\nb'], env: {} }), 'HERMETIC_SINK_OTLP_HEADERS', /holds a line break or NUL/);
});

test('unknown and mistyped options are refused once, with a suggestion', () => {
  refused(() => otlpSettings('otlp+http://h', { contnet: true } as never), 'HERMETIC_OPTIONS_UNKNOWN', 'Unknown OTLP sink option "contnet". Did you mean "content"?');
  refused(() => otlpSettings('otlp+http://h', { content: 'yes' } as never), 'HERMETIC_OPTIONS_INVALID', 'Option "content" must be true or false; got "yes".');
  refused(() => otlpSettings('otlp+http://h', { timeoutMs: 0 }), 'HERMETIC_OPTIONS_INVALID', 'Option "timeoutMs" must be above 0; got 0.');
  assert.ok(Object.isFrozen(otlpSettings('otlp+http://h', { env: {} })));
});
