// A namespace's fault rules and the step of its request pipeline that applies them (decision 0021). Rules are tried
// in order, the namespace's own first, then the rules for every namespace (`"namespace": "*"`, one list the emulator
// shares: decision 0066): `delay` and Hermes-check rules (`throttle`, `drain`) apply and let later rules match; the
// first rule of any other action decides the request. A rule is spent only by a request it actually affects.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../shared/clock.js';
import { HermeticError } from '../../shared/errors.js';
import type { FaultChecks, HttpRequest, HttpResponse } from '../http.js';
import { describeRequest, type RequestInfo } from '../namespaces/operation.js';
import { draw } from './draw.js';
import { ADMIN_FAULT_CODES, EVERY_NAMESPACE, parseFaultRule, toPy } from './rules.js';
import { armStream } from './stream.js';
import type { FaultRule, FaultRuleState } from './types.js';
import { acceptsHtml, internalErrorPage } from '../wire/responses.js';

export type { FaultRule, FaultRuleInput, FaultRuleState } from './types.js';
export { FAULT_PRESETS } from './presets.js';
export { ADMIN_FAULT_CODES, EVERY_NAMESPACE, parseFaultRule, parseFaultRules, toPy } from './rules.js';

/** A parsed rule before it has an id (parseFaultRule's answer). */
export type ParsedFaultRule = Omit<FaultRule, 'id'> & { id: string | null };

/** A namespace holds at most this many rules (control-plane state is bounded). */
export const MAX_FAULT_RULES = 1000;

export interface FaultsOptions {
  /** The namespace's clock (`virtual` delays wait on it). */
  readonly clock: Clock;
  /** The namespace's seed for probability draws; null: a random one (drawn again at each reset). */
  readonly seed: string | null;
  /** Rules every start (creation, reset) begins with: the `faults` option. */
  readonly initial: readonly ParsedFaultRule[];
  /** Adds what every answer carries (Content-Length, Date, Server) to a `respond` answer. */
  readonly finish: (response: HttpResponse) => HttpResponse;
  /** The rules for every namespace, tried after this namespace's own. */
  readonly everywhere?: Faults;
  /** This is that list itself (namespaces/index.ts): its rules are only tried through the namespaces'. */
  readonly forEveryNamespace?: boolean;
  /**
   * That list only: the ids of the rules the `faults` option gives namespaces (each gets them back when it starts or is
   * reset), which a rule for every namespace may not take.
   */
  readonly reservedIds?: ReadonlySet<string>;
}

/** What the request journal hands the pipeline: the request's description, and where to note the fault. */
export interface FaultTrace {
  readonly info: RequestInfo;
  faultId: string | null;
  /** Names the rule that affected the request after it was journaled (request-journal traffic.ts sets it). */
  lateFault?: (faultId: string) => void;
}

interface Live {
  readonly rule: Readonly<FaultRule>;
  /** The list that holds it: its seed draws the rule's probability. */
  readonly home: Faults;
  fired: number;
  draws: number;
  /** Deleted, cleared or replaced: armed requests no longer see it. */
  removed: boolean;
}

/** The plain data a checkpoint keeps (snapshot/restore). */
interface FaultsState {
  version: 1;
  seed: string;
  next: number;
  fired_total: number;
  rules: Array<{ rule: FaultRule; fired: number; draws: number }>;
}

const SNAPSHOT_CODES = ADMIN_FAULT_CODES;
const NONE: readonly Live[] = [];

export class Faults {
  #rules: Live[] = [];
  #next = 1;
  #firedTotal = 0;
  #seed: string;
  #closed = false;
  readonly #everywhere: Faults | null;
  /** Releases for requests waiting on a delay (a reset or close lets them go on). */
  readonly #waiting = new Set<() => void>();
  /** Streams held by sse_stall (a reset or close drops their connections). */
  readonly #stalls = new Set<() => void>();

  constructor(private readonly options: FaultsOptions) {
    this.#seed = options.seed ?? randomUUID();
    this.#everywhere = options.everywhere ?? null;
    this.#start();
  }

