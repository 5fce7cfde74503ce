// The usage ledger's attribution rules (decision 0031): one session's counters, its session_model_usage rows, its
// session_daily_usage rows, newer Hermes's per-call usage (decision 0112) and when its messages were written → ledger
// rows by cell (UTC hour cut at local midnight), model, route and task, adding up exactly to its counters plus its
// auxiliary rows. Pure: the same input
// gives the same rows; every amount is split in whole units (tokens, calls, 1e-10 dollars), so nothing is lost to
// rounding and nothing is counted twice.
import type { RecordOf } from '../dataset/columns.js';
import { validDay, validEpoch } from '../normalize/time.js';
import { inSessionTotals } from '../normalize/values.js';
import { QUARTER, type Cell, type Zone } from './zone.js';

/** The ledger's additive measures, in the order of its columns. */
export const MEASURES = ['api_calls', 'input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'estimated_cost_usd', 'actual_cost_usd'] as const;
export type Measure = (typeof MEASURES)[number];
const COST_UNITS = 1e10;
const isCost = (m: Measure) => m === 'estimated_cost_usd' || m === 'actual_cost_usd';
const INPUT_NAME: Record<Measure, string> = { api_calls: 'api_call_count', input_tokens: 'input_tokens', output_tokens: 'output_tokens', cache_read_tokens: 'cache_read_tokens', cache_write_tokens: 'cache_write_tokens', reasoning_tokens: 'reasoning_tokens', estimated_cost_usd: 'estimated_cost_usd', actual_cost_usd: 'actual_cost_usd' };

/** A counter of a Hermes row in whole units: negative, NULL or garbage counts as 0 (decision 0031, clamping). */
export function units(row: Readonly<Record<string, unknown>>, m: Measure): number {
  const v = row[INPUT_NAME[m]];
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) return 0;
  const u = Math.round(isCost(m) ? v * COST_UNITS : v);
  return Number.isSafeInteger(u) ? u : Number.MAX_SAFE_INTEGER;
}


/** The dataset's session row, as far as the ledger reads it (sessions table, plus its project). */
export interface LedgerSession extends Readonly<Record<string, unknown>> {
  store: string;
  session_id: string;
  profile: string;
  source: string;
  model: string | null;
  provider: string;
  billing_mode: string | null;
  cwd: string | null;
  git_repo_root: string | null;
  started_at: number;
  last_activity_at: number;
  actual_cost_usd: number | null;
}

/** A model_usage row (session × model × route × task). */
export interface LedgerRoute extends Readonly<Record<string, unknown>> {
  model: string;
  provider_key: string;
  provider: string;
  billing_mode: string | null;
  task: string;
  cost_status: string | null;
  first_seen: number | null;
  last_seen: number | null;
}

/** A daily_usage row (session × Hermes's local day). */
export interface LedgerDay extends Readonly<Record<string, unknown>> {
  day: string;
}

/**
 * Newer Hermes's calls of one route and task in one quarter of an hour (a `call_usage` row: the session's
 * `session_model_usage_events` summed; decision 0112), keyed as its `model_usage` row.
 */
export interface LedgerCall extends Readonly<Record<string, unknown>> {
  quarter: number;
  model: string;
  provider_key: string;
  task: string;
}

/** Messages of the session written in one quarter of an hour (epoch seconds / 900), assistant ones apart. */
export interface Activity {
  quarter: number;
  messages: number;
  assistant: number;
}

/** Tool calls (and tool results that say they failed) in one quarter of an hour. */
export interface ToolActivity {
  quarter: number;
  tool_name: string;
  calls: number;
  errors: number;
}

export interface LedgerInput {
  session: LedgerSession;
  routes: readonly LedgerRoute[];
  days: readonly LedgerDay[];
  /** Per-call usage by quarter hour (stores written by newer Hermes; absent or empty elsewhere). */
  calls?: readonly LedgerCall[];
  activity: readonly Activity[];
  tools?: readonly ToolActivity[];
  zone: Zone;
}

/** The task name of the main loop in the ledger (Hermes writes '' in session_model_usage). */
export const MAIN_TASK = 'main';

/**
 * Splits `total` units in proportion to `weights` (largest remainders, ties to the earlier weight): the parts add up
 * to `total` exactly. Weights must not all be 0 unless `total` is.
 */
