// The request journal (GET/DELETE /__admin/requests, /requests/count) and the metrics scrape (GET /__admin/metrics),
// over both transports: what is recorded, what never is, filters, the cap, namespaces, and the Prometheus text.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { AdminJournalEntry } from '../../src/emulator/admin/client.js';
import type { RequestRecord } from '../../src/emulator/journal/traffic.js';
import { K, T0, describeTransports, type Harness } from '../support/harness.js';
import { submit } from '../support/runs.js';

const journal = async (h: Harness, path = '/__admin/requests', headers: Record<string, string> = {}) => {
  const reply = await h.request('GET', path, { headers });
  assert.equal(reply.status, 200, reply.text);
  return reply.json() as { requests: AdminJournalEntry[]; capacity: number; evicted: number };
};

/** Prometheus text exposition: `name{a="b",…} value` lines → [name, labels, value]; comments checked for shape. */
function parseMetrics(text: string): Array<[string, Record<string, string>, number]> {
  const samples: Array<[string, Record<string, string>, number]> = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      assert.match(line, /^# (HELP|TYPE) [a-z_]+ .+$/, line);
      continue;
    }
    const m = /^([a-z_]+)(?:\{(.*)\})? (-?[0-9.e+]+|NaN)$/.exec(line);
    assert.ok(m, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (m[2] ?? '').match(/[a-z_]+="(?:[^"\\]|\\.)*"/g) ?? []) {
      const eq = pair.indexOf('=');
      labels[pair.slice(0, eq)] = JSON.parse(pair.slice(eq + 1));
    }
    samples.push([m[1]!, labels, Number(m[3])]);
  }
  return samples;
}

const sample = (samples: ReturnType<typeof parseMetrics>, name: string, labels: Record<string, string>) =>
  samples.find(([n, l]) => n === name && Object.entries(labels).every(([k, v]) => l[k] === v))?.[2];

