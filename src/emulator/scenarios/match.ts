// Which scenario plays a new run: the first whose every matcher accepts what the run was submitted with.
import { pyLen, pyStr, type PyValue } from '../../shared/python/index.js';
import type { RunInput, Usage } from '../runs/agent.js';
import { steerText } from '../runs/steer-text.js';
import type { Matcher, Scenario } from './schema.js';

/** The user turn as text: a string as is; an input array's content by Hermes's text normalisation (parts joined by \n). */
export function inputText(userMessage: PyValue): string {
  return typeof userMessage === 'string' ? userMessage : steerText(userMessage);
}

const asText = (v: PyValue): string => (typeof v === 'string' ? v : pyStr(v));

function subject(m: Matcher, input: RunInput): string | undefined {
  switch (m.field) {
    case 'input':
      return inputText(input.userMessage);
    case 'model':
      return asText(input.model);
    case 'session_id':
      return asText(input.sessionId);
    case 'instructions':
      return input.instructions === undefined ? undefined : asText(input.instructions);
    case 'header':
      return input.header(m.header!);
  }
}

function accepts(m: Matcher, input: RunInput): boolean {
  const value = subject(m, input);
  if (value === undefined) return false;
  return m.regex ? m.regex.test(value) : value === m.exact;
}

/** The first scenario that matches (in order), or undefined. */
export function firstMatch(scenarios: readonly Scenario[], input: RunInput): Scenario | undefined {
  return scenarios.find((s) => s.matchers.every((m) => accepts(m, input)));
}

/** `"usage": "from_input"`: about four characters a token (Python len, rounded up) of the user turn and the output. */
export function usageFromInput(input: string, output: PyValue): Usage {
  const tokens = (text: string) => Math.ceil(pyLen(text) / 4);
  const input_tokens = tokens(input);
  const output_tokens = output === null ? 0 : tokens(asText(output));
  return { input_tokens, output_tokens, total_tokens: input_tokens + output_tokens };
}
