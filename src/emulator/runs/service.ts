// The runs domain behind the six /v1/runs routes: admission with idempotency and capacity, status reads,
// stop, approval and steer, and the event buffer a subscriber attaches to. No HTTP and no SQL here.
import { timingSafeEqual } from 'node:crypto';
import type { IdSource } from '../../shared/ids.js';
import type { GatewaySettings } from '../gateway.js';
import { dumpsSorted, PyFloat, pyLen, pyStrip, type PyDict, type PyValue, isDict, pyTruthy } from '../../shared/python/index.js';
import type { IdempotencyRow } from './run-table.js';
import type { EventBuffer } from './event-log.js';
import { fail, hermesErrors, ok, UnhandledHermesException, type Result } from './hermes-errors.js';
import { isTerminal } from './lifecycle.js';
import type { FakeAgent } from './agent.js';
import type { LiveRun, RunRegistry } from './registry.js';
import { newStatus, statusOf } from './status.js';
import { steerText } from './steer-text.js';
import type { StreamTurnRun } from './stream-turn.js';
import { coerceRequestBool, type RunRequest } from './validate.js';

export interface Submission {
  scope: string;
  /** Stripped, validated Idempotency-Key, or null for a keyless run. */
  idempotencyKey: string | null;
  fingerprint: string | null;
  request: RunRequest;
  /** A fault rule armed at Hermes's capacity check: true makes the check refuse (and spends the rule; decision 0021). */
  capacityFault?: () => boolean;
  /** The request's headers by lower-case name (a scripted agent may match on one). */
  header?: (name: string) => string | undefined;
  /** The /p/<name>/ profile ('default' without a prefix): the sessions the run's agent writes to. */
  profile?: string;
  /** The validated X-Hermes-Session-Key, null without one: the agent's gateway_session_key. */
  sessionKey?: string | null;
}

export interface Admission {
  runId: string;
  /** `started` for a new run; the current stored status for a replay. */
  status: string;
  replayed: boolean;
}

/** A run the agent plays for a synchronous session chat (POST /api/sessions/{id}/chat). */
export interface ChatTurnRun {
  readonly sessionId: string;
  readonly model: string;
  readonly userMessage: PyValue;
  readonly instructions: PyValue | undefined;
  readonly header: (name: string) => string | undefined;
  readonly profile: string;
  /** The validated X-Hermes-Session-Key, null without one. */
  readonly sessionKey?: string | null;
  /**
   * A session chat stream's turn (decision 0145): the request's ownership scope (GET /v1/runs/{id} shows it to that
   * scope, as Hermes's `_run_owners`), and the `model` its status shows (`body.get("model", model_name)`).
   */
  readonly owner?: string;
  readonly statusModel?: PyValue;
  /** What the stream's status writes need; its run has no task and no approval session (decision 0146). */
  readonly streamTurn?: StreamTurnRun;
}

/** The owner stamp of a chat turn: no request's ownership scope (a SHA-256 hex) is ever empty, so no client sees it. */
export const UNOWNED = '';

/** What a steer's checks found before its body: the run's agent and the status dict they read. */
export interface SteerTarget {
  readonly run: LiveRun;
  readonly status: PyDict;
}

export type StopOutcome = { kind: 'status'; status: PyDict } | { kind: 'stopping'; runId: string };

const CHOICES = new Set(['once', 'session', 'always', 'deny']);
const CHOICE_ALIASES: Record<string, string> = { approve: 'once', approved: 'once', allow: 'once' };

