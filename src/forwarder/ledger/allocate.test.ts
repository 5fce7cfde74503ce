// The ledger's attribution rules (decision 0031) on hand-made sessions: the decision's worked example row for row,
// the rest of a split on the session's model, clamping, billed cost following the estimate, auxiliary rows, a
// session without usage; and property tests: any input gives rows that add up exactly, by any grouping.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { allocateSession, MEASURES, split, units, type LedgerInput, type LedgerRoute, type LedgerSession } from './allocate.js';
import { Zone } from './zone.js';

const T0 = Date.UTC(2026, 6, 1, 21, 0) / 1000; // 2026-07-01 21:00 UTC, 23:00 in Berlin
const q = (t: number) => Math.floor(t / 900);

function session(extra: Partial<LedgerSession> = {}): LedgerSession {
  return {
    store: '/h/state.db', session_id: 's1', profile: 'default', source: 'cli', model: 'gpt-5', provider: 'openai',
    billing_mode: null, cwd: '/home/dev/p', git_repo_root: null, started_at: T0, last_activity_at: T0 + 5400,
    api_call_count: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0,
    estimated_cost_usd: null, actual_cost_usd: null, ...extra,
  };
}

function route(model: string, task: string, firstSeen: number, extra: Record<string, unknown>): LedgerRoute {
  return {
    model, provider_key: `p|${model}|`, provider: 'p', billing_mode: null, task, cost_status: null, first_seen: firstSeen, last_seen: firstSeen,
    api_call_count: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0,
    estimated_cost_usd: 0, actual_cost_usd: 0, ...extra,
  };
}

const pick = (rows: Record<string, unknown>[], keys: string[]) => rows.map((r) => Object.fromEntries(keys.map((k) => [k, r[k]])));

test('the worked example of decision 0031, row for row', () => {
  const input: LedgerInput = {
    zone: new Zone('Europe/Berlin'),
    session: session({ input_tokens: 10_000, estimated_cost_usd: 1.0, api_call_count: 10 }),
    routes: [
      route('claude-sonnet-4.6', '', T0 + 600, { input_tokens: 6000, estimated_cost_usd: 0.6, api_call_count: 6 }),
      route('gpt-5', '', T0 + 3900, { input_tokens: 2000, estimated_cost_usd: 0.2, api_call_count: 2 }),
      route('gemini-2.5-flash', 'title_generation', T0 + 720, { input_tokens: 400, estimated_cost_usd: 0.0001, api_call_count: 1 }),
    ],
    days: [
      { day: '2026-07-01', input_tokens: 7000, estimated_cost_usd: 0.7, api_call_count: 7 },
      { day: '2026-07-02', input_tokens: 3000, estimated_cost_usd: 0.3, api_call_count: 3 },
    ],
    activity: [
      { quarter: q(T0 + 600), messages: 2, assistant: 1 }, { quarter: q(T0 + 1200), messages: 2, assistant: 1 },
      { quarter: q(T0 + 2400), messages: 2, assistant: 1 }, { quarter: q(T0 + 3000), messages: 2, assistant: 1 },
      { quarter: q(T0 + 3600), messages: 4, assistant: 2 }, { quarter: q(T0 + 4500), messages: 4, assistant: 2 },
    ],
  };
  const { usage } = allocateSession(input);
  const H = (h: number) => T0 + h * 3600;
  assert.deepEqual(pick(usage, ['at', 'day', 'day_utc', 'model', 'task', 'basis', 'input_tokens', 'estimated_cost_usd', 'api_calls', 'actual_cost_usd', 'cost_usd']).sort((a, b) => Number(a.at) - Number(b.at) || `${String(a.model)}${String(a.basis)}`.localeCompare(`${String(b.model)}${String(b.basis)}`)), [
    { at: H(0), day: '2026-07-01', day_utc: '2026-07-01', model: 'claude-sonnet-4.6', task: 'main', basis: 'route', input_tokens: 6000, estimated_cost_usd: 0.6, api_calls: 6, actual_cost_usd: null, cost_usd: 0.6 },
    { at: H(0), day: '2026-07-01', day_utc: '2026-07-01', model: 'gemini-2.5-flash', task: 'title_generation', basis: 'auxiliary', input_tokens: 400, estimated_cost_usd: 0.0001, api_calls: 1, actual_cost_usd: null, cost_usd: 0.0001 },
    { at: H(0), day: '2026-07-01', day_utc: '2026-07-01', model: 'gpt-5', task: 'main', basis: 'route', input_tokens: 1000, estimated_cost_usd: 0.1, api_calls: 1, actual_cost_usd: null, cost_usd: 0.1 },
    { at: H(1), day: '2026-07-02', day_utc: '2026-07-01', model: 'gpt-5', task: 'main', basis: 'route', input_tokens: 1000, estimated_cost_usd: 0.1, api_calls: 1, actual_cost_usd: null, cost_usd: 0.1 },
    { at: H(1), day: '2026-07-02', day_utc: '2026-07-01', model: 'gpt-5', task: 'main', basis: 'session', input_tokens: 2000, estimated_cost_usd: 0.2, api_calls: 2, actual_cost_usd: null, cost_usd: 0.2 },
  ]);
  assert.ok(usage.every((r) => r.project === '/home/dev/p' && r.profile === 'default' && r.source === 'cli'));
});

