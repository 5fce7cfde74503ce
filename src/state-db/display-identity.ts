// messages.display_identity: how Hermes fingerprints a message row for display de-duplication.
import * as crypto from 'node:crypto';
import { pyFloatStr, pyStrRepr } from '../shared/python/index.js';

function reprItem(v: string | number | null): string {
  if (v === null) return 'None';
  return typeof v === 'number' ? pyFloatStr(v) : pyStrRepr(v);
}

/**
 * SHA-256 of repr((role, content, timestamp, tool_call_id, tool_calls, tool_name)), verified against the rows of the
 * real v30 fixtures (decision 0011). `timestamp` is a float in Hermes, so it prints as one even when integral.
 */
export function displayIdentity(row: {
  role: string; content: string | null; timestamp: number;
  tool_call_id: string | null; tool_calls: string | null; tool_name: string | null;
}): Buffer {
  const items = [row.role, row.content, row.timestamp, row.tool_call_id, row.tool_calls, row.tool_name];
  return sha256(`(${items.map(reprItem).join(', ')})`);
}

// Node's one-shot hash (20.12 on) costs about half of a Hash object per message; older Node 20s build one.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'buffer') => Buffer }).hash;
const sha256 = oneShot ? (text: string) => oneShot('sha256', text, 'buffer') : (text: string) => crypto.createHash('sha256').update(text, 'utf8').digest();
