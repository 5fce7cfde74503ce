// messages.display_identity: how Hermes fingerprints a message row for display de-duplication.
import { createHash } from 'node:crypto';
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
  return createHash('sha256').update(`(${items.map(reprItem).join(', ')})`, 'utf8').digest();
}
