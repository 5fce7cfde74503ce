// A small world for remote-sink tests: a Hermes store written by the Hermes-like writer (a full session with tool
// calls, usage and a secret, and a background delegation whose goal and summary hold it too; a second full one; a
// local-only one under a .hypignore, with a delegation of its own; a repaired value, a row issue, in each of the first
// and the local-only session and in both delegations), a forwarder over it, the dataset
// opened for shipping, and the rows a sink should hold (the dataset's shipped rows, local-only sessions left out,
// redacted for sinks that leave the machine), in a canonical form two destinations can be compared in.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createIdSource } from '../../../../shared/ids.js';
import type { Db } from '../../../../shared/sqlite.js';
import { createStore } from '../../../../state-db/schema/create.js';
import { tempDir } from '../../../../state-db/testing/fixtures.js';
import { StateDbWriter, type MessageInput } from '../../../../state-db/writer/index.js';
import type { DatasetTable, RecordOf } from '../../../dataset/columns.js';
import { createForwarder, type Forwarder } from '../../../pipeline/forwarder.js';
import { openDataset } from '../../sqlite/dataset.js';
import { SHIPPED } from '../changelog.js';
import type { Origin, RemoteSink } from '../contract.js';
import { machineOrigin } from '../origin.js';
import { redactRow } from '../redact-row.js';
import { createRemoteSink } from '../registry.js';
import { Shipper, type ShipperOptions, type ShipResult } from '../shipper.js';
import { createDirs } from '../../../../shared/dirs.js';

export const T0 = 1784000000;
export const SECRET = 'sk-proj-Abcdefghijklmnopqrstuvwxyz0123456789';

export interface World {
  dir: string;
  home: string;
  stateDb: string;
  hermes: Db;
  w: StateDbWriter;
  forwarder: Forwarder;
  /** The dataset (its own read-write connection, as the shipper has). */
  dataset: Db;
  origin: Origin;
  sessions: { main: string; second: string; private: string };
  /** The async delegations: the main session's (finished, delivery pending) and the local-only session's (running). */
  delegations: { main: string; private: string };
  /** A forward pass over the store (asserts it read without error). */
  tick(): void;
  /** One shipper over sinks made from these URLs; closed by `cleanup`. */
  shipper(urls: readonly string[], options?: Partial<ShipperOptions>): Promise<Shipper>;
  /** One pass for these URLs with a fresh shipper, closed after. */
  ship(url: string, options?: Partial<ShipperOptions>): Promise<ShipResult>;
  cleanup(): Promise<void>;
}

const turn = (i: number, extra = ''): MessageInput[] => [
  { role: 'user', content: `question ${i}${extra}` },
  { role: 'assistant', content: `answer ${i}`, finish_reason: 'stop' },
];