test('usage no route recorded goes to the session\'s own model; splits that record more than the counters are scaled down', () => {
  const zone = new Zone('UTC');
  const activity = [{ quarter: q(T0), messages: 2, assistant: 1 }];
  // The $4.32 session whose only model_usage row is a title generation.
  const lone = allocateSession({ zone, activity, days: [], session: session({ estimated_cost_usd: 4.32, input_tokens: 50_000, api_call_count: 12 }), routes: [route('flash', 'title_generation', T0, { estimated_cost_usd: 0.0001, input_tokens: 300, api_call_count: 1 })] }).usage;
  assert.deepEqual(pick(lone, ['model', 'basis', 'estimated_cost_usd', 'input_tokens']), [
    { model: 'gpt-5', basis: 'session', estimated_cost_usd: 4.32, input_tokens: 50_000 },
    { model: 'flash', basis: 'auxiliary', estimated_cost_usd: 0.0001, input_tokens: 300 },
  ]);
  // Absolute mode: counters dropped to 700 while the daily ledger grew to 2,500; the routes say 900 + 300.
  const scaled = allocateSession({
    zone, activity, session: session({ input_tokens: 700 }),
    days: [{ day: '2026-07-01', input_tokens: 2500 }],
    routes: [route('a', '', T0, { input_tokens: 900 }), route('b', '', T0 + 60, { input_tokens: 300 })],
  }).usage;
  assert.deepEqual(pick(scaled, ['model', 'basis', 'input_tokens']), [{ model: 'a', basis: 'route', input_tokens: 525 }, { model: 'b', basis: 'route', input_tokens: 175 }]);
  // Negative and garbage counters count as nothing.
  const garbage = allocateSession({ zone, activity, days: [], routes: [], session: session({ input_tokens: -5, output_tokens: Number.NaN, estimated_cost_usd: -1 }) }).usage;
  assert.deepEqual(pick(garbage, ['basis', 'input_tokens', 'output_tokens', 'cost_usd']), [{ basis: 'none', input_tokens: 0, output_tokens: 0, cost_usd: 0 }]);
});

