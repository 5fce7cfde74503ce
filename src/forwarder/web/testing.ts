// A dashboard over a dataset for tests and the screenshot script: Hermes stores (generated, or the repository's
// fixtures, and any a test writes itself) backfilled into a temporary home, `hermetic web`'s server on a free loopback
// port, `now` fixed. `attributesStore` writes one session with Hermes's other fields set (decision 0050);
// `uncostSessions` leaves some sessions with no cost recorded (decision 0090).
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { createIdSource } from '../../shared/ids.js';
import { createStore } from '../../state-db/schema/create.js';
import { LATEST_LEVEL } from '../../state-db/schema/index.js';
import { copyFixture, tempDir } from '../../state-db/testing/fixtures.js';
import { generatedStore } from '../../state-db/testing/generated.js';
import { StateDbWriter } from '../../state-db/writer/index.js';
import { forwarderRig, type Rig } from '../testing/index.js';
import { sqliteSource } from './data/sqlite.js';
import { startWebServer } from './server.js';

/** Wednesday 2026-07-15 10:30 UTC: the generated month of history ends here. */
export const DASHBOARD_NOW = Date.UTC(2026, 6, 15, 10, 30) / 1000;

export interface DashboardRig {
  url: string;
  home: string;
  /** The dataset, read-only, for computing what the page must show. */
  db: Database.Database;
  now: number;
  /** The Hermes stores the dataset was read from (a test may write more into one, then `forwardOnce`). */
  stores: string[];
  /** One forward pass over the stores into the same dataset, as a running `hermetic forward` makes (decision 0119). */
  forwardOnce(): void;
  close(): Promise<void>;
}

export interface DashboardRigOptions {
  /** Generated history (the default: 150 sessions over 30 days ending at `now`), or the named repository fixtures. */
  fixtures?: readonly string[];
  sessions?: number;
  messages?: number;
  now?: number;
  timeZone?: string;
  /** Stores a test writes itself (into `dir`), read besides the generated history or the fixtures. */
  extraStores?: (dir: string) => string[];
  /** Called with the home once the dataset is built, before the server opens it (to edit the dataset itself). */
  prepare?: (home: string) => void;
  /** How often the page asks whether the data changed (the server's `refreshMs`; default its own). */
  refreshMs?: number | null;
}

/** The session `attributesStore` writes: flags, title source, chat, handoff, compression health and tools set. */
export const ATTRIBUTES_SESSION = '20260714_091500_a77e1b';
/** Its neighbour with none of Hermes's other fields set (`attributes` NULL, its messages' too). */
export const PLAIN_SESSION = '20260714_093000_c0ffee';
/** A session whose title and model are each one very long word (a pasted token, a model id gone wrong). */
export const LONG_WORDS_SESSION = '20260714_094500_10f0ad';

/**
 * A store (profile `attributes`) with one Telegram session whose other fields are set, and three messages: one with
 * the platform's id, one observed, and a reply with three reactions (two 👍, one from a person, and a 🎉). The
 * compression error holds markup, which the page must show as text. A second session has none of them.
 */
export function attributesStore(dir: string, at = DASHBOARD_NOW - 86_400): string {
  const path = join(dir, 'profiles', 'attributes', 'state.db');
  const db = createStore({ path, level: LATEST_LEVEL, journal: 'wal', fts: false });
  let t = at;
  const w = new StateDbWriter(db, { now: () => (t += 1), ids: createIdSource('dashboard-attributes') });
  try {
    const id = w.createSession({
      id: ATTRIBUTES_SESSION, source: 'telegram', started_at: at, model: 'gpt-5', user_id: 'u-4471', chat_id: '-100777',
      model_config: { provider: 'openrouter', base_url: 'https://openrouter.ai/api/v1?api_key=sk-or-secret', temperature: 0.2 },
    });
    w.updateSession(id, {
      title: 'Reactions and flags', title_source: 'llm', chat_type: 'dm', pinned: 1, archived: 1, handoff_state: 'done', handoff_platform: 'telegram',
      compression_fallback_streak: 2, compression_failure_error: 'context window exceeded <img src=x onerror=alert(1)>', pricing_version: '2026-06-01',
      tool_names: '["terminal","web_search"]', last_activity_description: 'running terminal',
    });
    w.appendMessages(id, [
      { role: 'user', content: 'what changed since Monday?', platform_message_id: '991' },
      { role: 'user', content: 'side chatter in the chat', observed: 1 },
      {
        role: 'assistant', content: 'Two things: the WAL notes and the release date.', finish_reason: 'stop', platform_message_id: '992',
        display_metadata: { reactions: [{ emoji: '👍', author: 'user', at: at + 60, seen: true }, { emoji: '👍', author: 'alice', at: at + 90 }, { emoji: '🎉', author: 'assistant', at: at + 120 }] },
      },
    ]);
    w.endSession(id, 'user_exit');
    const plain = w.createSession({ id: PLAIN_SESSION, source: 'cli', model: 'gpt-5' });
    w.appendMessages(plain, [{ role: 'user', content: 'hello' }, { role: 'assistant', content: 'hi', finish_reason: 'stop' }]);
    const long = w.createSession({ id: LONG_WORDS_SESSION, source: 'cli', model: `<img src=x onerror=alert(3)>${'M'.repeat(300)}`, title: 'A'.repeat(3000) });
    w.appendMessages(long, [{ role: 'user', content: 'x'.repeat(2000) }, { role: 'assistant', content: 'ok', finish_reason: 'stop' }]);
  } finally {
    db.close();
  }
  return path;
}

