// Small steps the conformance suites share: submit a run, read its status, check the security headers.
import assert from 'node:assert/strict';
import type { Harness, Reply } from './harness.js';

export const SECURITY = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'x-xss-protection': '0',
  'referrer-policy': 'no-referrer',
};

export function assertSecurityHeaders(reply: Reply): void {
  for (const [k, v] of Object.entries(SECURITY)) assert.equal(reply.headers[k], v, `header ${k}`);
}

export function assertNoSecurityHeaders(reply: { headers: Record<string, string> }): void {
  for (const k of Object.keys(SECURITY)) assert.equal(reply.headers[k], undefined, `header ${k} should be absent`);
}

export function assertJson(reply: Reply, status: number, body: string): void {
  assert.equal(reply.text, body);
  assert.equal(reply.status, status);
  assert.equal(reply.headers['content-type'], 'application/json; charset=utf-8');
  assert.equal(reply.headers['content-length'], String(Buffer.byteLength(body)));
}

export async function submit(h: Harness, body = '{"input":"hello"}', headers: Record<string, string> = {}): Promise<string> {
  const reply = await h.request('POST', '/v1/runs', { body, headers });
  assert.equal(reply.status, 202, reply.text);
  return reply.json().run_id;
}

export async function status(h: Harness, runId: string): Promise<Reply> {
  return h.request('GET', `/v1/runs/${runId}`);
}

/** The status object a run has right after it starts, at the frozen test time. */
export const runningBody = (runId: string, extra = '', sessionId = `"${runId}"`, model = '"hermes-agent"') =>
  `{"object": "hermes.run", "run_id": "${runId}", "status": "running", "updated_at": 1789169800.0, "created_at": 1789169800.0, "session_id": ${sessionId}, "model": ${model}${extra}}`;

export const USAGE_250 = '{"input_tokens": 50, "output_tokens": 200, "total_tokens": 250}';