test('a billed cost the routes did not record follows the estimate\'s split; the shown cost is the billed one', () => {
  const { usage } = allocateSession({
    zone: new Zone('UTC'), days: [], activity: [{ quarter: q(T0), messages: 1, assistant: 1 }],
    session: session({ estimated_cost_usd: 1, actual_cost_usd: 0.5 }),
    routes: [route('a', '', T0, { estimated_cost_usd: 0.75 }), route('b', '', T0 + 1, { estimated_cost_usd: 0.25 })],
  });
  assert.deepEqual(pick(usage, ['model', 'estimated_cost_usd', 'actual_cost_usd', 'cost_usd']), [
    { model: 'a', estimated_cost_usd: 0.75, actual_cost_usd: 0.375, cost_usd: 0.375 },
    { model: 'b', estimated_cost_usd: 0.25, actual_cost_usd: 0.125, cost_usd: 0.125 },
  ]);
  // An auxiliary row's billed cost counts only when Hermes recorded one.
  const aux = allocateSession({
    zone: new Zone('UTC'), days: [], activity: [], session: session(),
    routes: [route('v', 'vision', T0, { estimated_cost_usd: 0.2, actual_cost_usd: 0 }), route('c', 'compression', T0, { estimated_cost_usd: 0.2, actual_cost_usd: 0.1 })],
  }).usage;
  assert.deepEqual(pick(aux, ['task', 'actual_cost_usd', 'cost_usd']).sort((a, b) => String(a.task).localeCompare(String(b.task))), [
    { task: 'compression', actual_cost_usd: 0.1, cost_usd: 0.1 }, { task: 'vision', actual_cost_usd: null, cost_usd: 0.2 },
  ]);
});

test('a main-loop route (or the rest on the session\'s model) with no billed cost of its own, beside routes whose billed costs make the session\'s, shows its estimate, not a billed $0', () => {
  const { usage } = allocateSession({
    zone: new Zone('UTC'), days: [], activity: [{ quarter: q(T0), messages: 1, assistant: 1 }],
    session: session({ estimated_cost_usd: 0.177, actual_cost_usd: 0.036 }),
    routes: [
      route('hermes-4', '', T0, { estimated_cost_usd: 0.067, actual_cost_usd: 0.036, cost_status: 'actual' }),
      route('gpt-5', '', T0 + 1, { estimated_cost_usd: 0.11, actual_cost_usd: 0, cost_status: 'estimated' }),
    ],
  });
  assert.deepEqual(pick(usage, ['model', 'estimated_cost_usd', 'actual_cost_usd', 'cost_usd']), [
    { model: 'hermes-4', estimated_cost_usd: 0.067, actual_cost_usd: 0.036, cost_usd: 0.036 },
    { model: 'gpt-5', estimated_cost_usd: 0.11, actual_cost_usd: null, cost_usd: 0.11 },
  ]);
  // Billed money the routes do not account for is not shown beside their estimates: every route counts as billed,
  // and the rest of the billed cost is the session's own (no estimate and billed cost shown for the same calls).
  const partly = allocateSession({
    zone: new Zone('UTC'), days: [], activity: [{ quarter: q(T0), messages: 1, assistant: 1 }],
    session: session({ estimated_cost_usd: 0.177, actual_cost_usd: 0.2 }),
    routes: [
      route('hermes-4', '', T0, { estimated_cost_usd: 0.067, actual_cost_usd: 0.036, cost_status: 'actual' }),
      route('gpt-5', '', T0 + 1, { estimated_cost_usd: 0.11, actual_cost_usd: 0, cost_status: 'estimated' }),
    ],
  }).usage;
  const shown = partly.reduce((sum, r) => sum + (r.cost_usd as number), 0);
  assert.equal(Math.round(shown * 1e6) / 1e6, 0.2, 'the shown cost is the billed cost, once');
  // The rest on the session's own model, beside routes whose billed costs make the session's, is not billed either.
  const rest = allocateSession({
    zone: new Zone('UTC'), days: [], activity: [{ quarter: q(T0), messages: 1, assistant: 1 }],
    session: session({ model: 'deepseek', estimated_cost_usd: 0.0833, actual_cost_usd: 0.036 }),
    routes: [route('hermes-4', '', T0, { estimated_cost_usd: 0.05, actual_cost_usd: 0.036, cost_status: 'actual' })],
  }).usage;
  assert.deepEqual(pick(rest, ['model', 'basis', 'estimated_cost_usd', 'actual_cost_usd', 'cost_usd']), [
    { model: 'hermes-4', basis: 'route', estimated_cost_usd: 0.05, actual_cost_usd: 0.036, cost_usd: 0.036 },
    { model: 'deepseek', basis: 'session', estimated_cost_usd: 0.0333, actual_cost_usd: null, cost_usd: 0.0333 },
  ]);
  // With no routes the session is its own: a billed $0 is billed.
  const free = allocateSession({
    zone: new Zone('UTC'), days: [], activity: [{ quarter: q(T0), messages: 1, assistant: 1 }],
    session: session({ estimated_cost_usd: 0.05, actual_cost_usd: 0 }), routes: [],
  }).usage;
  assert.deepEqual(pick(free, ['basis', 'estimated_cost_usd', 'actual_cost_usd', 'cost_usd']), [{ basis: 'session', estimated_cost_usd: 0.05, actual_cost_usd: 0, cost_usd: 0 }]);
});

