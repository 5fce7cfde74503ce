// Realistic pools for synthetic transcripts: surfaces with their chat fields, models with billing routes, prompts,
// tool calls with JSON-string arguments and results, reasoning and multimodal content.
import { dumps as pyJson, type PlainJson as PyJson } from '../../shared/python/index.js';
import type { MessageInput, ToolCall, Usage } from '../writer/index.js';
import type { Rng } from './random.js';

export const LOCAL_SOURCES = ['cli', 'cli', 'cli', 'tui', 'tui', 'oneshot', 'desktop', 'acp'] as const;
export const GATEWAY_SOURCES = [
  'telegram', 'discord', 'slack', 'whatsapp', 'signal', 'email', 'matrix', 'sms', 'webhook', 'api_server',
  'mattermost', 'homeassistant',
] as const;

export interface Route {
  model: string; billing_provider: string; billing_base_url: string; billing_mode: string;
  /** USD per million input/output tokens (used to fake an estimate). */
  price: [number, number];
  reasoningStyle: 'details' | 'codex' | 'content' | 'plain';
}

export const ROUTES: Route[] = [
  { model: 'anthropic/claude-sonnet-4.6', billing_provider: 'openrouter', billing_base_url: 'https://openrouter.ai/api/v1', billing_mode: 'provider_models_api', price: [3, 15], reasoningStyle: 'details' },
  { model: 'gpt-5', billing_provider: 'openai-codex', billing_base_url: 'https://chatgpt.com/backend-api/codex', billing_mode: 'official_docs_snapshot', price: [1.25, 10], reasoningStyle: 'codex' },
  { model: 'Hermes-4-405B', billing_provider: 'nous', billing_base_url: 'https://inference-api.nousresearch.com/v1', billing_mode: 'official_docs_snapshot', price: [1, 3], reasoningStyle: 'plain' },
  { model: 'deepseek/deepseek-v3.2', billing_provider: 'openrouter', billing_base_url: 'https://openrouter.ai/api/v1', billing_mode: 'provider_models_api', price: [0.28, 0.42], reasoningStyle: 'content' },
  { model: 'claude-opus-4-1', billing_provider: 'anthropic', billing_base_url: 'https://api.anthropic.com', billing_mode: 'official_docs_snapshot', price: [15, 75], reasoningStyle: 'plain' },
  { model: 'qwen3-coder', billing_provider: 'custom', billing_base_url: 'http://localhost:8080/v1?api_key=sk-local-test', billing_mode: 'unknown', price: [0, 0], reasoningStyle: 'plain' },
];

export const SYSTEM_PROMPTS = [
  'You are Hermes, a helpful agent. Use tools when needed.\n# Synthetic system prompt A',
  'You are Hermes, a helpful agent running in a messaging channel. Keep replies short.\n# Synthetic system prompt B',
  'You are a focused subagent. Complete the delegated goal and report back.\n# Synthetic system prompt C',
];

const TOOLS: { name: string; args: (r: Rng) => PyJson; result: (r: Rng) => PyJson }[] = [
  { name: 'terminal', args: (r) => ({ command: r.pick(['ls -la', 'git status', 'npm test', 'cat README.md', 'rg TODO src']) }), result: (r) => ({ output: `exit ok\n${r.hex(12)}`, exit_code: r.pick([0, 0, 0, 1]) }) },
  { name: 'read_file', args: (r) => ({ path: `src/mod_${r.int(0, 40)}.py` }), result: (r) => ({ content: `def f_${r.int(0, 99)}():\n    return ${r.int(0, 9)}\n`, lines: r.int(2, 400) }) },
  { name: 'write_file', args: (r) => ({ path: `notes/n${r.int(0, 9)}.md`, content: 'draft' }), result: () => ({ ok: true }) },
  { name: 'web_search', args: (r) => ({ query: r.pick(['sqlite wal checkpoint', 'otlp logs schema', 'hermes agent docs']) }), result: (r) => ({ results: [{ title: 'Result', url: `https://example.com/${r.hex(6)}` }] }) },
  { name: 'browser_navigate', args: (r) => ({ url: `https://example.org/p/${r.int(1, 500)}` }), result: () => ({ status: 200, title: 'Example page' }) },
  { name: 'delegate_task', args: (r) => ({ goal: `research lib ${r.int(0, 9)}` }), result: () => ({ status: 'completed', summary: 'done' }) },
];

