// Provider normalization (spec forwarding §2.6, widened by §6.1 item 10): a known API host names its provider,
// local servers are `local`, another host is itself; else the billing provider unless it is a bucket (`auto`,
// `custom`); else `unknown`. Never `hermes`, and never the raw base URL (it may carry secrets in its query).

const HOSTS: Record<string, string> = {
  'api.openai.com': 'openai',
  'openrouter.ai': 'openrouter',
  'api.anthropic.com': 'anthropic',
  'generativelanguage.googleapis.com': 'google',
  'inference-api.nousresearch.com': 'nous',
  'portal.nousresearch.com': 'nous',
  'chatgpt.com': 'openai-codex',
  'api.deepseek.com': 'deepseek',
  'api.x.ai': 'xai',
  'api.z.ai': 'zai',
  'open.bigmodel.cn': 'zai',
  'api.moonshot.ai': 'moonshot',
  'api.moonshot.cn': 'moonshot',
  'api.mistral.ai': 'mistral',
  'api.groq.com': 'groq',
  'api.together.xyz': 'together',
  'api.fireworks.ai': 'fireworks',
};
const LOCAL = new Set(['localhost', '127.0.0.1', '::1', '[::1]', '0.0.0.0']);
// Buckets, not providers; and a provider is never `hermes` (spec forwarding §2.6): Hermes routes, it does not serve.
const BUCKETS = new Set(['auto', 'custom', 'hermes', '']);

/** The host of a base URL, or null when it does not parse. */
export function hostOf(baseUrl: unknown): string | null {
  if (typeof baseUrl !== 'string' || baseUrl === '') return null;
  try {
    const host = new URL(baseUrl).hostname.toLowerCase();
    return host || null;
  } catch {
    return null;
  }
}

/**
 * @example normalizeProvider('https://openrouter.ai/api/v1', 'openrouter') // 'openrouter'
 * @example normalizeProvider('http://127.0.0.1:8080/v1', 'custom') // 'local'
 */
export function normalizeProvider(baseUrl: unknown, billingProvider: unknown, configProvider?: unknown): string {
  const host = hostOf(baseUrl);
  if (host) {
    if (HOSTS[host]) return HOSTS[host];
    if (LOCAL.has(host) || host.endsWith('.local') || host.endsWith('.localhost')) return 'local';
    if (host.endsWith('.openai.azure.com')) return 'azure';
    return host;
  }
  for (const p of [billingProvider, configProvider]) {
    if (typeof p === 'string' && !BUCKETS.has(p.trim().toLowerCase())) return p.trim();
  }
  return 'unknown';
}
