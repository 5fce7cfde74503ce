// `hermetic serve`'s console line per answered request (unless --quiet): what, how it ended, how long, where.
// Built from the same metadata the journal keeps (journal/traffic.ts), so it never shows bodies, queries or headers.
import type { RequestRecord } from '../journal/traffic.js';

/**
 * @example requestLine({ namespace: 'default', method: 'GET', path: '/v1/runs/run_1', status: 200, durationMs: 0.42,
 *   operation: 'get', runId: 'run_1', replayed: null, faultId: null })
 *   // 'GET /v1/runs/run_1 200 0.4ms ns=default op=get'
 */
export function requestLine(r: RequestRecord): string {
  const status = r.status === 0 ? 'dropped' : String(r.status);
  const ms = r.durationMs < 10 ? r.durationMs.toFixed(1) : Math.round(r.durationMs).toString();
  let line = `${r.method} ${r.path} ${status} ${ms}ms ns=${r.namespace} op=${r.operation}`;
  // The run a submit was answered with (other routes name it in the path already).
  if (r.operation === 'submit' && r.runId) line += ` run=${r.runId}`;
  if (r.replayed) line += ' replayed';
  if (r.faultId) line += ` fault=${r.faultId}`;
  return line;
}
