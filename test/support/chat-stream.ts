// A session chat stream as the tests read it (decision 0145): its frames parsed, and a stream opened up to the frame
// that says the agent has started.
import assert from 'node:assert/strict';
import type { Harness, Stream } from './harness.js';

export interface Frame {
  event: string;
  data: any;
}

/** The stream's frames: `event:` and `data:` lines, each frame ended by a blank line. */
export function frames(text: string): Frame[] {
  return text
    .split('\n\n')
    .filter((f) => f !== '')
    .map((f) => {
      const [head, data] = f.split('\n');
      return { event: head!.slice('event: '.length), data: JSON.parse(data!.slice('data: '.length)) };
    });
}

/** Opens a stream on session `id` and waits for message.started: the agent has started. */
export async function openChatStream(
  h: Harness,
  id: string,
  body: string,
  headers: Record<string, string> = {},
  prefix = '',
): Promise<{ stream: Stream; runId: string; messageId: string }> {
  const stream = await h.events(`${prefix}/api/sessions/${id}/chat/stream`, { method: 'POST', body, headers });
  assert.equal(stream.status, 200, stream.body);
  await stream.until((t) => t.includes('event: message.started'));
  const [started, message] = frames(stream.text());
  return { stream, runId: started!.data.run_id, messageId: message!.data.message.id };
}
