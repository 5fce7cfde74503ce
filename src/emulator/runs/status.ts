// The `hermes.run` status object as Hermes keeps it: a Python dict updated in place, so key order is
// first-insertion order (spec runs-api §6.2). Objects re-read from the durable store come back alphabetical.
import { PyFloat, type PyDict, type PyValue } from '../../shared/python/index.js';
import { isTerminal } from './lifecycle.js';

/** The keys whose presence in an update makes Hermes persist it even without a status change (§12.4). */
const PERSISTED_EXTRAS = new Set(['output', 'error', 'usage', 'pending_steer', 'session_id']);

export function newStatus(runId: string, now: number, sessionId: PyValue, model: PyValue): PyDict {
  return new Map<string, PyValue>([
    ['object', 'hermes.run'],
    ['run_id', runId],
    ['status', 'queued'],
    ['updated_at', new PyFloat(now)],
    ['created_at', new PyFloat(now)],
    ['session_id', sessionId],
    ['model', model],
  ]);
}

export const statusOf = (dict: PyDict): string => {
  const s = dict.get('status');
  return typeof s === 'string' ? s : 'queued';
};

/**
 * Hermes's status update: sets status and updated_at in place, appends new extras in the order given, drops
 * `approval` unless parked. Returns whether Hermes would write the change to the durable row.
 */
export function applyUpdate(
  dict: PyDict,
  status: string,
  now: number,
  extras: ReadonlyArray<[string, PyValue]> = [],
  plain = false,
): boolean {
  const previous = dict.get('status');
  dict.set('status', status);
  dict.set('updated_at', new PyFloat(now));
  let persist = previous !== status || isTerminal(status);
  for (const [key, value] of extras) {
    dict.set(key, value);
    if (PERSISTED_EXTRAS.has(key)) persist = true;
  }
  if (plain) return true;
  if (status !== 'waiting_for_approval') dict.delete('approval');
  return persist;
}