test('time: assistant messages weigh, a day without messages lands at its local noon, a session without any at its last activity', () => {
  const zone = new Zone('Asia/Kathmandu'); // UTC+5:45: local midnight falls at 18:15 UTC, inside an hour
  const midnight = zone.startOfDay('2026-07-02');
  assert.equal(new Date(midnight * 1000).toISOString(), '2026-07-01T18:15:00.000Z');
  const { usage } = allocateSession({
    zone, routes: [], session: session({ input_tokens: 90, last_activity_at: midnight + 600 }),
    days: [{ day: '2026-06-20', input_tokens: 10 }],
    activity: [{ quarter: q(midnight - 900), messages: 3, assistant: 1 }, { quarter: q(midnight), messages: 1, assistant: 2 }],
  });
  assert.deepEqual(pick(usage, ['at', 'day', 'day_utc', 'input_tokens']), [
    { at: zone.timeOf('2026-06-20', 12) - (zone.timeOf('2026-06-20', 12) % 3600), day: '2026-06-20', day_utc: '2026-06-20', input_tokens: 10 },
    { at: midnight - 900, day: '2026-07-01', day_utc: '2026-07-01', input_tokens: 27 },
    { at: midnight, day: '2026-07-02', day_utc: '2026-07-01', input_tokens: 53 },
  ]);
  const none = allocateSession({ zone, routes: [], days: [], activity: [], session: session({ input_tokens: 5, last_activity_at: midnight + 60 }) }).usage;
  assert.deepEqual(pick(none, ['at', 'day', 'input_tokens']), [{ at: midnight, day: '2026-07-02', input_tokens: 5 }]);
});

test('a day that is no date (2026-13-45) is no split: its amount joins the rest, never a day it rolls over to', () => {
  const zone = new Zone('UTC');
  const activity = [{ quarter: q(T0), messages: 2, assistant: 1 }];
  const { usage } = allocateSession({ zone, activity, routes: [], session: session({ input_tokens: 300 }), days: [{ day: '2026-13-45', input_tokens: 200 }, { day: '2026-07-01', input_tokens: 100 }] });
  assert.deepEqual(usage.map((r) => r.day), ['2026-07-01']);
  assert.equal(usage.reduce((a, r) => a + Number(r.input_tokens), 0), 300);
});

test('tool activity becomes tool rows by cell and tool', () => {
  const { tools } = allocateSession({
    zone: new Zone('UTC'), routes: [], days: [], activity: [], session: session(),
    tools: [{ quarter: q(T0), tool_name: 'terminal', calls: 2, errors: 1 }, { quarter: q(T0 + 900), tool_name: 'terminal', calls: 1, errors: 0 }, { quarter: q(T0 + 3600), tool_name: '', calls: 1, errors: 0 }],
  });
  assert.deepEqual(pick(tools, ['at', 'tool_name', 'calls', 'errors']), [
    { at: T0, tool_name: 'terminal', calls: 3, errors: 1 }, { at: T0 + 3600, tool_name: '', calls: 1, errors: 0 },
  ]);
});

