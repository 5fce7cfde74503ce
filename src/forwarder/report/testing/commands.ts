// The store `--by command`'s tests read (decisions 0149, 0152): three sessions whose terminal calls take every shape —
// assignments, `cd DIR &&`, sudo, pipes, a quoted program, an empty command, one that is not text, arguments that are
// no JSON object, a result without its call, an id used twice, a failure of another tool — written by the Hermes-like
// writer and backfilled into a dataset. The dataset's own tests and the fleet store's read the same one.
import { join } from 'node:path';
import type { ToolCall } from '../../../state-db/writer/types.js';
import { forwarderRig, hermesStore } from '../../testing/index.js';

export const T0 = Date.UTC(2026, 5, 10, 9) / 1000; // Wednesday 2026-06-10 09:00 UTC
export const T1 = T0 + 86400 + 3600; // Thursday 10:00
export const T2 = T1 + 7200; // Thursday 12:00
export const NOW = T0 + 5 * 86400;

export interface CommandsStore {
  /** The Hermetic home the store was backfilled into (its dataset is `hermetic.db` there). */
  home: string;
  dataset: string;
  /** The three sessions: A (CLI, Wednesday, every shape), B (Telegram, Thursday), C (one call id used twice). */
  ids: Record<'a' | 'b' | 'c', string>;
  cleanup: () => void;
}

const call = (id: string, args: string | object, name = 'terminal'): ToolCall => ({ id, type: 'function', function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) } });
const result = (id: string, at: number, body: object, name = 'terminal') => ({ role: 'tool', tool_call_id: id, tool_name: name, content: JSON.stringify(body), timestamp: at });
const ok = { output: 'done', exit_code: 0, error: null };

/** Writes the store and backfills it (in the ledger's zone UTC). */
export function commandsStore(): CommandsStore {
  const ids: CommandsStore['ids'] = { a: '', b: '', c: '' };
  let clock = T0;
  const store = hermesStore('hermetic-commands-', 'commands', () => clock);
  const { w, path, dir } = store;
  const usage = (id: string) => w.updateTokenCounts(id, { input_tokens: 1000, output_tokens: 100, estimated_cost_usd: 0.01, model: 'gpt-5' });
  // A: a CLI session on Wednesday, every shape of command in its 09:00 hour, one more call at 10:00.
  ids.a = w.createSession({ source: 'cli', model: 'gpt-5', started_at: T0 });
  w.appendMessages(ids.a, [
    { role: 'user', content: 'build it', timestamp: T0 },
    { role: 'assistant', content: '', timestamp: T0 + 10, tool_calls: [call('a1', { command: 'cd web && FOO=1 sudo -u app npm test' }), call('a2', { command: 'git status | head -5' }), call('a3', { command: '"my tool" --x', workdir: '/tmp' })] },
    result('a2', T0 + 10.5, ok),
    result('a1', T0 + 12.5, { output: '1 failing', exit_code: 1, error: null }),
    result('a3', T0 + 13, { output: '', exit_code: 0, error: 'boom' }),
    { role: 'assistant', content: '', timestamp: T0 + 20, tool_calls: [call('a4', { command: '' }), call('a5', { command: 42 }), call('a6', '["ls"]'), call('a7', 'ls -la'), call('a8', { cmd: 'ls' }), call('a9', { command: 'env -i PATH=/bin python3 x.py', background: true }), call('r1', { path: 'x' }, 'read_file')] },
    result('a4', T0 + 21, ok),
    result('a5', T0 + 22, { output: '', exit_code: -1, error: 'Failed to execute command', status: 'error' }),
    result('a6', T0 + 23, ok),
    result('a7', T0 + 24, ok),
    result('a8', T0 + 25, { success: false }),
    result('r1', T0 + 26, { error: 'no such file' }, 'read_file'),
    // A failed result whose call is not in the store.
    result('ghost', T0 + 30, { output: '', exit_code: 2, error: null }),
    { role: 'assistant', content: '', timestamp: T0 + 3605, tool_calls: [call('b1', { command: 'git log --oneline' })] },
    result('b1', T0 + 3606.25, ok),
    { role: 'assistant', content: 'done', timestamp: T0 + 3610, finish_reason: 'stop' },
  ]);
  usage(ids.a);
  // B: a Telegram session on Thursday.
  clock = T1;
  ids.b = w.createSession({ source: 'telegram', model: 'gpt-5', started_at: T1 });
  w.appendMessages(ids.b, [
    { role: 'user', content: 'deploy', timestamp: T1 },
    { role: 'assistant', content: '', timestamp: T1 + 1, tool_calls: [call('b2', { command: 'timeout 60 npm run build' })] },
    result('b2', T1 + 41, { output: 'error TS2322', exit_code: 2, error: null }),
    { role: 'assistant', content: '', timestamp: T1 + 42, tool_calls: [call('b3', { command: 'cd /srv && git pull' })] },
    result('b3', T1 + 44, ok),
  ]);
  usage(ids.b);
  // C: one call id used twice (as Hermes's own fixtures hold): two calls, timed once, from the first call to the first result.
  clock = T2;
  ids.c = w.createSession({ source: 'cli', model: 'gpt-5', started_at: T2 });
  w.appendMessages(ids.c, [
    { role: 'user', content: 'make', timestamp: T2 },
    { role: 'assistant', content: '', timestamp: T2 + 1, tool_calls: [call('dup', { command: 'make' })] },
    result('dup', T2 + 2, ok),
    { role: 'assistant', content: '', timestamp: T2 + 10, tool_calls: [call('dup', { command: 'make' })] },
    result('dup', T2 + 15, { output: '', exit_code: 1, error: null }),
  ]);
  usage(ids.c);
  store.db.close();
  const rig = forwarderRig([path], { dir, timeZone: 'UTC' });
  rig.forwarder.backfill();
  rig.forwarder.close();
  return { home: rig.home, dataset: join(rig.home, 'hermetic.db'), ids, cleanup: store.cleanup };
}