describeTransports('request journal', (open) => {
  it('records what clients asked and were answered, oldest first; control requests are not journaled', async () => {
    const h = await open();
    const runId = await submit(h, '{"input":"hello"}', { 'Idempotency-Key': 'k1' });
    await submit(h, '{"input":"hello"}', { 'Idempotency-Key': 'k1' });
    await h.admin.complete(runId, {});
    await h.request('GET', `/v1/runs/${runId}`);
    await h.request('GET', '/v1/nothing');
    await h.request('GET', '/health');
    const { requests, capacity, evicted } = await journal(h);
    assert.deepEqual([capacity, evicted], [1000, 0]);
    for (const e of requests) assert.ok(e.duration_ms >= 0 && typeof e.duration_ms === 'number');
    assert.deepEqual(
      requests.map(({ duration_ms, ...e }) => e),
      [
        { seq: 1, time: T0, method: 'POST', path: '/v1/runs', operation: 'submit', status: 202, run_id: runId, replayed: false, fault_id: null, checkpoint: null, idempotency_key: 'k1' },
        { seq: 2, time: T0, method: 'POST', path: '/v1/runs', operation: 'submit', status: 202, run_id: runId, replayed: true, fault_id: null, checkpoint: null, idempotency_key: 'k1' },
        { seq: 3, time: T0, method: 'GET', path: `/v1/runs/${runId}`, operation: 'get', status: 200, run_id: runId, replayed: null, fault_id: null, checkpoint: null, idempotency_key: null },
        { seq: 4, time: T0, method: 'GET', path: '/v1/nothing', operation: 'other', status: 404, run_id: null, replayed: null, fault_id: null, checkpoint: null, idempotency_key: null },
        { seq: 5, time: T0, method: 'GET', path: '/health', operation: 'health', status: 200, run_id: null, replayed: null, fault_id: null, checkpoint: null, idempotency_key: null },
      ],
    );
  });

  it('never records bodies, query strings or headers (a submit\'s Idempotency-Key aside): a secret sent in each is nowhere in the journal, the metrics or the request log', async () => {
    const records: RequestRecord[] = [];
    const h = await open({ onRequest: (r) => void records.push(r) });
    const secret = 'sk-SECRET-0123456789abcdefXYZ';
    const headers = { 'X-Api-Token': secret, Cookie: `session=${secret}` };
    await h.request('POST', `/v1/runs?token=${secret}`, { headers, body: JSON.stringify({ input: secret, instructions: secret }) });
    await h.request('GET', `/v1/runs/nope?api_key=${secret}`, { headers: { ...headers, Authorization: `Bearer ${secret}` } });
    await h.request('GET', `/health?${secret}`);
    const runId = await submit(h);
    await h.request('POST', `/v1/runs/${runId}/steer?x=${secret}`, { body: JSON.stringify({ text: secret }) });
    const listed = JSON.stringify(await journal(h));
    const metrics = (await h.request('GET', '/__admin/metrics')).text;
    assert.equal((await journal(h)).requests.length, 5);
    for (const text of [listed, metrics, JSON.stringify(records)]) {
      assert.ok(!text.includes(secret), text);
      assert.ok(!text.includes('SECRET'), text);
      // The gateway's own API key never appears either (every request here carried it as a Bearer token).
      assert.ok(!text.includes(K), text);
    }
    assert.deepEqual(JSON.parse(listed).requests.map((e: AdminJournalEntry) => e.path), ['/v1/runs', '/v1/runs/nope', '/health', '/v1/runs', `/v1/runs/${runId}/steer`]);
  });

  it('filters by operation, status, run id, method, time and seq; count gives what the same filters list', async () => {
    const h = await open();
    const a = await submit(h);
    await h.admin.clock({ advance: 10 });
    await h.request('GET', `/v1/runs/${a}`);
    await h.request('GET', '/v1/runs/run_missing');
    await h.request('POST', '/v1/runs', { body: '{}' });
    await h.admin.clock({ advance: 10 });
    await h.request('POST', `/v1/runs/${a}/stop`);
    const seqs = async (query: string) => (await journal(h, `/__admin/requests?${query}`)).requests.map((e) => e.seq);
    assert.deepEqual(await seqs('operation=submit'), [1, 4]);
    assert.deepEqual(await seqs('operation=get,stop'), [2, 3, 5]);
    assert.deepEqual(await seqs('status=4xx'), [3, 4]);
    assert.deepEqual(await seqs('status=202&operation=submit'), [1]);
    assert.deepEqual(await seqs(`run_id=${a}`), [1, 2, 5]);
    assert.deepEqual(await seqs('method=POST'), [1, 4, 5]);
    assert.deepEqual(await seqs(`since=${T0 + 10}`), [2, 3, 4, 5]);
    assert.deepEqual(await seqs(`since=${T0 + 15}`), [5]);
    assert.deepEqual(await seqs('after=3'), [4, 5]);
    assert.deepEqual(await seqs('limit=2'), [4, 5]);
    const count = async (query: string) => (await h.request('GET', `/__admin/requests/count?${query}`)).json();
    assert.deepEqual(await count('status=4xx'), { count: 2 });
    assert.deepEqual(await count(''), { count: 5 });
    assert.deepEqual(await count(`run_id=${a}&operation=get`), { count: 1 });
    // The typed client sends its filter object as the query string.
    assert.deepEqual(await h.admin.countRequests({ operation: ['submit', 'stop'], status: '2xx' }), { count: 2 });
    assert.deepEqual((await h.admin.requests({ run_id: a, limit: 1 })).requests.map((e) => e.seq), [5]);
    const bad = await h.request('GET', '/__admin/requests?statuss=200');
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.json(), { error: { code: 'HERMETIC_ADMIN_BAD_FIELD', message: 'Unknown query parameter "statuss" for the request journal. Did you mean "status"?' } });
  });

  it('DELETE /__admin/requests forgets the entries; numbering goes on; a reset starts it again', async () => {
    const h = await open();
    await h.request('GET', '/health');
    await h.request('GET', '/health');
    const deleted = await h.request('DELETE', '/__admin/requests');
    assert.deepEqual([deleted.status, deleted.json()], [200, { deleted: 2 }]);
    assert.deepEqual(await h.admin.countRequests(), { count: 0 });
    await h.request('GET', '/health');
    assert.deepEqual((await journal(h)).requests.map((e) => e.seq), [3]);
    assert.deepEqual(await h.admin.clearRequests(), { deleted: 1 });
    await h.request('GET', '/health');
    await h.admin.reset();
    assert.deepEqual(await h.admin.countRequests(), { count: 0 });
    await h.request('GET', '/health');
    assert.deepEqual((await journal(h)).requests.map((e) => e.seq), [1]);
  });

  it('journalSize caps the ring (the oldest go first, counted as evicted); 0 records nothing', async () => {
    const capped = await open({ journalSize: 3 });
    for (let i = 0; i < 5; i++) await capped.request('GET', `/v1/runs/run_${i}`);
    const list = await journal(capped);
    assert.deepEqual([list.capacity, list.evicted, list.requests.map((e) => e.run_id)], [3, 2, ['run_2', 'run_3', 'run_4']]);
    const off = await open({ journalSize: 0 });
    await off.request('GET', '/health');
    await submit(off);
    assert.deepEqual(await journal(off), { requests: [], capacity: 0, evicted: 0 });
  });

  it('each namespace has its own journal, chosen by header or path prefix; paths are shown without the prefix', async () => {
    const h = await open();
    await h.request('GET', '/ns/w1/health');
    await h.request('GET', '/v1/runs/run_a', { headers: { 'x-hermetic-namespace': 'w1' } });
    await h.request('GET', '/v1/runs/run_b', { headers: { 'x-hermetic-namespace': 'w2' } });
    await h.request('GET', '/v1/runs/run_c');
    const paths = async (prefix: string, headers: Record<string, string> = {}) =>
      (await journal(h, `${prefix}/__admin/requests`, headers)).requests.map((e) => e.path);
    assert.deepEqual(await paths('/ns/w1'), ['/health', '/v1/runs/run_a']);
    assert.deepEqual(await paths('', { 'x-hermetic-namespace': 'w1' }), ['/health', '/v1/runs/run_a']);
    assert.deepEqual(await paths('/ns/w2'), ['/v1/runs/run_b']);
    assert.deepEqual(await paths(''), ['/v1/runs/run_c']);
    await h.request('DELETE', '/ns/w1/__admin/requests');
    assert.deepEqual(await paths('/ns/w1'), []);
    assert.deepEqual(await paths('/ns/w2'), ['/v1/runs/run_b']);
  });

  it('an onRequest listener that throws changes no answer (it is reported on stderr)', async () => {
    const h = await open({ onRequest: () => { throw new Error('listener bug'); } });
    const said: string[] = [];
    const error = console.error;
    console.error = (...a: unknown[]) => void said.push(a.join(' '));
    try {
      assert.equal((await h.request('GET', '/health')).status, 200);
    } finally {
      console.error = error;
    }
    assert.match(said.join('\n'), /^hermetic: the onRequest listener threw: Error: listener bug/);
    assert.equal((await h.admin.countRequests()).count, 1);
  });

  it('an event stream is journaled once its head is sent', async () => {
    const h = await open();
    const runId = await submit(h);
    const stream = await h.events(`/v1/runs/${runId}/events`);
    assert.equal(stream.status, 200);
    const [entry] = (await h.admin.requests({ operation: 'events' })).requests;
    assert.deepEqual([entry?.status, entry?.run_id, entry?.path], [200, runId, `/v1/runs/${runId}/events`]);
    stream.close();
  });
});