export async function dashboardRig(options: DashboardRigOptions = {}): Promise<DashboardRig> {
  const { dir, cleanup } = tempDir('hermetic-web-');
  const now = options.now ?? DASHBOARD_NOW;
  const stores = options.fixtures
    ? options.fixtures.map((name) => copyFixture(name, dir))
    : [generatedStore({ out: join(dir, 'hermes', 'state.db'), sessions: options.sessions ?? 150, messages: options.messages ?? 3000, seed: 'dashboard', end: now, days: 30 }).path];
  stores.push(...(options.extraStores?.(dir) ?? []));
  const pass = (run: (f: Rig['forwarder']) => void) => {
    const rig = forwarderRig(stores, { dir, timeZone: options.timeZone ?? 'Europe/Berlin' });
    try {
      run(rig.forwarder);
    } finally {
      rig.forwarder.close();
    }
    return rig.home;
  };
  const home = pass((f) => f.backfill());
  options.prepare?.(home);
  const db = new Database(join(home, 'hermetic.db'), { readonly: true });
  const served = new Database(join(home, 'hermetic.db'), { readonly: true });
  const server = await startWebServer({ source: sqliteSource(served), port: 0, now: () => now * 1000, refreshMs: options.refreshMs, onError: (e) => { throw e; } });
  return {
    url: server.url, home, db, now, stores,
    forwardOnce: () => void pass((f) => f.forwardOnce()),
    close: async () => {
      await server.close();
      served.close();
      db.close();
      cleanup();
    },
  };
}

/**
 * Edits the dataset at `path` so that `count` sessions whose usage all lies in 20 to 10 days before `now` (the first by
 * their last usage) have no cost from Hermes at all, as a store from before Hermes kept costs leaves them (decision
 * 0090): neither cost on the session, every ledger row at $0. Returns their ids: counted in 30 days, not in 7. The
 * generated store's own unpriced sessions (its local model's, status `unknown`: decision 0132) are marked estimated
 * first, so these are the only sessions without a cost.
 */
export function uncostSessions(path: string, count: number, now = DASHBOARD_NOW): string[] {
  const db = new Database(path);
  try {
    const ids = db.prepare(`SELECT session_id FROM usage_ledger GROUP BY store, session_id HAVING MIN(at) >= ? AND MAX(at) < ?
      ORDER BY MAX(at), session_id LIMIT ?`).pluck().all(now - 20 * 86_400, now - 10 * 86_400, count) as string[];
    if (ids.length < count) throw new Error(`only ${ids.length} sessions of ${count} have all their usage 20 to 10 days back`);
    db.transaction(() => {
      db.prepare("UPDATE sessions SET cost_status = 'estimated' WHERE cost_status = 'unknown'").run();
      for (const id of ids) {
        db.prepare('UPDATE sessions SET estimated_cost_usd = NULL, actual_cost_usd = NULL WHERE session_id = ?').run(id);
        db.prepare('UPDATE usage_ledger SET cost_usd = 0, estimated_cost_usd = 0, actual_cost_usd = NULL WHERE session_id = ?').run(id);
      }
    })();
    return ids;
  } finally {
    db.close();
  }
}

/** A session of 500 messages, each made 1 MB by `inflateBigTexts` (decision 0088). */
export const MANY_BIG_SESSION = '20260714_100000_b16b16';
/** A session whose one tool result is 20 MB, its call's arguments 2 MB and its reasoning 1 MB (decision 0088). */
export const HUGE_RESULT_SESSION = '20260714_101500_b16b17';

/** A session whose one message makes 10 calls of 5,000-character arguments: 50 KB of calls' JSON, past the cap. */
export const MANY_CALLS_SESSION = '20260714_103000_b16b18';

/**
 * A store (profile `big`) with the three sessions above, written small: `inflateBigTexts` then makes their texts big in
 * the dataset itself (SQL, in a second or so), where writing them through Hermes's store and a backfill would take
 * minutes.
 */