/** The world, with its first forward pass done (nothing shipped yet). */
export function createWorld(prefix = 'hermetic-remote-'): World {
  const { dir, cleanup } = tempDir(prefix);
  const stateDb = join(dir, 'hermes', 'state.db');
  const hermes = createStore({ path: stateDb, level: 31, journal: 'wal', fts: false, generation: 'gen-a' });
  const clock = { t: T0 };
  const w = new StateDbWriter(hermes, { now: () => (clock.t += 1), ids: createIdSource('remote-world') });
  const privateDir = join(dir, 'private');
  createDirs(join(privateDir, 'p'));
  writeFileSync(join(privateDir, '.hypignore'), 'local-only\n');
  const main = w.createSession({ source: 'cli', model: 'gpt-5', started_at: T0, cwd: join(dir, 'work') });
  w.appendMessages(main, [
    { role: 'user', content: `my key is OPENAI_API_KEY=${SECRET}, list the files` },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'terminal', arguments: JSON.stringify({ command: 'ls', token: SECRET }) } }], finish_reason: 'tool_calls' },
    { role: 'tool', content: 'a.py\nb.py', tool_call_id: 'call_1' },
    ...turn(1),
  ]);
  w.updateTokenCounts(main, { input_tokens: 120, output_tokens: 30, model: 'gpt-5', billing_provider: 'openai', billing_base_url: 'https://api.openai.com/v1' } as never);
  const second = w.createSession({ source: 'cli', model: 'gpt-5', started_at: T0 + 50, cwd: join(dir, 'work') });
  for (let i = 0; i < 6; i++) w.appendMessages(second, turn(i));
  w.endSession(second, 'user_exit');
  const priv = w.createSession({ source: 'cli', model: 'gpt-5', started_at: T0 + 90, cwd: join(privateDir, 'p') });
  w.appendMessages(priv, turn(0, ' (private)'));
  const delegated = w.dispatchDelegation({ parent_session_id: main, goals: [`deploy with GITHUB_TOKEN=${SECRET}`], context: 'the release branch' });
  w.completeDelegation(delegated, { summary: `deployed; the job used OPENAI_API_KEY=${SECRET}`, api_calls: 4 });
  const privately = w.dispatchDelegation({ parent_session_id: priv, goals: ['tidy the private notes (private)'] });
  // Values the forwarder repairs, each a row issue (decision 0092): a message time that is no time (its problem quotes
  // it, secret and all) in the main session and in the local-only one, and a delegation's, in each delegation.
  const firstMessage = 'UPDATE messages SET timestamp = ? WHERE id = (SELECT MIN(id) FROM messages WHERE session_id = ?)';
  hermes.prepare(firstMessage).run(`OPENAI_API_KEY=${SECRET}`, main);
  hermes.prepare(firstMessage).run('noon (private)', priv);
  hermes.prepare("UPDATE async_delegations SET updated_at = 'later' WHERE delegation_id IN (?, ?)").run(delegated, privately);
  const home = join(dir, 'hermetic-home');
  // Each pass 10 s after the last: the usage policy's 5-second cache sees a .hypignore written between passes.
  const passes = { ms: 1_800_000_000_000 };
  const forwarder = createForwarder({ userHome: dir, hermesHome: undefined, home, stateDbs: [stateDb], now: () => passes.ms, readWorker: 'off' });
  const tick = () => {
    passes.ms += 10_000;
    const results = forwarder.forwardOnce();
    for (const r of results) if (r.error) throw new Error(`the forward pass failed: ${r.error.message}`);
  };
  tick();
  const dataset = openDataset(home);
  const origin = machineOrigin(home, { ids: createIdSource('remote-origin'), hostname: 'test-host' });
  const shippers: Shipper[] = [];
  const shipper = async (urls: readonly string[], options: Partial<ShipperOptions> = {}) => {
    const sinks: RemoteSink[] = [];
    for (const url of urls) sinks.push(await createRemoteSink(url, { home, cwd: dir }));
    const s = new Shipper({ db: dataset, sinks, origin, now: () => 1_800_000_000_000, random: () => 0.5, ...options });
    shippers.push(s);
    return s;
  };
  return {
    dir, home, stateDb, hermes, w, forwarder, dataset, origin, sessions: { main, second, private: priv }, delegations: { main: delegated, private: privately }, tick, shipper,
    ship: async (url, options) => {
      const s = await shipper([url], options);
      try {
        return (await s.shipAll())[0]!;
      } finally {
        await s.close();
      }
    },
    cleanup: async () => {
      for (const s of shippers) await s.close();
      forwarder.close();
      if (dataset.open) dataset.close();
      if (hermes.open) hermes.close();
      cleanup();
    },
  };
}

/** A value as a number, text or canonical JSON (object keys sorted), whatever driver returned it. */
export function canonical(type: DatasetTable['columns'][number]['type'], v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (type === 'INTEGER' || type === 'REAL') return typeof v === 'bigint' ? Number(v) : Number(v);
  if (type === 'JSON') {
    const value = typeof v === 'string' ? (JSON.parse(v) as unknown) : v;
    const sort = (x: unknown): unknown => (Array.isArray(x) ? x.map(sort) : x && typeof x === 'object' ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, sort((x as RecordOf)[k])])) : x);
    return JSON.stringify(sort(value));
  }
  return String(v);
}

/** Rows of a table in canonical form (the dataset's columns only), sorted by key. */
export function canonicalRows(t: DatasetTable, rows: readonly RecordOf[]): RecordOf[] {
  const out = rows.map((r) => Object.fromEntries(t.columns.map((c) => [c.name, canonical(c.type, r[c.name])])));
  const keyOf = (r: RecordOf) => JSON.stringify(t.primaryKey.map((c) => r[c]));
  return out.sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
}

/** What a sink should hold now: each shipped table's rows of sessions whose policy is `full`, redacted when asked. */
export function expectedRows(dataset: Db, redact: boolean): Record<string, RecordOf[]> {
  const out: Record<string, RecordOf[]> = {};
  for (const t of SHIPPED) {
    // A row with a policy of its own (a delegation) leaves by it; a delegation's row issue by its delegation's; the
    // others by their session's.
    const own = t.columns.some((c) => c.name === 'policy');
    const sessionPolicy = `(SELECT s.policy FROM sessions s WHERE s.store = t.store AND s.session_id = t.session_id)`;
    const machineWide = !own && !t.columns.some((c) => c.name === 'session_id');
    const policy = own ? 't.policy' : machineWide ? "'full'" : t.name !== 'row_issues' ? sessionPolicy
      : `CASE WHEN substr(t.field, 1, 18) = 'async_delegations.' THEN (SELECT d.policy FROM delegations d WHERE d.store = t.store AND d.delegation_id = t.session_id) ELSE ${sessionPolicy} END`;
    const rows = dataset.prepare(`SELECT t.* FROM "${t.name}" t WHERE ${policy} = 'full'`).all() as RecordOf[];
    out[t.name] = canonicalRows(t, redact ? rows.map((r) => redactRow(t, r)) : rows);
  }
  return out;
}

/** What a destination holds, in the same canonical form. */
export function heldRows(held: Readonly<Record<string, readonly RecordOf[]>>): Record<string, RecordOf[]> {
  return Object.fromEntries(SHIPPED.map((t) => [t.name, canonicalRows(t, held[t.name] ?? [])]));
}