describeTransports('metrics', (open) => {
  it('GET /__admin/metrics is Prometheus text with every namespace: requests, runs, journal', async () => {
    const h = await open({ journalSize: 2 });
    const runId = await submit(h);
    await h.request('GET', `/v1/runs/${runId}`);
    await h.request('GET', '/v1/runs/run_missing');
    await h.request('GET', '/v1/runs/run_missing');
    await h.request('POST', '/ns/w1/v1/runs', { body: '{"input":"x"}' });
    const w1Run = (await h.request('POST', '/ns/w1/v1/runs', { body: '{"input":"y"}' })).json().run_id;
    await h.request('POST', `/ns/w1/__admin/runs/${w1Run}/complete`, { body: '{}' });
    const reply = await h.request('GET', '/__admin/metrics');
    assert.equal(reply.status, 200);
    assert.equal(reply.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
    const samples = parseMetrics(reply.text);
    assert.equal(sample(samples, 'hermetic_requests_total', { namespace: 'default', operation: 'submit', status: '202' }), 1);
    assert.equal(sample(samples, 'hermetic_requests_total', { namespace: 'default', operation: 'get', status: '200' }), 1);
    assert.equal(sample(samples, 'hermetic_requests_total', { namespace: 'default', operation: 'get', status: '404' }), 2);
    assert.equal(sample(samples, 'hermetic_requests_total', { namespace: 'w1', operation: 'submit', status: '202' }), 2);
    assert.equal(sample(samples, 'hermetic_requests_total', { namespace: 'w1', operation: 'admin', status: '200' }), 1);
    assert.equal(sample(samples, 'hermetic_runs', { namespace: 'default', status: 'running' }), 1);
    assert.equal(sample(samples, 'hermetic_runs', { namespace: 'w1', status: 'running' }), 1);
    assert.equal(sample(samples, 'hermetic_runs', { namespace: 'w1', status: 'completed' }), 1);
    assert.equal(sample(samples, 'hermetic_journal_entries', { namespace: 'default' }), 2);
    assert.equal(sample(samples, 'hermetic_journal_evicted', { namespace: 'default' }), 2);
    assert.equal(sample(samples, 'hermetic_journal_capacity', { namespace: 'w1' }), 2);
    assert.equal(sample(samples, 'hermetic_namespaces', {}), 2);
    assert.match(reply.text, /^# TYPE hermetic_faults_fired_total counter$/m);
    // The typed client answers the same text as a string; any namespace's route scrapes the whole emulator.
    const viaClient = await h.admin.metrics();
    assert.equal(typeof viaClient, 'string');
    assert.equal(sample(parseMetrics((await h.request('GET', '/ns/w1/__admin/metrics')).text), 'hermetic_runs', { namespace: 'default', status: 'running' }), 1);
    // DELETE starts one namespace's request counters over; the other's, the runs and the journal stay.
    assert.deepEqual(await h.request('DELETE', '/ns/w1/__admin/metrics').then((r) => r.json()), { reset: 'w1' });
    const after = parseMetrics(await h.admin.metrics());
    assert.equal(sample(after, 'hermetic_requests_total', { namespace: 'w1', operation: 'submit', status: '202' }), undefined);
    assert.equal(sample(after, 'hermetic_requests_total', { namespace: 'default', operation: 'get', status: '404' }), 2);
    assert.equal(sample(after, 'hermetic_runs', { namespace: 'w1', status: 'completed' }), 1);
    assert.equal(sample(after, 'hermetic_journal_entries', { namespace: 'w1' }), 2);
  });

  it('a namespace forgotten by a reset of every namespace takes its series with it', async () => {
    const h = await open();
    await h.request('GET', '/ns/gone/health');
    assert.ok(sample(parseMetrics(await h.admin.metrics()), 'hermetic_journal_entries', { namespace: 'gone' }) === 1);
    await h.admin.reset({ all: true });
    const samples = parseMetrics(await h.admin.metrics());
    assert.equal(sample(samples, 'hermetic_journal_entries', { namespace: 'gone' }), undefined);
    assert.equal(sample(samples, 'hermetic_namespaces', {}), 1);
  });
});