test('split: parts add up exactly, in proportion, ties to the earlier part', () => {
  assert.deepEqual(split(10, [1, 1, 1]), [4, 3, 3]);
  assert.deepEqual(split(7, [0, 5, 0]), [0, 7, 0]);
  assert.deepEqual(split(Number.MAX_SAFE_INTEGER, [1, 2]), [3002399751580330, 6004799503160661]);
  fc.assert(fc.property(fc.nat(1e12), fc.array(fc.nat(1e9), { minLength: 1, maxLength: 12 }), (total, weights) => {
    fc.pre(weights.some((w) => w > 0));
    const parts = split(total, weights);
    const sum = weights.reduce((a, b) => a + b, 0);
    assert.equal(parts.reduce((a, b) => a + b, 0), total);
    parts.forEach((p, i) => assert.ok(Math.abs(p - (total * weights[i]!) / sum) < 1 + 1e-6 * total));
  }));
});

const ZONES = ['UTC', 'Europe/Berlin', 'America/Los_Angeles', 'Asia/Kathmandu', 'Australia/Adelaide', 'Pacific/Chatham'];
const counters = (max: number) => fc.record({
  api_call_count: fc.integer({ min: -3, max }), input_tokens: fc.integer({ min: -10, max: max * 1000 }), output_tokens: fc.integer({ min: 0, max: max * 100 }),
  cache_read_tokens: fc.nat(max * 1000), cache_write_tokens: fc.nat(max * 100), reasoning_tokens: fc.nat(max * 10),
  estimated_cost_usd: fc.oneof(fc.constant(null), fc.double({ min: -1, max: 50, noNaN: true })), actual_cost_usd: fc.oneof(fc.constant(null), fc.double({ min: 0, max: 50, noNaN: true })),
});
const time = fc.integer({ min: Date.UTC(2025, 0, 1) / 1000, max: Date.UTC(2027, 0, 1) / 1000 });

test('property: any session, any zone — the rows add up to its counters plus its auxiliary rows, by any grouping', () => {
  fc.assert(fc.property(
    fc.constantFrom(...ZONES), counters(50), time, fc.array(fc.record({ aux: fc.boolean(), model: fc.constantFrom('a', 'b', 'c'), first: time, c: counters(20) }), { maxLength: 5 }),
    fc.array(fc.record({ t: time, c: counters(30) }), { maxLength: 4 }), fc.array(fc.record({ t: time, messages: fc.integer({ min: 0, max: 5 }), assistant: fc.integer({ min: 0, max: 5 }) }), { maxLength: 8 }),
    // Newer Hermes's calls (decision 0112): on a route's key (by index), or on none (-1), at any time, any amounts.
    fc.array(fc.record({ route: fc.integer({ min: -1, max: 4 }), t: fc.oneof(time, fc.constant(-5)), c: counters(20) }), { maxLength: 6 }),
    (zoneName, c, last, routeSpecs, daySpecs, acts, callSpecs) => {
      const zone = new Zone(zoneName);
      const s = session({ ...c, last_activity_at: last });
      const routes = routeSpecs.map((r, i) => route(`${r.model}${i}`, r.aux ? 'vision' : '', r.first, { ...r.c, actual_cost_usd: r.c.actual_cost_usd ?? 0, estimated_cost_usd: r.c.estimated_cost_usd ?? 0 }));
      const days = daySpecs.map((d) => ({ day: zone.dayOf(d.t), ...d.c }));
      const activity = acts.map((a) => ({ quarter: q(a.t), messages: a.messages, assistant: Math.min(a.assistant, a.messages) }));
      const calls = callSpecs.map((x) => {
        const r = routes[x.route];
        return { quarter: q(x.t), model: r?.model ?? 'gpt-5', provider_key: r?.provider_key ?? '', task: r?.task ?? '', ...x.c };
      });
      const { usage } = allocateSession({ zone, session: s, routes, days, activity, calls });
      for (const m of MEASURES) {
        const main = m === 'actual_cost_usd' && s.actual_cost_usd === null ? 0 : units(s, m);
        const aux = routes.filter((r) => r.task !== '').reduce((t, r) => t + (m === 'actual_cost_usd' && units(r, m) === 0 ? 0 : units(r, m)), 0);
        const got = usage.reduce((t, r) => t + Math.round(Number(r[m] ?? 0) * (m.endsWith('_usd') ? 1e10 : 1)), 0);
        assert.equal(got, main + aux, `${m} in ${zoneName}`);
      }
      for (const r of usage) {
        assert.equal(r.day, zone.dayOf(r.at as number));
        assert.equal(r.day_utc, new Date((r.at as number) * 1000).toISOString().slice(0, 10));
        assert.equal(r.cost_usd, r.actual_cost_usd ?? r.estimated_cost_usd);
        for (const m of MEASURES) assert.ok(r[m] === null || Number(r[m]) >= 0, `${m} >= 0`);
      }
      // A route that fits in the counters keeps exactly what it recorded (calls aside: random ones need not fit their rows).
      const main = routes.filter((r) => r.task === '');
      if (calls.length === 0 && main.reduce((t, r) => t + units(r, 'input_tokens'), 0) <= units(s, 'input_tokens')) {
        for (const r of main) {
          const got = usage.filter((u) => u.basis === 'route' && u.provider_key === r.provider_key).reduce((t, u) => t + Number(u.input_tokens), 0);
          assert.equal(got, units(r, 'input_tokens'));
        }
      }
    },
  ), { numRuns: 300 });
});

