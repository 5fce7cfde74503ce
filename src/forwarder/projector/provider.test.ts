// Provider normalization (spec forwarding §2.6 and §6.1 item 10; checklist §5.2 #27): known hosts, local servers,
// other hosts by name, then the billing provider unless it is a bucket, then `unknown`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostOf, normalizeProvider } from './provider.js';

test('a known API host names its provider, whatever the billing provider says (§5.2 #27)', () => {
  const table: [string, string][] = [
    ['https://api.openai.com/v1', 'openai'],
    ['https://openrouter.ai/api/v1', 'openrouter'],
    ['https://api.anthropic.com', 'anthropic'],
    ['https://generativelanguage.googleapis.com/v1beta/openai', 'google'],
    ['https://inference-api.nousresearch.com/v1', 'nous'],
    ['https://portal.nousresearch.com/api', 'nous'],
    ['https://chatgpt.com/backend-api/codex', 'openai-codex'],
    ['https://api.deepseek.com/v1', 'deepseek'],
    ['https://api.x.ai/v1', 'xai'],
    ['https://api.z.ai/api/paas/v4', 'zai'],
    ['https://open.bigmodel.cn/api/paas/v4', 'zai'],
    ['https://api.moonshot.ai/v1', 'moonshot'],
    ['https://api.moonshot.cn/v1', 'moonshot'],
    ['https://api.mistral.ai/v1', 'mistral'],
    ['https://api.groq.com/openai/v1', 'groq'],
    ['https://api.together.xyz/v1', 'together'],
    ['https://api.fireworks.ai/inference/v1', 'fireworks'],
    ['https://API.OpenAI.com/v1', 'openai'],
  ];
  for (const [url, provider] of table) assert.equal(normalizeProvider(url, 'custom'), provider, url);
});

test('local servers are `local`: localhost, loopback, 0.0.0.0, .local and .localhost names', () => {
  for (const url of ['http://localhost:8080/v1?api_key=sk-local-test', 'http://127.0.0.1:11434/v1', 'http://[::1]:8000/v1', 'http://0.0.0.0:1234', 'http://gpu-box.local:8000/v1', 'http://vllm.localhost/v1']) {
    assert.equal(normalizeProvider(url, 'custom'), 'local', url);
  }
});

test('an Azure OpenAI resource is `azure`; any other host is the host name itself', () => {
  assert.equal(normalizeProvider('https://myco.openai.azure.com/openai', 'custom'), 'azure');
  assert.equal(normalizeProvider('https://llm.internal.example.com:8443/v1', 'custom'), 'llm.internal.example.com');
});

test('without a usable base URL the billing provider is used, unless it is auto or custom (not providers)', () => {
  assert.equal(normalizeProvider(null, 'nous'), 'nous');
  assert.equal(normalizeProvider('', ' openrouter '), 'openrouter');
  assert.equal(normalizeProvider('not a url', 'anthropic'), 'anthropic');
  assert.equal(normalizeProvider(null, 'auto'), 'unknown');
  assert.equal(normalizeProvider(null, 'custom'), 'unknown');
  assert.equal(normalizeProvider(null, 'CUSTOM'), 'unknown');
  assert.equal(normalizeProvider(null, ''), 'unknown');
});

test('a bucket billing provider falls back to the provider in model_config, then `unknown`', () => {
  assert.equal(normalizeProvider(null, 'auto', 'deepseek'), 'deepseek');
  assert.equal(normalizeProvider(null, 'custom', 'auto'), 'unknown');
  assert.equal(normalizeProvider(null, null, null), 'unknown');
  assert.equal(normalizeProvider(undefined, undefined), 'unknown');
});

test('hostOf gives the lower-case host only, never the URL (which may carry secrets), or null', () => {
  assert.equal(hostOf('https://user:pw@OpenRouter.ai/api/v1?key=sk-secret'), 'openrouter.ai');
  assert.equal(hostOf('http://localhost:8080/v1?api_key=sk-local-test'), 'localhost');
  assert.equal(hostOf('openrouter.ai/api'), null);
  assert.equal(hostOf(''), null);
  assert.equal(hostOf(null), null);
  assert.equal(hostOf(42), null);
});

test('hermes is never a provider: a route billed as "hermes" with no known host is unknown (spec forwarding §2.6)', () => {
  assert.equal(normalizeProvider(null, 'hermes'), 'unknown');
  assert.equal(normalizeProvider(null, 'hermes', 'openrouter'), 'openrouter');
});