export function split(total: number, weights: readonly number[]): number[] {
  const out = weights.map(() => 0);
  if (total <= 0) return out;
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum <= 0) throw new Error('split: no weight to split by');
  if (total * sum < Number.MAX_SAFE_INTEGER) {
    // Every product is exact in a double: the same answer as below, without BigInt.
    const rest: { i: number; r: number }[] = [];
    let given = 0;
    weights.forEach((w, i) => {
      const p = total * w;
      let q = Math.floor(p / sum);
      // p / sum is rounded: the quotient may be one off, the remainder says which way.
      if (p - q * sum < 0) q -= 1;
      else if (p - q * sum >= sum) q += 1;
      out[i] = q;
      given += q;
      rest.push({ i, r: p - q * sum });
    });
    rest.sort((a, b) => b.r - a.r || a.i - b.i);
    for (let k = 0; given < total; k++, given++) out[rest[k % rest.length]!.i]! += 1;
    return out;
  }
  const T = BigInt(total);
  const S = BigInt(sum);
  const rest: { i: number; r: bigint }[] = [];
  let given = 0n;
  weights.forEach((w, i) => {
    const p = T * BigInt(w);
    const q = p / S;
    out[i] = Number(q);
    given += q;
    rest.push({ i, r: p % S });
  });
  rest.sort((a, b) => (a.r === b.r ? a.i - b.i : a.r > b.r ? -1 : 1));
  for (let k = 0; given < T; k++, given++) out[rest[k % rest.length]!.i]! += 1;
  return out;
}

interface Route {
  model: string;
  provider: string;
  provider_key: string;
  billing_mode: string | null;
  task: string;
  basis: 'route' | 'session' | 'auxiliary' | 'none';
  /** Whether this row's actual cost is one Hermes recorded (else the ledger keeps NULL and shows the estimate). */
  actualRecorded: boolean;
}

interface Slot { cell: Cell; assistant: number; messages: number; quarters: number[] }

/** The session's cells (from its activity), in time order, with their weights. */
function timeline(input: LedgerInput): Slot[] {
  const byAt = new Map<number, Slot>();
  for (const a of input.activity) {
    if (a.messages <= 0 || !validEpoch(a.quarter * QUARTER)) continue;
    const cell = input.zone.cellOf(a.quarter);
    const slot = byAt.get(cell.at) ?? { cell, assistant: 0, messages: 0, quarters: [] };
    slot.assistant += Math.max(0, a.assistant);
    slot.messages += a.messages;
    slot.quarters.push(a.quarter);
    byAt.set(cell.at, slot);
  }
  return [...byAt.values()].sort((a, b) => a.cell.at - b.cell.at);
}

/** Assistant messages as weights, else every message (a session whose assistant rows were all rewound). */
const weightsOf = (slots: readonly Slot[]) => {
  const a = slots.map((s) => s.assistant);
  return a.some((x) => x > 0) ? a : slots.map((s) => s.messages);
};

/** Where an amount goes in time: cells (indexes into the session's cells) and their weights. */
interface Plan { cells: number[]; weights: number[] }

const byDay = (a: { day: string }, b: { day: string }) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0);
const byFirstUse = (a: { r: LedgerRoute }, b: { r: LedgerRoute }) => (validEpoch(a.r.first_seen) ? a.r.first_seen : Infinity) - (validEpoch(b.r.first_seen) ? b.r.first_seen : Infinity)
  || (a.r.provider_key < b.r.provider_key ? -1 : a.r.provider_key > b.r.provider_key ? 1 : 0) || (a.r.model < b.r.model ? -1 : a.r.model > b.r.model ? 1 : 0);

/**
 * The session's cells: those its messages were written in (`slots`), then any fallback cell a plan needs (a day's
 * noon, the last activity, an auxiliary row's last call, a call's quarter), each once. Every cell is added before
 * any amount is laid (`Amounts` fixes their number).
 */
class SessionCells {
  readonly slots: Slot[];
  readonly list: Cell[];
  readonly #indexOf: Map<number, number>;
  readonly #zone: Zone;
  readonly #lastActivity: number | null;

  constructor(input: LedgerInput) {
    const s = input.session;
    this.#zone = input.zone;
    this.slots = timeline(input);
    this.list = this.slots.map((x) => x.cell);
    this.#indexOf = new Map(this.list.map((c, i) => [c.at, i]));
    this.#lastActivity = validEpoch(s.last_activity_at) ? s.last_activity_at : validEpoch(s.started_at) ? s.started_at : null;
  }