test('billed money newer Hermes\'s calls lay on a route whose row recorded none is shown as billed, so it adds up (found by the property)', () => {
  // The counterexample fast-check found: the session billed 5e-11 (one unit), its one route too, and a call of another
  // model (so the session's own) billed it; the session's own row was not billed, and the unit was dropped.
  const calls = [{ quarter: q(T0), model: 'gpt-5', provider_key: '', task: '', api_call_count: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0, estimated_cost_usd: 0, actual_cost_usd: 5e-11 }];
  const { usage } = allocateSession({
    zone: new Zone('UTC'), session: session({ actual_cost_usd: 5e-11, last_activity_at: T0 }), days: [], activity: [], calls,
    routes: [route('a', '', T0, { actual_cost_usd: 5e-11 })],
  });
  assert.deepEqual(pick(usage, ['basis', 'model', 'actual_cost_usd', 'cost_usd']), [{ basis: 'session', model: 'gpt-5', actual_cost_usd: 1e-10, cost_usd: 1e-10 }]);
  // A route whose row recorded no billed cost, billed by its calls: its row shows what they billed.
  const routed = allocateSession({
    zone: new Zone('UTC'), session: session({ estimated_cost_usd: 2, actual_cost_usd: 1, last_activity_at: T0 }), days: [], activity: [],
    calls: [{ ...calls[0]!, model: 'b', provider_key: 'p|b|', estimated_cost_usd: 1, actual_cost_usd: 1 }],
    routes: [route('a', '', T0, { estimated_cost_usd: 1, actual_cost_usd: 1 }), route('b', '', T0, { estimated_cost_usd: 1 })],
  }).usage;
  assert.equal(routed.reduce((t, r) => t + Number(r.actual_cost_usd ?? 0), 0), 1);
  assert.equal(routed.find((r) => r.model === 'b')!.actual_cost_usd, 1);
});

// Newer Hermes's per-call usage (decision 0112): the calls' hours and routes, the rest by the rules before.
const H = (h: number) => T0 + h * 3600;
const call = (t: number, model: string, task: string, extra: Record<string, unknown>) => ({
  quarter: q(t), model, provider_key: `p|${model}|`, task, api_call_count: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0,
  cache_write_tokens: 0, reasoning_tokens: 0, estimated_cost_usd: 0, actual_cost_usd: 0, ...extra,
});
const byCell = (usage: Record<string, unknown>[]) => pick(usage, ['at', 'model', 'task', 'basis', 'input_tokens', 'api_calls']).sort((a, b) => Number(a.at) - Number(b.at) || String(a.model).localeCompare(String(b.model)));