export function bigTextsStore(dir: string, at = DASHBOARD_NOW - 3_600): string {
  const path = join(dir, 'profiles', 'big', 'state.db');
  const db = createStore({ path, level: LATEST_LEVEL, journal: 'wal', fts: false });
  let t = at;
  const w = new StateDbWriter(db, { now: () => (t += 1), ids: createIdSource('dashboard-big') });
  try {
    const many = w.createSession({ id: MANY_BIG_SESSION, source: 'cli', model: 'gpt-5', started_at: at });
    w.appendMessages(many, Array.from({ length: 500 }, (_, i) => (i % 2 === 0 ? { role: 'user' as const, content: `question ${i}` } : { role: 'assistant' as const, content: `answer ${i}`, finish_reason: 'stop' })));
    const huge = w.createSession({ id: HUGE_RESULT_SESSION, source: 'cli', model: 'gpt-5', started_at: at + 600 });
    w.appendMessages(huge, [
      { role: 'user', content: 'show me the log' },
      { role: 'assistant', content: null, reasoning: 'thinking', tool_calls: [{ id: 'call_big', type: 'function', function: { name: 'write_file', arguments: '{"path": "a.txt", "text": "x"}' } }, { id: 'call_small', type: 'function', function: { name: 'terminal', arguments: '{"command": "ls"}' } }] },
      { role: 'tool', content: 'small', tool_call_id: 'call_big', tool_name: 'write_file' },
      { role: 'assistant', content: 'done', finish_reason: 'stop' },
    ]);
    const calls = w.createSession({ id: MANY_CALLS_SESSION, source: 'cli', model: 'gpt-5', started_at: at + 1200 });
    w.appendMessages(calls, [
      { role: 'user', content: 'write ten files' },
      { role: 'assistant', content: null, tool_calls: Array.from({ length: 10 }, (_, i) => ({ id: `call_${i}`, type: 'function' as const, function: { name: 'write_file', arguments: JSON.stringify({ path: `f${i}.txt`, text: String(i).repeat(5000) }) } })) },
    ]);
  } finally {
    db.close();
  }
  return path;
}

/**
 * Makes the dataset's texts of `bigTextsStore`'s sessions big: each of MANY_BIG_SESSION's 500 messages its seq, a space
 * and `many` characters (1 MB by default), and in HUGE_RESULT_SESSION a tool result of 20,000,000 characters (a non-ASCII one first, so characters
 * and bytes differ), the first call's arguments a JSON text of about 2 MB, the reasoning 1,000,000 characters.
 */
export function inflateBigTexts(home: string, many = 1_000_000): void {
  const db = new Database(join(home, 'hermetic.db'));
  try {
    // No journal while it is written (nothing else has it open yet), WAL again after, as the forwarder keeps it.
    db.pragma('journal_mode = DELETE');
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    // replace(hex(zeroblob(n)), '0', c): 2n copies of c, made inside SQLite.
    db.prepare(`UPDATE messages SET content = printf('%d ', seq) || replace(hex(zeroblob(?)), '0', 'm') WHERE session_id = ?`).run(Math.ceil(many / 2), MANY_BIG_SESSION);
    db.prepare(`UPDATE messages SET content = 'é' || replace(hex(zeroblob(9999998)), '0', 'r') || 'END' WHERE session_id = ? AND role = 'tool'`).run(HUGE_RESULT_SESSION);
    db.prepare(`UPDATE messages SET reasoning = replace(hex(zeroblob(500000)), '0', 'z'),
      tool_calls = json_set(tool_calls, '$[0].function.arguments', '{"path": "a.txt", "text": "' || replace(hex(zeroblob(1000000)), '0', 'a') || '"}')
      WHERE session_id = ? AND role = 'assistant' AND tool_calls IS NOT NULL`).run(HUGE_RESULT_SESSION);
    db.pragma('journal_mode = WAL');
  } finally {
    db.close();
  }
}

/** How `inflateSessionTexts` makes a session's texts big (decision 0094): characters of each (the title's first is é). */
// Each far past its cap (256, 4,096 and 32,768 characters) and past what a list's answer may hold, yet small enough that
// shipping it into the fleet store costs the tests little; streaming a text over several chunks is 0088's 20 MB result.
export const BIG_SESSION_TEXTS = { title: 300_000, cwd: 100_000, system_prompt: 100_000, attributes: 200_000, messageAttributes: 100_000 } as const;

/**
 * Makes session `id`'s own texts big in an open dataset, in SQL (decision 0094): its title BIG_SESSION_TEXTS.title
 * characters (é first, so one byte more), its cwd and system prompt, its `attributes` a JSON object (`title_source` and
 * one long field) and its first message's `attributes` one, each of its size there; and `child` made its child, so the
 * child's view shows it as its parent.
 */
export function inflateSessionTexts(db: Database.Database, id: string, child: string): void {
  const many = (n: number, c: string) => `replace(hex(zeroblob(${n / 2})), '0', '${c}')`;
  const t = BIG_SESSION_TEXTS;
  // An object whose JSON is exactly n characters: {"title_source":"llm","note":"…"} is 32 characters around the note.
  const object = (n: number) => `'{"title_source":"llm","note":"' || ${many(n - 32, 'n')} || '"}'`;
  db.prepare(`UPDATE sessions SET title = 'é' || substr(${many(t.title, 'T')}, 2), cwd = '/' || substr(${many(t.cwd, 'd')}, 2),
    system_prompt = ${many(t.system_prompt, 'p')}, attributes = ${object(t.attributes)} WHERE session_id = ?`).run(id);
  db.prepare(`UPDATE messages SET attributes = ${object(t.messageAttributes)} WHERE session_id = ? AND seq = 0`).run(id);
  db.prepare('UPDATE sessions SET parent_session_id = ?, lineage_kind = \'branch\' WHERE session_id = ?').run(id, child);
}
