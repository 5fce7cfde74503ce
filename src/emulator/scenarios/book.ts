// One namespace's scenarios and the runs they are playing. The book is the agent's script (runs/agent.ts AgentScript):
// a new run is matched once; its steps then run through the agent's own methods at their offsets on the namespace's
// clock, one timer per run, so advancing a frozen clock plays due steps in order and the same clock gives the same
// bytes. A reset puts back the scenarios the options gave; a restart or reset cancels every run's remaining steps.
import type { Clock, Timer } from '../../shared/clock.js';
import { HermeticError } from '../../shared/errors.js';
import { dumps, parsePyJson, type PyDict, type PyValue } from '../../shared/python/index.js';
import type { AgentScript, FakeAgent, RunInput, Usage } from '../runs/agent.js';
import type { LiveRun, RunRegistry } from '../runs/registry.js';
import { firstMatch, inputText, usageFromInput } from './match.js';
import { MAX_SCENARIOS, readScenarios, type Outcome, type Scenario, type ScenarioSet, type ScenarioUsage, type Step } from './schema.js';

/** What the book plays through: the namespace's clock, its current agent and run memory (both replaced by a reset). */
export interface ScenarioHost {
  readonly clock: Clock;
  readonly agent: FakeAgent;
  readonly registry: RunRegistry;
}

interface Waiting {
  /** The approval.request dict the agent waits on (the same object is in run.approvals until it is resolved). */
  entry: PyDict;
  since: number;
  timeoutAt: number;
  /** The approval step's index in the current list. */
  step: number;
}

/** One run being played. */
interface Play {
  run: LiveRun;
  readonly scenario: Scenario;
  /** Whether the scenario is the default (it may share a name with a listed one). */
  readonly fallback: boolean;
  readonly input: string;
  /** The current list: [] for the scenario's steps, [i, outcome, …] for an approval step's branch. */
  path: Array<number | Outcome>;
  steps: readonly Step[];
  index: number;
  /** Clock time the agent started (null: still queued). */
  startedAt: number | null;
  /** Seconds spent waiting for approval answers (step offsets do not count them). */
  waited: number;
  waiting: Waiting | null;
  timer: Timer | null;
}

/** A book as a checkpoint keeps it (JSON): the scenarios as Python JSON text, counts, and each play's position. */
export interface ScenarioBookSnapshot {
  readonly version: 1;
  readonly document: string;
  readonly matched: Array<[string, number]>;
  readonly plays: Array<{
    run_id: string;
    scenario: string;
    fallback: boolean;
    input: string;
    path: Array<number | Outcome>;
    index: number;
    started_at: number | null;
    waited: number;
    waiting: { request_id: string; since: number; timeout_at: number; step: number } | null;
  }>;
}

const MANUAL = 'manual';

export class ScenarioBook implements AgentScript {
  #scenarios: Scenario[] = [];
  #fallback: Scenario | null = null;
  #fallbackSource: PyValue = MANUAL;
  readonly #matched = new Map<string, number>();
  readonly #plays = new Map<string, Play>();

  /** `initial`: the scenarios the options gave (a reset comes back to them). */
  constructor(
    private readonly host: ScenarioHost,
    private readonly initial: ScenarioSet | null,
  ) {
    this.reset();
  }

  // ── The list ─────────────────────────────────────────────────────────────────────────────────────────────────────