test('calls that cover the counters place them at their hours, on their routes, not where the messages are', () => {
  const input: LedgerInput = {
    zone: new Zone('UTC'),
    session: session({ input_tokens: 1000, api_call_count: 4, model: 'gpt-5' }),
    routes: [route('claude', '', H(0), { input_tokens: 600, api_call_count: 3 }), route('gpt-5', '', H(2), { input_tokens: 400, api_call_count: 1 })],
    days: [],
    activity: [{ quarter: q(H(1)), messages: 6, assistant: 3 }],
    calls: [call(H(0), 'claude', '', { input_tokens: 200, api_call_count: 1 }), call(H(0) + 900, 'claude', '', { input_tokens: 400, api_call_count: 2 }), call(H(2), 'gpt-5', '', { input_tokens: 400, api_call_count: 1 })],
  };
  assert.deepEqual(byCell(allocateSession(input).usage), [
    { at: H(0), model: 'claude', task: 'main', basis: 'route', input_tokens: 600, api_calls: 3 },
    { at: H(2), model: 'gpt-5', task: 'main', basis: 'route', input_tokens: 400, api_calls: 1 },
  ]);
  // Without them, both routes are where the messages are.
  assert.deepEqual(byCell(allocateSession({ ...input, calls: [] }).usage).map((r) => r.at), [H(1), H(1)]);
});

test('calls that cover part of the counters place that part; the rest follows the messages and goes to the session\'s own model', () => {
  const { usage } = allocateSession({
    zone: new Zone('UTC'),
    session: session({ input_tokens: 1000, api_call_count: 5 }),
    routes: [route('gpt-5', '', H(3), { input_tokens: 400, api_call_count: 1 })],
    days: [],
    activity: [{ quarter: q(H(1)), messages: 2, assistant: 1 }],
    calls: [call(H(3), 'gpt-5', '', { input_tokens: 400, api_call_count: 1 })],
  });
  assert.deepEqual(byCell(usage), [
    { at: H(1), model: 'gpt-5', task: 'main', basis: 'session', input_tokens: 600, api_calls: 4 },
    { at: H(3), model: 'gpt-5', task: 'main', basis: 'route', input_tokens: 400, api_calls: 1 },
  ]);
});

test('calls that record more than the counters (absolute-mode increments the counters lost) are scaled down to them', () => {
  const { usage } = allocateSession({
    zone: new Zone('UTC'),
    session: session({ input_tokens: 1000 }),
    routes: [route('gpt-5', '', H(0), { input_tokens: 2000 })],
    days: [],
    activity: [{ quarter: q(H(1)), messages: 2, assistant: 1 }],
    calls: [call(H(0), 'gpt-5', '', { input_tokens: 600 }), call(H(2), 'gpt-5', '', { input_tokens: 1400 })],
  });
  assert.deepEqual(byCell(usage), [
    { at: H(0), model: 'gpt-5', task: 'main', basis: 'route', input_tokens: 300, api_calls: 0 },
    { at: H(2), model: 'gpt-5', task: 'main', basis: 'route', input_tokens: 700, api_calls: 0 },
  ]);
});

test('a session with calls but no messages is placed at its calls\' hours; a call on no recorded route goes to the session\'s own', () => {
  const { usage } = allocateSession({
    zone: new Zone('UTC'),
    session: session({ input_tokens: 900, last_activity_at: H(5) }),
    routes: [],
    days: [],
    activity: [],
    calls: [call(H(2), 'other', '', { input_tokens: 300 }), call(H(4), 'gpt-5', '', { input_tokens: 600 })],
  });
  assert.deepEqual(byCell(usage), [
    { at: H(2), model: 'gpt-5', task: 'main', basis: 'session', input_tokens: 300, api_calls: 0 },
    { at: H(4), model: 'gpt-5', task: 'main', basis: 'session', input_tokens: 600, api_calls: 0 },
  ]);
});