  /** The rules for every namespace, as this namespace tries them after its own. */
  #sharedRules(): readonly Live[] {
    return this.#everywhere ? this.#everywhere.#rules : NONE;
  }

  /** Whether this is the list of rules for every namespace. */
  get #isEverywhere(): boolean {
    return this.options.forEveryNamespace === true;
  }

  /** Requests any rule of this namespace has affected since it started (metrics read this). */
  firedTotal(): number {
    return this.#firedTotal;
  }

  get size(): number {
    return this.#rules.length;
  }

  /** Every rule in the order they are tried, with its counters: the namespace's own, then those for every namespace. */
  list(): FaultRuleState[] {
    return [...this.#rules, ...(this.#sharedRules())].map(view);
  }

  /** One rule, the namespace's own first (404 HERMETIC_FAULT_UNKNOWN if there is none with that id). */
  get(id: string): FaultRuleState {
    return view(this.#find(id));
  }

  /**
   * Adds a rule at the end, or replaces the rule with the same id in place (its counters start over).
   * @example faults.add(parseFaultRule(toPy({ preset: 'hermes_throttled' }), 'Fault rule', ADMIN_FAULT_CODES))
   */
  add(parsed: ParsedFaultRule): FaultRuleState {
    const everywhere = this.#everywhere;
    if (everywhere && parsed.namespace === EVERY_NAMESPACE) {
      // One id, one rule: a namespace's own rule would hide it there.
      if (parsed.id !== null && this.#rules.some((r) => r.rule.id === parsed.id)) {
        throw new HermeticError('HERMETIC_FAULT_INVALID', `Fault rule: the id "${parsed.id}" names a rule of this namespace; give the rule for every namespace another id, or delete that one first.`);
      }
      return everywhere.add(parsed);
    }
    if (everywhere && parsed.id !== null && everywhere.#rules.some((r) => r.rule.id === parsed.id)) {
      throw new HermeticError('HERMETIC_FAULT_INVALID', `Fault rule: the id "${parsed.id}" names a rule for every namespace; give this one another id, or delete that one first (DELETE /__admin/faults/${parsed.id}).`);
    }
    if (parsed.id !== null && this.options.reservedIds?.has(parsed.id)) {
      throw new HermeticError('HERMETIC_FAULT_INVALID', `Fault rule: the id "${parsed.id}" names a rule the faults option gives namespaces (each gets it back when it starts or is reset); give the rule for every namespace another id.`);
    }
    const id = parsed.id ?? this.#freshId();
    const rule = Object.freeze({ ...parsed, id, namespace: this.#isEverywhere ? EVERY_NAMESPACE : null });
    const live: Live = { rule, home: this, fired: 0, draws: 0, removed: false };
    const at = this.#rules.findIndex((r) => r.rule.id === id);
    if (at >= 0) {
      this.#rules[at]!.removed = true;
      this.#rules[at] = live;
    } else {
      if (this.#rules.length >= MAX_FAULT_RULES) {
        throw new HermeticError('HERMETIC_FAULT_LIMIT', this.#isEverywhere
          ? `There are already ${MAX_FAULT_RULES} fault rules for every namespace; delete some (DELETE /__admin/faults {"namespace": "*"}) first.`
          : `This namespace already has ${MAX_FAULT_RULES} fault rules; delete some (DELETE /__admin/faults) first.`);
      }
      this.#rules.push(live);
    }
    return view(live);
  }

  /** Deletes one rule, the namespace's own first, else the rule for every namespace; returns it as it was. */
  remove(id: string): FaultRuleState {
    const live = this.#find(id);
    live.removed = true;
    live.home.#rules = live.home.#rules.filter((r) => r !== live);
    return view(live);
  }

  /** Deletes every rule for every namespace (DELETE /__admin/faults {"namespace": "*"}); returns their ids. */
  clearEverywhere(): string[] {
    return this.#everywhere?.clear() ?? this.clear();
  }

  /** Deletes every rule of its own (never those for every namespace); returns their ids. */
  clear(): string[] {
    const ids = this.#rules.map((r) => r.rule.id);
    for (const r of this.#rules) r.removed = true;
    this.#rules = [];
    return ids;
  }

  /** As the namespace started: the option rules with no counts, the seed's first draws; waiting requests go on. */
  reset(): void {
    this.#release();
    this.#dropStalls();
    if (this.options.seed === null) this.#seed = randomUUID();
    this.#start();
  }

  close(): void {
    this.#closed = true;
    this.#release();
    this.#dropStalls();
    for (const r of this.#rules) r.removed = true;
    this.#rules = [];
  }

  /** The rules, their counters and the seed as plain JSON-able data (a checkpoint). */
  snapshot(): unknown {
    const state: FaultsState = {
      version: 1,
      seed: this.#seed,
      next: this.#next,
      fired_total: this.#firedTotal,
      rules: this.#rules.map((r) => ({ rule: { ...r.rule, headers: r.rule.headers && { ...r.rule.headers } }, fired: r.fired, draws: r.draws })),
    };
    return JSON.parse(JSON.stringify(state));
  }

  /** Back to a snapshot(): requests already in flight keep what they were armed with, but spend nothing more. */
  restore(state: unknown): void {
    // A checkpoint's restore resets the clock, cancelling the timers of requests waiting on a delay: they go on now.
    this.#release();
    const s = state as Partial<FaultsState> | null;
    if (!s || s.version !== 1 || typeof s.seed !== 'string' || !Array.isArray(s.rules)) {
      throw new HermeticError('HERMETIC_FAULT_INVALID', 'Not a snapshot of fault rules (version 1).');
    }
    const rules = s.rules.map((entry, i): Live => {
      const parsed = parseFaultRule(toPy(entry.rule), `Snapshot fault rule ${i + 1}`, SNAPSHOT_CODES);
      const rule = Object.freeze({ ...parsed, id: parsed.id ?? `fault_${i + 1}`, namespace: this.#isEverywhere ? EVERY_NAMESPACE : null });
      return { rule, home: this, fired: entry.fired | 0, draws: entry.draws | 0, removed: false };
    });
    for (const r of this.#rules) r.removed = true;
    this.#rules = rules;
    this.#seed = s.seed;
    this.#next = Number(s.next) || 1;
    this.#firedTotal = Number(s.fired_total) || 0;
  }

  /**
   * The pipeline step: `next` is the namespace's own answer. Control-plane requests are never faulted. The rule that
   * affected the request is noted on `trace.faultId` and on the answer's `faultId`.
   */
  handle(req: HttpRequest, next: (req: HttpRequest) => Promise<HttpResponse>, trace?: FaultTrace): Promise<HttpResponse> {
    // No rules (the usual case): nothing to describe, match or wait for.
    if (this.#rules.length === 0 && this.#sharedRules().length === 0) return next(req);
    const info = trace?.info ?? describeRequest(req);
    if (info.operation === 'admin') return next(req);
    return this.#apply(req, info, next, trace);
  }

  async #apply(req: HttpRequest, info: RequestInfo, next: (req: HttpRequest) => Promise<HttpResponse>, trace?: FaultTrace): Promise<HttpResponse> {
    let decidedBy: string | null = null;
    let delayedBy: string | null = null;
    const note = (): void => {
      const id = decidedBy ?? delayedBy;
      if (trace) trace.faultId = id;
    };

    const armed: Live[] = [];
    const after: Live[] = [];
    let decider: Live | null = null;
    for (const live of [...this.#rules, ...(this.#sharedRules())]) {
      if (live.removed || spent(live) || !matches(live.rule, req, info) || !this.#draw(live)) continue;
      const { action } = live.rule;
      if (action === 'delay') {
        if (live.rule.when === 'after') after.push(live);
        else if (this.#take(live)) {
          delayedBy = live.rule.id;
          await this.#wait(live.rule);
          if (this.#closed) return finishFault(dropped(0), decidedBy ?? delayedBy, note);
        }
      } else if (action === 'throttle' || action === 'drain') armed.push(live);
      else {
        decider = live;
        break;
      }
    }

    let response: HttpResponse;
    let handled = false;
    const answers = decider?.rule.action === 'respond' || decider?.rule.action === 'server_error' || decider?.rule.action === 'drop';
    if (decider && answers && this.#take(decider)) {
      decidedBy = decider.rule.id;
      const { action } = decider.rule;
      response = action === 'respond' ? this.options.finish(answer(decider.rule)) : action === 'server_error' ? this.options.finish(internalErrorPage(acceptsHtml(req))) : dropped(0);
    } else {
      const checks = armed.length > 0 ? this.#checks(armed, (id) => (decidedBy = id)) : null;
      response = await next(checks ? { ...req, header: req.header, readBody: req.readBody, faultChecks: checks } : req);
      handled = true;
    }

    for (const live of after) {
      if (!this.#take(live)) continue;
      delayedBy ??= live.rule.id;
      await this.#wait(live.rule);
      if (this.#closed) return finishFault(dropped(response.status), decidedBy ?? delayedBy, note);
    }

    const wraps = decider !== null && ['admit_then_drop', 'sse_drop', 'sse_stall'].includes(decider.rule.action);
    if (handled && decider && wraps) {
      const rule = decider.rule;
      const take = (): boolean => this.#take(decider);
      if (response.stream && response.status === 200) {
        // Only an event stream can stall or lose its connection mid-way; admit_then_drop loses it at once. The rule
        // is the request's only if it trips: a stream that ends first was not affected.
        const mode = rule.action === 'sse_stall' ? 'stall' : 'drop';
        const tripped = (): boolean => {
          if (!take()) return false;
          if (trace) trace.faultId = rule.id;
          trace?.lateFault?.(rule.id);
          return true;
        };
        armStream(response, mode, rule.action === 'admit_then_drop' ? 0 : (rule.after_events ?? 0), tripped, this.#stalls);
      } else if (rule.action === 'admit_then_drop' && response.status >= 200 && response.status < 300 && take()) {
        // Hermes answered (the run is admitted); the answer is lost on the way. Status and body stay for the journal.
        response.drop = true;
        decidedBy = rule.id;
      }
    }
    return finishFault(response, decidedBy ?? delayedBy, note);
  }

  #start(): void {
    for (const r of this.#rules) r.removed = true;
    this.#rules = [];
    this.#next = 1;
    this.#firedTotal = 0;
    for (const rule of this.options.initial) this.add(rule);
  }

  #find(id: string): Live {
    const live = this.#rules.find((r) => r.rule.id === id) ?? this.#sharedRules().find((r) => r.rule.id === id);
    if (!live) throw new HermeticError('HERMETIC_FAULT_UNKNOWN', `No fault rule "${id}" in this namespace (GET /__admin/faults lists them).`);
    return live;
  }

  #freshId(): string {
    // The rules for every namespace number apart, so their ids never meet a namespace's own fault_<n>.
    const prefix = this.#isEverywhere ? 'fault_all_' : 'fault_';
    for (;;) {
      const id = `${prefix}${this.#next++}`;
      if (!this.#rules.some((r) => r.rule.id === id) && !this.options.reservedIds?.has(id)) return id;
    }
  }

  /** Whether the rule fires for this request: its probability, drawn from the seed (one draw per matching request). */
  #draw(live: Live): boolean {
    const p = live.rule.probability;
    if (p === null || p >= 1) return true;
    return draw(live.rule.seed ?? live.home.#seed, live.rule.id, live.draws++) < p;
  }

  /** Spends one of the rule's times, if it has one left and still exists. */
  #take(live: Live): boolean {
    if (live.removed || spent(live)) return false;
    live.fired++;
    this.#firedTotal++;
    return true;
  }

  /** Hermes's checks as this request's armed rules see them; each answer is kept, so asking twice spends once. */
  #checks(armed: Live[], fired: (id: string) => void): FaultChecks {
    const fire = (action: 'drain' | 'throttle'): boolean => {
      for (const live of armed) {
        if (live.rule.action === action && this.#take(live)) {
          fired(live.rule.id);
          return true;
        }
      }
      return false;
    };
    let draining: boolean | undefined;
    let capacity: boolean | undefined;
    return {
      draining: () => (draining ??= fire('drain')),
      capacity: () => (capacity ??= fire('throttle')),
    };
  }

  /** Waits the delay on the namespace's clock (a frozen clock: until it is moved) or in wall time. */
  #wait(rule: FaultRule): Promise<void> {
    const seconds = rule.seconds ?? 0;
    if (seconds <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      let cancel = (): void => {};
      const done = (): void => {
        this.#waiting.delete(done);
        cancel();
        resolve();
      };
      if (rule.clock === 'wall') {
        const timer = setTimeout(done, seconds * 1000);
        cancel = () => clearTimeout(timer);
      } else {
        const timer = this.options.clock.schedule(seconds, done);
        cancel = () => timer.cancel();
      }
      this.#waiting.add(done);
    });
  }

  #release(): void {
    for (const done of [...this.#waiting]) done();
  }

  #dropStalls(): void {
    for (const unstall of [...this.#stalls]) unstall();
  }
}

const spent = (live: Live): boolean => live.rule.times !== null && live.fired >= live.rule.times;

function matches(rule: FaultRule, req: HttpRequest, info: RequestInfo): boolean {
  return (
    (rule.operation === null || rule.operation === info.operation) &&
    (rule.method === null || rule.method === req.method) &&
    (rule.path_prefix === null || req.path.startsWith(rule.path_prefix)) &&
    (rule.run_id === null || rule.run_id === info.runId)
  );
}

function view(live: Live): FaultRuleState {
  const { rule } = live;
  return {
    ...rule,
    ...(rule.headers ? { headers: { ...rule.headers } } : {}),
    fired: live.fired,
    remaining: rule.times === null ? null : Math.max(0, rule.times - live.fired),
  };
}

/** A `respond` rule's answer (no security headers: it stands for something in front of Hermes, or a Hermes of its own). */
function answer(rule: FaultRule): HttpResponse {
  return { status: rule.status!, headers: Object.entries(rule.headers ?? {}), body: rule.body ?? null };
}

/** No answer: the transport drops the connection. `status`: what Hermes had answered (0: it never saw the request). */
function dropped(status: number): HttpResponse {
  return { status, headers: [], body: null, drop: true };
}

function finishFault(response: HttpResponse, faultId: string | null, note: () => void): HttpResponse {
  note();
  if (faultId !== null) response.faultId = faultId;
  return response;
}
