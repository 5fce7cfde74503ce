// The scenario format as TypeScript types: what a --scenarios file, the `scenarios` option and POST /__admin/scenarios
// hold (docs/reference/admin-api.md#scenarios). Types only, from the admin client's contract: no server internals.
import type {
  AdminAgentEvent,
  AdminApprovalRequest,
  AdminCompletion,
  AdminFailure,
  AdminFinalAnswer,
  AdminRaise,
  AdminSteerPolicy,
  AdminUsage,
} from '../admin/client.js';

/** A string matches exactly; `{"regex"}` is a JavaScript regular expression searched anywhere (anchor it with ^…$). */
export type ScenarioMatcher = string | { regex: string; flags?: string };

/** Every field given must match (none: every run). The first scenario that matches a run plays it. */
export interface ScenarioMatch {
  /** The user turn's text (an input array's last content: its text parts joined by newlines). */
  input?: ScenarioMatcher;
  /** The run's `model`, as its status shows it (the body's, else the gateway's model name). */
  model?: ScenarioMatcher;
  /** The run's `session_id`, as its status shows it (the body's, else the run id). */
  session_id?: ScenarioMatcher;
  /** The body's `instructions` (a run without them never matches). */
  instructions?: ScenarioMatcher;
  /** Request header name (any case) → value. */
  headers?: Record<string, ScenarioMatcher>;
}

/** `"from_input"`: about 4 characters a token of the user turn (input) and of the output, rounded up. */
export type ScenarioUsage = AdminUsage | 'from_input' | null;

interface StepBase {
  /** Seconds after the agent starts (default: the previous step's); never earlier than the previous step. Time spent
   * waiting for an approval answer does not count. */
  at?: number;
}

/** An approval request; the agent waits for the client's answer (or the timeout, then it is told it was blocked). */
export interface ScenarioApprovalStep extends StepBase {
  approval: AdminApprovalRequest;
  /** Seconds the agent waits (Hermes's approvals.gateway_timeout, default 300). */
  timeout?: number;
  /** Steps played instead of the rest when the answer is once/session/always, deny, or none came in time. */
  on_approve?: ScenarioStep[];
  on_deny?: ScenarioStep[];
  on_timeout?: ScenarioStep[];
}

/** One thing the agent does, at an offset on the namespace's clock. Each kind takes its control route's body. */
export type ScenarioStep =
  | (StepBase & { event: AdminAgentEvent })
  | ScenarioApprovalStep
  | (StepBase & { complete: Omit<AdminFinalAnswer, 'usage'> & { usage?: ScenarioUsage } })
  | (StepBase & { fail: AdminFailure })
  | (StepBase & { raise: AdminRaise })
  | (StepBase & { cancel: AdminCompletion })
  | (StepBase & { steer_policy: AdminSteerPolicy })
  | (StepBase & { stop_policy: { acknowledge: boolean } })
  | (StepBase & { hang: Record<string, never> | true | null });

export interface AdminScenario {
  /** Default `scenario-<n>`, n its position in the namespace's list when it was added. A name already present is
   * replaced in place. */
  name?: string;
  match?: ScenarioMatch;
  /** Seconds between admission and the agent starting, for runs this scenario plays (default: the agent default). */
  start_delay?: number;
  steps: ScenarioStep[];
}

/** Runs nothing matches: left to the control plane (`"manual"`, the default), or played as a scenario. */
export type ScenarioDefault =
  | 'manual'
  | { complete_after: number; output?: string | null; usage?: ScenarioUsage }
  | { start_delay?: number; steps: ScenarioStep[] };

export interface AdminScenarioDocument {
  scenarios?: AdminScenario[];
  default?: ScenarioDefault;
}

/** GET /__admin/scenarios (and the answer of POST and DELETE): the namespace's scenarios, in matching order. */
export interface AdminScenarioList {
  default: ScenarioDefault;
  scenarios: Array<AdminScenario & { name: string; /** Runs it has played since it was added. */ matched: number }>;
}

/** DELETE /__admin/scenarios: one by name, or (no name) every scenario and the default back to manual. */
export interface AdminScenarioRemoval {
  name?: string;
}