test('an upgraded store with days and calls: the calls place what they recorded, the days the rest (before the calls began)', () => {
  const { usage } = allocateSession({
    zone: new Zone('UTC'),
    session: session({ input_tokens: 1000 }),
    routes: [],
    // Hermes's daily rows stopped with the upgrade; its calls started with it.
    days: [{ day: '2026-06-30', input_tokens: 500 }],
    activity: [{ quarter: q(H(0)), messages: 2, assistant: 1 }],
    calls: [call(H(2), 'gpt-5', '', { input_tokens: 500 })],
  });
  assert.deepEqual(byCell(usage), [
    { at: Date.UTC(2026, 5, 30, 12) / 1000, model: 'gpt-5', task: 'main', basis: 'session', input_tokens: 500, api_calls: 0 },
    { at: H(2), model: 'gpt-5', task: 'main', basis: 'session', input_tokens: 500, api_calls: 0 },
  ]);
});

test('an auxiliary row is placed at its calls\' hours; calls of a task with no row are not counted', () => {
  const { usage } = allocateSession({
    zone: new Zone('UTC'),
    session: session(),
    routes: [{ ...route('flash', 'vision', H(0), { input_tokens: 400, api_call_count: 2 }), last_seen: H(1) }],
    days: [],
    activity: [{ quarter: q(H(0)), messages: 2, assistant: 1 }, { quarter: q(H(1)), messages: 2, assistant: 1 }],
    calls: [call(H(3), 'flash', 'vision', { input_tokens: 300, api_call_count: 1 }), call(H(3), 'flash', 'compression', { input_tokens: 5000, api_call_count: 1 })],
  });
  assert.deepEqual(byCell(usage), [
    { at: H(0), model: 'flash', task: 'vision', basis: 'auxiliary', input_tokens: 50, api_calls: 1 },
    { at: H(1), model: 'flash', task: 'vision', basis: 'auxiliary', input_tokens: 50, api_calls: 0 },
    { at: H(3), model: 'flash', task: 'vision', basis: 'auxiliary', input_tokens: 300, api_calls: 1 },
  ]);
});

test('a voice_chat row is main-loop usage already in the counters, not an auxiliary row on top (hermes_state_usage.py update_token_counts task)', () => {
  // Hermes: update_token_counts(task='voice_chat') adds to the session's counters and records the route under that
  // task; record_auxiliary_usage (vision) touches only session_model_usage. Counters 1,000 = text 800 + voice 200.
  const { usage } = allocateSession({
    zone: new Zone('UTC'), days: [], activity: [{ quarter: q(T0), messages: 2, assistant: 1 }],
    session: session({ input_tokens: 1000, estimated_cost_usd: 0.1, api_call_count: 5 }),
    routes: [
      route('main-model', '', T0, { input_tokens: 800, estimated_cost_usd: 0.08, api_call_count: 4 }),
      route('voice-model', 'voice_chat', T0 + 60, { input_tokens: 200, estimated_cost_usd: 0.02, api_call_count: 1 }),
      route('aux-model', 'vision', T0 + 120, { input_tokens: 300, estimated_cost_usd: 0.03, api_call_count: 1 }),
    ],
  });
  const total = (m: 'input_tokens' | 'api_calls') => usage.reduce((t, r) => t + Number(r[m]), 0);
  assert.equal(total('input_tokens'), 1300, 'counters plus the vision row only');
  assert.equal(total('api_calls'), 6);
  assert.deepEqual(pick(usage, ['model', 'task', 'basis', 'input_tokens']).sort((a, b) => String(a.model).localeCompare(String(b.model))), [
    { model: 'aux-model', task: 'vision', basis: 'auxiliary', input_tokens: 300 },
    { model: 'main-model', task: 'main', basis: 'route', input_tokens: 800 },
    { model: 'voice-model', task: 'voice_chat', basis: 'route', input_tokens: 200 },
  ]);
});