  /** The cell of time `t`; a time that is none: the session's last activity (or start). */
  at(t: number | null | undefined): Cell {
    return this.#zone.cellOf(Math.floor((validEpoch(t) ? t : this.#lastActivity ?? 0) / QUARTER));
  }

  /** The cell of the session's last activity. */
  last(): Cell {
    return this.at(this.#lastActivity);
  }

  /** The index of cell `c`, added when the session has no such cell yet. */
  index(c: Cell): number {
    let i = this.#indexOf.get(c.at);
    if (i === undefined) this.#indexOf.set(c.at, (i = this.list.push(c) - 1));
    return i;
  }

  /** Over `over`'s cells by their weights; none, or no weight: all at `fallback()`'s cell. */
  plan(over: readonly Slot[], fallback: () => Cell): Plan {
    const weights = weightsOf(over);
    return over.length > 0 && weights.some((x) => x > 0) ? { cells: over.map((x) => this.#indexOf.get(x.cell.at)!), weights } : { cells: [this.index(fallback())], weights: [1] };
  }
}

/** Adds `amount` units along plan `p` into `into` (by cell index). */
function spread(amount: number, p: Plan, into: number[]): void {
  if (amount <= 0) return;
  if (p.cells.length === 1) {
    into[p.cells[0]!]! += amount;
    return;
  }
  const parts = split(amount, p.weights);
  for (let i = 0; i < parts.length; i++) into[p.cells[i]!]! += parts[i]!;
}

interface MainRoute { r: LedgerRoute; route: Route }
interface AuxRoute { r: LedgerRoute; route: Route; between: Plan }

/**
 * The session's routes, in the ledger's order: main-loop rows in the order they were first used, the session's own
 * model, then auxiliary rows (each with where its amounts go in time); `canonical` maps each to the first of the same
 * key (two rows of one route make one ledger row).
 */
function sessionRoutes(input: LedgerInput, cells: SessionCells) {
  const s = input.session;
  // Which main-loop routes were billed: when the routes' own billed costs account for all of the session's, a route
  // with none of its own was not billed, and shows its estimate (not a billed $0). When they do not (none recorded,
  // or less than the session's), the unattributed billed cost is shared over the routes, and every route counts as
  // billed, so no estimate is shown beside the billed money that covers it. The rest on the session's own model
  // (basis `session`) is judged the same way: billed when it holds billed money the routes do not, or when there are
  // no routes (it is then the whole session, a billed $0 included).
  // Main-loop rows are those Hermes also counted in the counters: task '' and the per-turn routes such as voice_chat.
  const mainRows = input.routes.filter((r) => inSessionTotals(r.task) || r.task === MAIN_TASK);
  const billed = s.actual_cost_usd !== null;
  const routesBilled = mainRows.reduce((sum, r) => sum + units(r, 'actual_cost_usd'), 0);
  const unattributed = billed && routesBilled < units(s, 'actual_cost_usd');
  const routeBilled = (r: LedgerRoute) => billed && (unattributed || units(r, 'actual_cost_usd') > 0 || r.cost_status === 'actual');
  const own: Route = {
    model: s.model ?? '', provider: s.provider, provider_key: '', billing_mode: s.billing_mode, task: MAIN_TASK, basis: 'session',
    actualRecorded: billed && (unattributed || mainRows.length === 0),
  };
  const main: MainRoute[] = mainRows
    .map((r) => ({ r, route: { model: r.model, provider: r.provider, provider_key: r.provider_key, billing_mode: r.billing_mode, task: r.task === '' ? MAIN_TASK : r.task, basis: 'route' as const, actualRecorded: routeBilled(r) } }))
    .sort(byFirstUse);
  const aux: AuxRoute[] = input.routes.filter((r) => !inSessionTotals(r.task) && r.task !== MAIN_TASK).map((r) => {
    const first = validEpoch(r.first_seen) ? r.first_seen : validEpoch(r.last_seen) ? r.last_seen : null;
    const last = validEpoch(r.last_seen) ? r.last_seen : first;
    const [q0, q1] = first === null || last === null ? [0, -1] : [Math.floor(first / QUARTER), Math.floor(last / QUARTER)];
    const route: Route = {
      model: r.model, provider: r.provider, provider_key: r.provider_key, billing_mode: r.billing_mode, task: r.task, basis: 'auxiliary',
      actualRecorded: units(r, 'actual_cost_usd') > 0 || r.cost_status === 'actual',
    };
    return { r, route, between: cells.plan(cells.slots.filter((x) => x.quarters.some((q) => q >= q0 && q <= q1)), () => cells.at(last)) };
  });
  const all: Route[] = [...main.map((x) => x.route), own, ...aux.map((x) => x.route)];
  // Two rows of one route (the same key, say two base URLs that differ only by a trailing slash) make one ledger row.
  const same = (a: Route, b: Route) => a.task === b.task && a.basis === b.basis && a.model === b.model && a.provider_key === b.provider_key;
  return { main, own, aux, all, canonical: all.map((r) => all.findIndex((x) => same(x, r))) };
}
type SessionRoutes = ReturnType<typeof sessionRoutes>;

/** A call at a cell; for the main loop, on route `route` (an index into `main`, or `main.length`: the session's own). */
interface PlacedCall { route: number; cell: number; row: LedgerCall }

/**
 * Newer Hermes's calls (decision 0112), each at its quarter's cell: main-loop calls on the route whose model_usage
 * row they are part of (none: the session's own), auxiliary ones with their task's row (none: not in the totals, so
 * not counted).
 */
function placeCalls(input: LedgerInput, routes: SessionRoutes, cells: SessionCells): { main: PlacedCall[]; aux: PlacedCall[][] } {
  const routeKey = (task: string, model: string, providerKey: string) => `${task}\u0000${model}\u0000${providerKey}`;
  const mainIndex = new Map(routes.main.map((x, i) => [routeKey(x.r.task, x.r.model, x.r.provider_key), i] as const));
  const auxIndex = new Map(routes.aux.map((x, k) => [routeKey(x.r.task, x.r.model, x.r.provider_key), k] as const));
  const main: PlacedCall[] = [];
  const aux = routes.aux.map((): PlacedCall[] => []);
  for (const c of input.calls ?? []) {
    if (!validEpoch(c.quarter * QUARTER)) continue;
    const key = routeKey(c.task, c.model, c.provider_key);
    if (inSessionTotals(c.task) || c.task === MAIN_TASK) main.push({ route: mainIndex.get(key) ?? routes.main.length, cell: cells.index(input.zone.cellOf(c.quarter)), row: c });
    else {
      const k = auxIndex.get(key);
      if (k !== undefined) aux[k]!.push({ route: k, cell: cells.index(input.zone.cellOf(c.quarter)), row: c });
    }
  }
  return { main, aux };
}

/** Lays what `calls` recorded of `measure`, scaled down to `amount` when more, through `put`; returns the amount laid. */
function layCalls(calls: readonly PlacedCall[], measure: Measure, amount: number, put: (x: PlacedCall, units: number) => void): number {
  if (calls.length === 0 || amount <= 0) return 0;
  const recorded = calls.map((x) => units(x.row, measure));
  const sum = recorded.reduce((a, b) => a + b, 0);
  if (sum === 0) return 0;
  const parts = sum > amount ? split(amount, recorded) : recorded;
  parts.forEach((u, i) => u > 0 && put(calls[i]!, u));
  return Math.min(sum, amount);
}

/** Whole units laid so far, by route (canonical) × cell, each a list of the measures; in the order first laid. */
class Amounts {
  readonly byKey = new Map<number, number[]>();
  readonly #width: number;

  constructor(readonly canonical: readonly number[], cells: SessionCells) {
    this.#width = cells.list.length;
  }

  add(route: number, cell: number, m: number, amount: number): void {
    if (amount === 0) return;
    if (cell >= this.#width) throw new Error('allocate: a cell was added after amounts were laid');
    const k = this.canonical[route]! * this.#width + cell;
    let a = this.byKey.get(k);
    if (!a) this.byKey.set(k, (a = MEASURES.map(() => 0)));
    a[m]! += amount;
  }

  /** Each (route index, cell index, amounts) in the order first laid. */
  *entries(): Iterable<[number, number, number[]]> {
    for (const [k, a] of this.byKey) yield [Math.floor(k / this.#width), k % this.#width, a];
  }
}

/**
 * Where the main loop's amounts go in time: Hermes's days (a day that is no date, `2026-13-45`, is no split: its
 * amount joins the rest; the projector records the row issue), each over that day's cells (none: its local noon), and
 * the rest over every cell (none: the last activity).
 */
function mainLoopTime(input: LedgerInput, cells: SessionCells) {
  const days = input.days.filter((d) => validDay(d.day)).sort(byDay);
  const dayPlans = days.map((d) => cells.plan(cells.slots.filter((x) => x.cell.day === d.day), () => cells.at(input.zone.timeOf(d.day, 12))));
  return { days, dayPlans, everyCell: cells.plan(cells.slots, () => cells.last()) };
}
type MainLoopTime = ReturnType<typeof mainLoopTime>;

/**
 * 1. The main loop: the session's counters. What newer Hermes's calls recorded goes where and when they happened (on
 *    their routes, at their cells; more than the counters: scaled down). The rest is split by route (what each
 *    route's row recorded beyond its calls) and the rest of that to the session's own model; laid along time by
 *    session_daily_usage and the cells its messages were written in; routes take the timeline in order.
 */
function layMainLoop(input: LedgerInput, cells: SessionCells, routes: SessionRoutes, time: MainLoopTime, calls: readonly PlacedCall[], amounts: Amounts): void {
  const s = input.session;
  const { days, dayPlans, everyCell } = time;
  const order = cells.list.map((_, i) => i).sort((a, b) => cells.list[a]!.at - cells.list[b]!.at);
  const { main } = routes;
  let estimateByRoute: number[] = [];
  const inTime = new Array<number>(cells.list.length);
  const fromCalls = new Array<number>(main.length + 1);
  MEASURES.forEach((measure, m) => {
    const whole = measure === 'actual_cost_usd' && s.actual_cost_usd === null ? 0 : units(s, measure);
    if (whole === 0) return;
    fromCalls.fill(0);
    const total = whole - layCalls(calls, measure, whole, (x, u) => {
      amounts.add(x.route, x.cell, m, u);
      fromCalls[x.route]! += u;
    });
    if (total === 0) {
      if (measure === 'estimated_cost_usd') estimateByRoute = [];
      return;
    }
    // By route: what each route recorded (beyond its calls laid above); more than the counters hold is scaled down to
    // them, the rest is the session's.
    const recorded = main.map((x, i) => Math.max(0, units(x.r, measure) - fromCalls[i]!));
    const sum = recorded.reduce((a, b) => a + b, 0);
    let byRoute: number[];
    if (measure === 'actual_cost_usd' && sum === 0) {
      // Routes with no billed cost: the session's billed cost follows its estimate's split.
      byRoute = estimateByRoute.some((x) => x > 0) ? split(total, estimateByRoute) : [...recorded, total - sum];
    } else byRoute = sum > total ? [...split(total, recorded), 0] : [...recorded, total - sum];
    if (measure === 'estimated_cost_usd') estimateByRoute = byRoute;
    // By time: each Hermes day's amount over that day's cells (days holding too much are scaled down), the rest over all.
    inTime.fill(0);
    const perDay = days.map((d) => units(d, measure));
    const daySum = perDay.reduce((a, b) => a + b, 0);
    const dayParts = daySum > total ? split(total, perDay) : perDay;
    dayPlans.forEach((p, i) => spread(dayParts[i]!, p, inTime));
    spread(total - Math.min(daySum, total), everyCell, inTime);
    let j = 0;
    let left = inTime[order[0]!] ?? 0;
    byRoute.forEach((amount, i) => {
      let need = amount;
      while (need > 0 && j < order.length) {
        if (left === 0) {
          left = inTime[order[++j]!] ?? 0;
          continue;
        }
        const take = Math.min(need, left);
        amounts.add(i, order[j]!, m, take);
        need -= take;
        left -= take;
      }
    });
  });
}

/**
 * 2. Auxiliary tasks (never in the session's counters): each row at its calls' cells where newer Hermes recorded
 *    them (decision 0112), the rest over the cells between its first and last call.
 */
function layAuxiliary(cells: SessionCells, routes: SessionRoutes, calls: readonly (readonly PlacedCall[])[], amounts: Amounts): void {
  const inTime = new Array<number>(cells.list.length);
  routes.aux.forEach(({ r, route, between }, k) => {
    const index = routes.main.length + 1 + k;
    MEASURES.forEach((measure, m) => {
      if (measure === 'actual_cost_usd' && !route.actualRecorded) return;
      inTime.fill(0);
      const amount = units(r, measure);
      spread(amount - layCalls(calls[k]!, measure, amount, (x, u) => { inTime[x.cell]! += u; }), between, inTime);
      for (let c = 0; c < cells.list.length; c++) amounts.add(index, c, m, inTime[c]!);
    });
  });
}

/** A ledger row of the session: a cell, a route and its amounts (null: the empty row of a session with no usage). */
function usageRecord(s: LedgerSession, project: string | null, cell: Cell, route: Route, a: readonly number[] | null): RecordOf {
  // Billed money laid on a route is shown as billed, whatever its model_usage row said: newer Hermes's calls can bill
  // a route whose row recorded none (or the session's own model), and an amount not shown would not add up.
  const billedHere = route.actualRecorded || (a !== null && a[7]! > 0);
  const actual = billedHere && a ? a[7]! / COST_UNITS : null;
  const estimated = a ? a[6]! / COST_UNITS : 0;
  // Built as a literal with every key in column order: one object shape for all (a backfill makes many).
  return {
    store: s.store, session_id: s.session_id, at: cell.at, day: cell.day, day_utc: cell.dayUtc, profile: s.profile,
    source: s.source, project, model: route.model, provider: route.provider, provider_key: route.provider_key,
    billing_mode: route.billing_mode, task: route.task, basis: route.basis, api_calls: a ? a[0]! : 0,
    input_tokens: a ? a[1]! : 0, output_tokens: a ? a[2]! : 0, cache_read_tokens: a ? a[3]! : 0,
    cache_write_tokens: a ? a[4]! : 0, reasoning_tokens: a ? a[5]! : 0, estimated_cost_usd: estimated,
    actual_cost_usd: actual, cost_usd: billedHere ? actual : estimated,
  };
}

/**
 * The ledger rows of one session, and its tool rows. Every cell a plan or a call needs is found first; then the main
 * loop's counters and the auxiliary rows are laid in whole units, and the rows made from what was laid.
 * @example allocateSession({ session, routes: [], days: [], activity: [{ quarter: 1978000, messages: 2, assistant: 1 }], zone: new Zone('UTC') })
 */
export function allocateSession(input: LedgerInput): { usage: RecordOf[]; tools: RecordOf[] } {
  const s = input.session;
  const cells = new SessionCells(input);
  const routes = sessionRoutes(input, cells);
  const time = mainLoopTime(input, cells);
  const calls = placeCalls(input, routes, cells);
  const amounts = new Amounts(routes.canonical, cells);
  layMainLoop(input, cells, routes, time, calls.main, amounts);
  layAuxiliary(cells, routes, calls.aux, amounts);

  const project = s.git_repo_root || s.cwd || null;
  const usage: RecordOf[] = [];
  for (const [route, cell, a] of amounts.entries()) usage.push(usageRecord(s, project, cells.list[cell]!, routes.all[route]!, a));
  // No usage at all: one empty row at its last activity, so the session still counts where it was active.
  if (usage.length === 0) usage.push(usageRecord(s, project, cells.last(), { ...routes.own, basis: 'none', actualRecorded: false }, null));
  usage.sort((a, b) => (a.at as number) - (b.at as number));
  return { usage, tools: toolRecords(input, project) };
}

/** The session's tool rows: its calls and failed results per quarter-hour cell and tool, in the ledger's zone. */
function toolRecords(input: LedgerInput, project: string | null): RecordOf[] {
  const { session: s, zone } = input;
  const toolRows = new Map<string, { cell: Cell; tool: string; calls: number; errors: number }>();
  for (const t of input.tools ?? []) {
    if ((t.calls <= 0 && t.errors <= 0) || !validEpoch(t.quarter * QUARTER)) continue;
    const cell = zone.cellOf(t.quarter);
    const key = `${cell.at}\u0000${t.tool_name}`;
    let row = toolRows.get(key);
    if (!row) toolRows.set(key, (row = { cell, tool: t.tool_name, calls: 0, errors: 0 }));
    row.calls += Math.max(0, t.calls);
    row.errors += Math.max(0, t.errors);
  }
  const tools: RecordOf[] = [];
  for (const { cell, tool, calls, errors } of toolRows.values()) {
    tools.push({
      store: s.store, session_id: s.session_id, at: cell.at, day: cell.day, day_utc: cell.dayUtc, profile: s.profile,
      source: s.source, project, tool_name: tool, calls, errors,
    });
  }
  return tools;
}