const ASKS = [
  'Please check item %d in the repo.', 'Can you summarise the failing tests in build %d?', 'Refactor module %d to use async IO.',
  'Why does request %d time out?', 'Draft a reply to ticket #%d.', 'Find every TODO in package %d — and list them “verbatim”.',
];
const ANSWERS = ['Done. Found %d matching lines.', 'Here is the summary: %d issues, all minor.', 'Fixed in %d places; tests pass.', 'The timeout is a retry storm (%d attempts).'];

export const fill = (tpl: string, r: Rng) => tpl.replace('%d', String(r.int(1, 999)));

export function userText(r: Rng): string {
  return fill(r.pick(ASKS), r);
}

/** Multimodal user content stored as `\x00json:` + JSON (spec §3). */
export function multimodalContent(r: Rng): PyJson[] {
  return [
    { type: 'text', text: 'What is in this screenshot?' },
    { type: 'image_url', image_url: { url: `data:image/png;base64,iVBORw0KGgo${r.hex(24)}` } },
  ];
}

export function toolCall(r: Rng, ids: () => string): { call: ToolCall; result: MessageInput } {
  const tool = r.pick(TOOLS);
  const id = `call_${ids().slice(0, 12)}`;
  const call: ToolCall = { id, type: 'function', function: { name: tool.name, arguments: pyJson(tool.args(r)) } };
  const result: MessageInput = { role: 'tool', content: pyJson(tool.result(r)), tool_call_id: id, tool_name: tool.name };
  return { call, result };
}

/** Reasoning fields the way each provider family stores them (spec §5.1). */
export function reasoningFields(route: Route, r: Rng, text: string): Partial<MessageInput> {
  switch (route.reasoningStyle) {
    case 'details':
      return { reasoning: text, reasoning_details: [{ type: 'reasoning.text', text, format: 'anthropic-claude-v1', index: 0 }] };
    case 'codex':
      return { reasoning: text, codex_reasoning_items: [{ type: 'reasoning', id: `rs_${r.hex(16)}`, summary: [{ type: 'summary_text', text }] }] };
    case 'content':
      return { reasoning: text, reasoning_content: text };
    default:
      return { reasoning: text };
  }
}

export function answerText(r: Rng): string {
  return fill(r.pick(ANSWERS), r);
}

/** One call's usage with an estimated cost from the route's price. */
export function callUsage(route: Route, r: Rng): Usage {
  const input = r.int(300, 4000);
  const output = r.int(40, 900);
  const cacheRead = r.chance(0.7) ? r.int(0, 12000) : 0;
  const cacheWrite = r.chance(0.3) ? r.int(0, 2000) : 0;
  const est = Math.round(((input + cacheWrite) * route.price[0] + output * route.price[1] + cacheRead * route.price[0] * 0.1) / 1e6 * 1e8) / 1e8;
  // A local endpoint with no price: Hermes's `_unknown_cost('none')` (agent/usage_pricing.py), whose missing amount its
  // delta SQL adds as 0 (decision 0132).
  const unpriced = route.billing_provider === 'custom';
  return {
    input_tokens: input, output_tokens: output, cache_read_tokens: cacheRead, cache_write_tokens: cacheWrite,
    reasoning_tokens: r.chance(0.5) ? r.int(0, 600) : 0, estimated_cost_usd: unpriced ? 0 : est,
    actual_cost_usd: route.billing_provider === 'nous' ? Math.round(est * 0.97 * 1e8) / 1e8 : null,
    cost_status: unpriced ? 'unknown' : route.billing_provider === 'nous' ? 'actual' : 'estimated',
    cost_source: unpriced ? 'none' : route.billing_provider === 'nous' ? 'provider_cost_api' : 'provider_models_api',
    pricing_version: '2026-06-01', model: route.model, billing_provider: route.billing_provider,
    billing_base_url: route.billing_base_url, billing_mode: route.billing_mode,
  };
}