  /** The GET /__admin/scenarios answer: the default and the scenarios in matching order, each with its match count. */
  describe(): PyDict {
    const scenarios = this.#scenarios.map((s) => new Map(s.source).set('matched', this.#matched.get(s.name) ?? 0));
    return new Map<string, PyValue>([['default', this.#fallbackSource], ['scenarios', scenarios]]);
  }

  /** The name an unnamed scenario added now gets (its position in the list, skipping names taken). */
  readonly nameFor = (index: number): string => {
    const taken = new Set(this.#scenarios.map((s) => s.name));
    let n = this.#scenarios.length + index + 1;
    while (taken.has(`scenario-${n}`)) n++;
    return `scenario-${n}`;
  };

  /** Adds a document's scenarios after the others (one with a name already listed replaces it in place) and its default. */
  add(doc: ScenarioSet): void {
    // Refused before anything changes: a namespace holds at most MAX_SCENARIOS (a listed name takes no more room).
    const listed = new Set(this.#scenarios.map((s) => s.name));
    const adds = doc.scenarios.filter((s) => !listed.has(s.name)).length;
    if (this.#scenarios.length + adds > MAX_SCENARIOS) {
      throw new HermeticError('HERMETIC_SCENARIO_LIMIT', `This namespace has ${this.#scenarios.length} scenarios and the document adds ${adds} more; a namespace holds at most ${MAX_SCENARIOS}. Delete some (DELETE /__admin/scenarios?name=…) first.`);
    }
    for (const scenario of doc.scenarios) {
      const at = this.#scenarios.findIndex((s) => s.name === scenario.name);
      if (at >= 0) this.#scenarios[at] = scenario;
      else this.#scenarios.push(scenario);
      this.#matched.delete(scenario.name);
    }
    if (doc.fallback) {
      this.#fallback = doc.fallback.scenario;
      this.#fallbackSource = doc.fallback.source;
    }
  }

  remove(name: string): void {
    const at = this.#scenarios.findIndex((s) => s.name === name);
    if (at < 0) {
      const names = this.#scenarios.map((s) => `"${s.name}"`);
      throw new HermeticError('HERMETIC_SCENARIO_UNKNOWN', `No scenario "${name}" in this namespace (${names.length ? `it has ${names.join(', ')}` : 'it has none'}).`);
    }
    this.#scenarios.splice(at, 1);
    this.#matched.delete(name);
  }

  /** No scenarios, and runs nothing matches left to the control plane. Runs already playing go on. */
  clear(): void {
    this.#scenarios = [];
    this.#matched.clear();
    this.#fallback = null;
    this.#fallbackSource = MANUAL;
  }

  /** Back to the scenarios the options gave; every run's remaining steps are cancelled. */
  reset(): void {
    this.cancelPlays();
    this.clear();
    if (this.initial) this.add(this.initial);
  }

  /** The process died (a restart) or the namespace is closing: no run plays on. */
  cancelPlays(): void {
    for (const play of this.#plays.values()) play.timer?.cancel();
    this.#plays.clear();
  }

  /** The scenario playing a run (null: none). */
  playing(runId: string): string | null {
    const play = this.#plays.get(runId);
    return play ? play.scenario.name : null;
  }

  // ── The agent's script ───────────────────────────────────────────────────────────────────────────────────────────

  spawned(run: LiveRun, input: RunInput): number | undefined {
    const listed = firstMatch(this.#scenarios, input);
    const scenario = listed ?? this.#fallback;
    if (!scenario) return undefined;
    if (listed) this.#matched.set(listed.name, (this.#matched.get(listed.name) ?? 0) + 1);
    this.#plays.set(run.runId, {
      run, scenario, fallback: !listed, input: inputText(input.userMessage),
      path: [], steps: scenario.steps, index: 0, startedAt: null, waited: 0, waiting: null, timer: null,
    });
    return scenario.startDelay;
  }

  started(run: LiveRun): void {
    const play = this.#plays.get(run.runId);
    if (!play || play.run !== run) return;
    play.startedAt = this.host.clock.now();
    this.#advance(play);
  }

  resolved(run: LiveRun, approvals: readonly PyDict[], choice: string): void {
    const play = this.#plays.get(run.runId);
    const waiting = play?.waiting;
    if (!play || !waiting || !approvals.includes(waiting.entry)) return;
    // The agent thread wakes once the handler has answered: the status update and approval.responded come first.
    this.#stopWaiting(play, choice === 'deny' ? 'denied' : 'approved');
    queueMicrotask(() => this.#advance(play));
  }

  ended(run: LiveRun): void {
    const play = this.#plays.get(run.runId);
    if (!play || play.run !== run) return;
    play.timer?.cancel();
    this.#plays.delete(run.runId);
  }

  // ── Playing ──────────────────────────────────────────────────────────────────────────────────────────────────────

  /** Runs every step now due, in order, then arms one timer for the next; `due` is a step whose timer just fired. */
  #advance(play: Play, due?: Step): void {
    const { clock } = this.host;
    play.timer?.cancel();
    play.timer = null;
    while (this.#plays.get(play.run.runId) === play && !play.waiting && play.startedAt !== null) {
      const step = play.steps[play.index];
      if (!step) return; // the script is over: the run is left to a stop or the control plane
      const at = play.startedAt + step.at + play.waited;
      const now = clock.now();
      if (step !== due && at > now) {
        play.timer = clock.schedule(at - now, () => {
          play.timer = null;
          this.#advance(play, step);
        });
        return;
      }
      play.index++;
      this.#perform(play, step);
    }
  }

  #perform(play: Play, step: Step): void {
    const { agent, clock } = this.host;
    const { run } = play;
    const a = step.action;
    switch (a.kind) {
      case 'event':
        if (a.event) agent.progress(run, a.event);
        return;
      case 'approval': {
        // A chat stream's turn never waits: Hermes answers its tool at once, pending approval (decision 0155). The
        // script plays on with its next step, as the agent reads that answer and goes on.
        if (run.streamTurn) return;
        const entry = agent.requestApproval(run, a.notification);
        const since = clock.now();
        play.waiting = { entry, since, timeoutAt: since + a.timeout, step: play.index - 1 };
        play.timer = clock.schedule(a.timeout, () => this.#timedOut(play));
        return;
      }
      case 'complete': {
        const pending = a.pendingSteer === undefined ? {} : { pendingSteer: a.pendingSteer };
        agent.finish(run, { kind: 'completed', output: a.output, usage: this.#usage(play, a.usage, a.output), ...pending });
        return;
      }
      case 'fail':
        agent.finish(run, { kind: 'failed', error: a.error });
        return;
      case 'raise':
        agent.raise(run, a.exception);
        return;
      case 'cancel':
        agent.finish(run, { kind: 'interrupted', output: a.output, usage: this.#usage(play, a.usage, a.output) });
        return;
      case 'steer_policy':
        agent.setSteerPolicy(run, a);
        return;
      case 'stop_policy':
        run.acknowledgeStop = a.acknowledge;
        if (a.acknowledge && run.stopRequested) {
          // A stop held so far is noticed now: the agent checks its interrupt flag and returns interrupted; it does
          // nothing more of its script (not even steps due at this same instant).
          this.#plays.delete(run.runId);
          agent.interrupt(run);
        }
        return;
      case 'hang':
        return;
    }
  }

  #usage(play: Play, usage: ScenarioUsage, output: PyValue): Usage {
    return usage === 'from_input' ? usageFromInput(play.input, output) : usage;
  }

  /**
   * tools/approval.py: the wait times out (fails closed) and the entry leaves the queue; the agent is told it was
   * blocked and goes on. Nothing touches the status: it stays waiting_for_approval with its approval (spec §7.2).
   */
  #timedOut(play: Play): void {
    play.timer = null;
    const waiting = play.waiting;
    if (!waiting || this.#plays.get(play.run.runId) !== play) return;
    play.run.approvals = play.run.approvals.filter((a) => a !== waiting.entry);
    this.#stopWaiting(play, 'timed_out');
    this.#advance(play);
  }

  /** The wait is over: its time stops counting against the offsets, and the outcome's branch (if any) plays next. */
  #stopWaiting(play: Play, outcome: Outcome): void {
    const waiting = play.waiting!;
    play.timer?.cancel();
    play.timer = null;
    play.waiting = null;
    play.waited += this.host.clock.now() - waiting.since;
    const step = play.steps[waiting.step]!;
    const branch = step.action.kind === 'approval' ? step.action.branches[outcome] : undefined;
    if (branch) {
      play.path = [...play.path, waiting.step, outcome];
      play.steps = branch;
      play.index = 0;
    }
  }

  // ── Checkpoints ──────────────────────────────────────────────────────────────────────────────────────────────────

  snapshot(): ScenarioBookSnapshot {
    const document = dumps(new Map<string, PyValue>([['scenarios', this.#scenarios.map((s) => s.source)], ['default', this.#fallbackSource]]));
    return {
      version: 1,
      document,
      matched: [...this.#matched],
      plays: [...this.#plays.values()].map((p) => ({
        run_id: p.run.runId,
        scenario: p.scenario.name,
        fallback: p.fallback,
        input: p.input,
        path: [...p.path],
        index: p.index,
        started_at: p.startedAt,
        waited: p.waited,
        waiting: p.waiting
          ? { request_id: dumps(p.waiting.entry.get('request_id') ?? null), since: p.waiting.since, timeout_at: p.waiting.timeoutAt, step: p.waiting.step }
          : null,
      })),
    };
  }

  /**
   * Puts back a snapshot: the scenarios, and the plays of runs live again in the registry (a checkpoint restores the
   * runs first). A play's next step or approval timeout is re-armed at the clock time it was due.
   */
  restore(state: unknown): void {
    const saved = state as ScenarioBookSnapshot;
    this.cancelPlays();
    this.clear();
    this.add(readScenarios(parsePyJson(saved.document), 'A checkpoint'));
    for (const [name, n] of saved.matched) this.#matched.set(name, n);
    const { clock, registry } = this.host;
    for (const p of saved.plays) {
      const run = registry.live.get(p.run_id);
      const scenario = p.fallback ? this.#fallback : this.#scenarios.find((s) => s.name === p.scenario);
      if (!run || !scenario) continue;
      let steps = scenario.steps;
      for (let i = 0; i < p.path.length; i += 2) {
        const step = steps[p.path[i] as number]!;
        steps = step.action.kind === 'approval' ? step.action.branches[p.path[i + 1] as Outcome]! : [];
      }
      const play: Play = {
        run, scenario, fallback: p.fallback, input: p.input, path: [...p.path], steps, index: p.index,
        startedAt: p.started_at, waited: p.waited, waiting: null, timer: null,
      };
      this.#plays.set(run.runId, play);
      // The approval waited on, found again by its request_id in the run's restored queue.
      const entry = p.waiting && run.approvals.find((a) => dumps(a.get('request_id') ?? null) === p.waiting!.request_id);
      if (p.waiting && entry) {
        play.waiting = { entry, since: p.waiting.since, timeoutAt: p.waiting.timeout_at, step: p.waiting.step };
        play.timer = clock.schedule(p.waiting.timeout_at - clock.now(), () => this.#timedOut(play));
      } else if (play.startedAt !== null) {
        this.#advance(play);
      }
    }
  }
}