const sameFingerprint = (a: string, b: string): boolean =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export class RunService {
  /**
   * Requests inside admission that Hermes would count as pending work (§13): those suspended while their body is
   * still arriving. Everything after the body read runs without yielding in Hermes (lookup, capacity check and
   * reserve are synchronous SQLite calls on its loop), so a burst is admitted one request at a time; a request waiting
   * for our shared commit, or for a body already received, is not suspended in Hermes's sense (decision 0016).
   */
  #suspended = 0;

  constructor(
    private readonly registry: RunRegistry,
    private readonly gateway: GatewaySettings,
    private readonly ids: IdSource,
    private readonly agent: FakeAgent,
  ) {}

  /** A POST /v1/runs is suspended waiting for body bytes; call the result once they arrived. */
  suspendedInAdmission(): () => void {
    this.#suspended++;
    let done = false;
    return () => {
      if (!done) this.#suspended--;
      done = true;
    };
  }

  /** Steps 11–15 of spec §5.1: durable lookup (replay/409), capacity (429), allocation, reserve, spawn. */
  async submit(sub: Submission): Promise<Result<Admission>> {
    const { registry } = this;
    const now = registry.clock.now();
    const cap = this.gateway.maxConcurrentRuns;
    /** Hermes's count: other requests inside admission, plus runs not finished (§13); or a capacity fault. */
    const full = (others: number) => (cap > 0 && others + registry.live.size >= cap) || (sub.capacityFault?.() ?? false);
    /** A capacity fault with the cap disabled still says what Hermes says by default. */
    const shownCap = cap > 0 ? cap : 10;
    let runId = '';
    let status: PyDict | null = null;
    const allocate = (): PyDict => {
      runId = this.#mintRunId();
      const sessionId = sub.request.sessionId ?? runId;
      const model = sub.request.model ? sub.request.model.value : this.gateway.modelName;
      return (status = newStatus(runId, now, sessionId, model));
    };

    /** Step 14–15 in memory: the run exists from here on (owner stamp, status, buffer, background task). */
    const spawn = (): void => {
      registry.admit(runId, sub.scope, status!);
      registry.openBuffer(runId, now);
      this.agent.spawn(runId, sub.request.userMessage, {
        userMessage: sub.request.userMessage,
        model: status!.get('model')!,
        sessionId: status!.get('session_id')!,
        instructions: sub.request.instructions,
        header: sub.header ?? (() => undefined),
        profile: sub.profile,
        sessionKey: sub.sessionKey ?? null,
      });
    };

    if (sub.idempotencyKey === null) {
      if (full(this.#suspended)) return fail(hermesErrors.capacity(shownCap));
      allocate();
      spawn();
    } else {
      // Lookup, capacity and reserve run together inside the store's transaction; the admissions reserved before
      // this one in the same commit hold capacity although their runs are not spawned yet. The unique keys settle a
      // race with another gateway process on the same store (§12.3).
      const outcome = await registry.store.admit({
        scope: sub.scope,
        key: sub.idempotencyKey,
        now,
        candidate: (reservedBefore) => {
          if (full(this.#suspended + reservedBefore)) return null;
          const dict = allocate();
          return {
            scope: sub.scope,
            idempotency_key: sub.idempotencyKey!,
            fingerprint: sub.fingerprint!,
            run_id: runId,
            status_json: dumpsSorted(dict),
            owner_pid: registry.owner.pid,
            owner_started: registry.owner.started,
            retention_until: 0,
            acknowledged_at: null,
            created_at: now,
            updated_at: now,
          };
        },
        // Right after the commit, before any other request runs: the next request's capacity check sees this run.
        reserved: () => {
          registry.markDurable(runId);
          spawn();
        },
        // A random id stream makes allocation invisible, so the store may reserve before looking the key up; not with
        // a capacity fault armed, which must be asked only after the lookup (a replay never spends it).
        speculative: !this.ids.seeded && !sub.capacityFault,
      });
      if (outcome.kind === 'existing') return this.#replay(sub, outcome.row);
      if (outcome.kind === 'refused') return fail(hermesErrors.capacity(shownCap));
      if (outcome.kind === 'taken') {
        // Lost a race to a request in another gateway process sharing the store: answer as its replay.
        const row = registry.store.lookup(sub.scope, sub.idempotencyKey, now);
        return row ? this.#replay(sub, row) : fail(hermesErrors.idempotencyConflict());
      }
    }
    return ok({ runId, status: 'started', replayed: false });
  }

  /**
   * A chat turn's run: admitted now, owned by no client (GET /v1/runs never shows it, as Hermes's sync chat registers
   * no run status), not counted against the capacity check; its agent starts as any run's does. Returns its id.
   */
  admitChatTurn(turn: ChatTurnRun): string {
    const runId = this.#mintRunId();
    const shown = turn.statusModel === undefined ? turn.model : turn.statusModel;
    this.registry.admit(runId, turn.owner ?? UNOWNED, newStatus(runId, this.registry.clock.now(), turn.sessionId, shown));
    this.agent.spawn(runId, turn.userMessage, {
      ...(turn.statusModel === undefined ? {} : { agentModel: turn.model }),
      userMessage: turn.userMessage,
      model: turn.model,
      sessionId: turn.sessionId,
      instructions: turn.instructions,
      header: turn.header,
      profile: turn.profile,
      sessionKey: turn.sessionKey ?? null,
      ...(turn.streamTurn === undefined ? {} : { streamTurn: turn.streamTurn }),
    });
    return runId;
  }

  /**
   * run_ + uuid4 hex. A seeded id stream repeats after a process restart, so seeded ids skip any id this gateway or
   * its store already knows (random ids cannot collide in practice, and skip the check).
   */
  #mintRunId(): string {
    for (;;) {
      const runId = `run_${this.ids.uuid4Hex()}`;
      if (!this.ids.seeded) return runId;
      if (!this.registry.statuses.has(runId) && !this.registry.store.hasRun(runId)) return runId;
    }
  }

  async #replay(sub: Submission, row: IdempotencyRow): Promise<Result<Admission>> {
    if (!sameFingerprint(row.fingerprint, sub.fingerprint!)) return fail(hermesErrors.idempotencyConflict());
    const dict = this.registry.resolve(sub.scope, row.run_id);
    const status = dict ? statusOf(dict) : 'queued';
    return this.#reveal(row.run_id, ok({ runId: row.run_id, status, replayed: true }));
  }

  /**
   * The answer, once what it shows of the run is committed to the store (the durability barrier): nothing a client
   * is told may be lost by a crash. Synchronous when nothing is waiting; a store that stays locked fails the request.
   */
  #reveal<T>(runId: string, result: Result<T>): Result<T> | Promise<Result<T>> {
    const wait = this.registry.settle(runId);
    return wait ? wait.then(() => result) : result;
  }

  /** GET /v1/runs/{id}: the status dict, or 404. */
  get(scope: string, runId: string): Result<PyDict> | Promise<Result<PyDict>> {
    const dict = this.registry.resolve(scope, runId);
    return dict ? this.#reveal(runId, ok(dict)) : fail(hermesErrors.runNotFound(runId));
  }

  /** POST /v1/runs/{id}/stop (spec §11). */
  stop(scope: string, runId: string): Result<StopOutcome> | Promise<Result<StopOutcome>> {
    const dict = this.registry.resolve(scope, runId);
    if (!dict) return fail(hermesErrors.runNotFound(runId));
    if (isTerminal(statusOf(dict))) return this.#reveal(runId, ok({ kind: 'status', status: dict }));
    const run = this.registry.live.get(runId);
    // Hermes finds neither a task nor an agent: a stream turn registers no task, and its agent only once it runs.
    if (!run || (run.streamTurn && !run.started)) return fail(hermesErrors.runNotActive(runId));
    this.registry.update(runId, 'stop');
    run.stopRequested = true;
    if (run.started) this.agent.interrupt(run);
    return this.#reveal(runId, ok({ kind: 'stopping', runId }));
  }

  /** POST /v1/runs/{id}/approval after the body parsed (spec §9 steps 4–11); returns the response dict. */
  approve(runId: string, body: PyValue): Result<PyDict> | Promise<Result<PyDict>> {
    if (!isDict(body)) throw new UnhandledHermesException('approval body is not a JSON object');
    const rawChoice = body.get('choice') ?? '';
    const lowered = typeof rawChoice === 'string' ? pyStrip(rawChoice).toLowerCase() : '\0not-a-string';
    const choice = CHOICE_ALIASES[lowered] ?? lowered;
    const rawRequestId = body.get('request_id') ?? null;
    const requestId = typeof rawRequestId === 'string' ? pyStrip(rawRequestId) : '';
    if (rawRequestId !== null && (!requestId || pyLen(requestId) > 256)) return fail(hermesErrors.approvalRequestInvalid());
    if (!CHOICES.has(choice)) return fail(hermesErrors.approvalChoiceInvalid());
    const all = coerceRequestBool(body.get('all')) || coerceRequestBool(body.get('resolve_all'));
    const run = this.registry.live.get(runId);
    // _run_approval_sessions: set by POST /v1/runs alone, so a stream turn's run never has one.
    if (!run || run.streamTurn) return fail(hermesErrors.approvalNotActive(runId));
    const resolved = this.agent.resolveApprovals(run, choice, requestId || null, all);
    if (resolved <= 0) return fail(hermesErrors.approvalNotPending(runId));
    this.registry.update(runId, 'approvalResponded');
    const fields: Array<[string, PyValue]> = [['choice', choice]];
    if (requestId) fields.push(['request_id', requestId]);
    fields.push(['resolved', resolved]);
    this.registry.emit(runId, 'approval.responded', fields);
    return this.#reveal(runId, ok(new Map<string, PyValue>([['object', 'hermes.run.approval_response'], ['run_id', runId], ...fields])));
  }

  /** The checks before a steer body is read (spec §10 steps 2–3): the run's agent, and the status the gate saw. */
  steerTarget(scope: string, runId: string): Result<SteerTarget> {
    const dict = this.registry.resolve(scope, runId);
    if (!dict) return fail(hermesErrors.runNotFound(runId));
    const run = this.registry.live.get(runId);
    if (statusOf(dict) !== 'running' || !run || !run.started) return fail(hermesErrors.steerNotAccepting(runId));
    return ok({ run, status: dict });
  }

  /**
   * POST /v1/runs/{id}/steer with a parsed object body (spec §10 steps 5–7). Hermes took the agent before the body and
   * does not look again: the run may have parked, stopped or ended meanwhile, and is steered and set running all the
   * same (decision 0177). Only an emulated crash or a restored checkpoint (its memory replaced) refuses it here.
   */
  steer({ run, status }: SteerTarget, body: PyDict): Result<PyDict> | Promise<Result<PyDict>> {
    if (this.registry.statuses.get(run.runId) !== status) return fail(hermesErrors.steerNotAccepting(run.runId));
    const raw = [body.get('input'), body.get('message'), body.get('text')].find((v) => pyTruthy(v));
    const text = pyStrip(steerText(raw ?? ''));
    if (!text) return fail(hermesErrors.steerMissingText());
    const accepted = this.agent.steer(run, text);
    // An agent.steer() that raises is a 500 steer_failed with the exception text (spec §10 step 6).
    if (typeof accepted === 'object') return fail(hermesErrors.steerFailed(accepted.raised));
    if (!accepted) return fail(hermesErrors.steerNotAccepted(run.runId));
    this.registry.update(run.runId, 'steered');
    this.registry.emit(run.runId, 'run.steered', [['accepted', true]]);
    return this.#reveal(run.runId, ok(new Map<string, PyValue>([['object', 'hermes.run.steer'], ['run_id', run.runId], ['accepted', true]])));
  }

  /**
   * The event buffer a new subscriber attaches to: 404 if invisible, 'gone' if the buffer no longer exists. Hermes's
   * events handler checks ownership only; it never reads (hydrates) the status (decision 0076).
   */
  stream(scope: string, runId: string): Result<EventBuffer | 'gone'> {
    if (!this.registry.visible(scope, runId)) return fail(hermesErrors.runNotFound(runId));
    return ok(this.registry.buffers.get(runId) ?? 'gone');
  }
}

