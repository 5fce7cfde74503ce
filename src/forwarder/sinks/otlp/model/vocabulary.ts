// The words the OTLP sink speaks (decision 0039): the GenAI semantic conventions' names where they exist, `hermes.*`
// for Hermes's own facts and `hermetic.*` for ours; Hermes's provider names mapped onto GenAI's well-known values.

export type AttrValue = string | number | boolean | string[];

/** `gen_ai.agent.name` and the `invoke_agent` span name. */
export const AGENT_NAME = 'hermes';

/** `service.name` of the resource every span and point is sent under. */
export const SERVICE_NAME = 'hermes-agent';

/** The instrumentation scope: who produced the telemetry (Hermetic's forwarder, from Hermes's store). */
export const SCOPE = { name: 'hermetic.forwarder.otlp', version: '1' } as const;

// Hermes's normalized providers (projector/provider.ts) that GenAI names otherwise; the rest keep their own name,
// which the conventions allow ("a custom value" for a provider they do not list).
const WELL_KNOWN: Record<string, string> = {
  openai: 'openai',
  anthropic: 'anthropic',
  google: 'gcp.gemini',
  deepseek: 'deepseek',
  xai: 'x_ai',
  mistral: 'mistral_ai',
  groq: 'groq',
  azure: 'azure.ai.openai',
  perplexity: 'perplexity',
  cohere: 'cohere',
};

/** @example providerName('xai') // 'x_ai' */
export function providerName(hermesProvider: string): string {
  return WELL_KNOWN[hermesProvider] ?? hermesProvider;
}
