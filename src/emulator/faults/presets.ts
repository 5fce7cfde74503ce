// Named Hermes faults: the failures a Hermes client meets in the field, as rule templates. Each is one-shot unless the
// caller overrides `times`; any other field may be overridden too (a preset fixes only its action).
import type { FaultPresetName, FaultRuleInput } from './types.js';

export interface FaultPreset {
  readonly name: FaultPresetName;
  readonly description: string;
  readonly rule: Readonly<FaultRuleInput>;
}

export const FAULT_PRESETS: readonly FaultPreset[] = [
  {
    name: 'hermes_submit_accepted_drop',
    description:
      'POST /v1/runs is handled (the run is admitted and, with an Idempotency-Key, reserved), then the connection ' +
      'drops before the 202 reaches the client. A retry with the same key replays the run; spent only by a 2xx.',
    rule: { operation: 'submit', action: 'admit_then_drop', times: 1 },
  },
  {
    name: 'hermes_submit_drop',
    description: 'POST /v1/runs: the connection drops before Hermes sees the request; no run exists, a retry admits one.',
    rule: { operation: 'submit', action: 'drop', times: 1 },
  },
  {
    name: 'hermes_throttled',
    description:
      "Hermes's capacity check refuses the next new run: 429 rate_limit_exceeded \"Too many concurrent runs (max N)\" " +
      'with Retry-After: 1, at its place in admission (a replay of an Idempotency-Key, or a 400, is answered as ' +
      'before and leaves the rule armed).',
    rule: { operation: 'submit', action: 'throttle', times: 1 },
  },
  {
    name: 'hermes_draining',
    description:
      "Hermes's draining check refuses the next submit: 503 gateway_draining with Retry-After: 1, right after auth, " +
      'replays included (as Hermes orders it).',
    rule: { operation: 'submit', action: 'drain', times: 1 },
  },
  {
    name: 'hermes_slow_poll',
    description:
      "GET /v1/runs/{id} waits 1 second of the namespace's clock before it is answered (a frozen clock: until it is " +
      'moved), so a client\'s poll timeout can be tested; override seconds, clock ("wall") or times.',
    rule: { operation: 'get', action: 'delay', seconds: 1, clock: 'virtual', when: 'before', times: 1 },
  },
  {
    name: 'hermes_poll_timeout',
    description: "Mockingbird's name for hermes_slow_poll (the same rule).",
    rule: { operation: 'get', action: 'delay', seconds: 1, clock: 'virtual', when: 'before', times: 1 },
  },
  {
    name: 'hermes_events_drop',
    description:
      'GET /v1/runs/{id}/events: the connection drops after the first event. Hermes then deletes the run\'s buffer (its ' +
      'subscriber left), so a reconnect is 404 while polling still works.',
    rule: { operation: 'events', action: 'sse_drop', after_events: 1, times: 1 },
  },
  {
    name: 'hermes_events_stall',
    description:
      'GET /v1/runs/{id}/events: the 200 head is sent, then nothing more (no events, no keep-alives, no end) while the ' +
      'connection stays open, so a client\'s read timeout can be tested.',
    rule: { operation: 'events', action: 'sse_stall', after_events: 0, times: 1 },
  },
  {
    name: 'hermes_server_error',
    description: "POST /v1/runs answers aiohttp's 500 page (as when a Hermes handler raises: HTML when Accept names text/html, and the connection closes) without reaching Hermes.",
    rule: { operation: 'submit', action: 'server_error', times: 1 },
  },
];

export const PRESET_NAMES: readonly string[] = FAULT_PRESETS.map((p) => p.name);

export function findPreset(name: string): FaultPreset | undefined {
  return FAULT_PRESETS.find((p) => p.name === name);
}
