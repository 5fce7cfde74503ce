// Every generator profile (spec state-db §10) and every schema level: after a backfill the dataset equals what plain SQL reads from the
// store itself (opened read-only on a copy) — counters, costs, per-route usage and live transcripts — the store's
// folder is left exactly as it was, and a second backfill writes nothing.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { generate, PROFILES, profileNames } from '../../state-db/generate/index.js';
import type { ProfileSettings } from '../../state-db/generate/profiles.js';
import { FIRST_LEVEL, LATEST_LEVEL } from '../../state-db/schema/index.js';
import { tempDir } from '../../state-db/testing/fixtures.js';
import { generatedStore } from '../../state-db/testing/generated.js';
import { SESSION_EXTRA_COLUMNS, SESSION_IDENTITY_COLUMNS, validEpoch } from '../normalize/index.js';
import { forwarderRig } from '../testing/index.js';

type Row = Record<string, any>;
const COUNTERS = ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens'] as const;
const SENTINEL = '\x00json:';
/** Providers of the hosts the generator's routes use (spec forwarding §2.6 and §6.1 item 10). */
const HOST_PROVIDER: Record<string, string> = {
  'openrouter.ai': 'openrouter', 'chatgpt.com': 'openai-codex', 'inference-api.nousresearch.com': 'nous',
  'api.anthropic.com': 'anthropic', localhost: 'local',
};

/** Every file beside the store, with a hash of its bytes: a read-only reader changes none of them. */
function folderState(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).sort().map((name) => [name, createHash('sha256').update(readFileSync(join(dir, name))).digest('hex')]));
}

/** The store (and its -wal) copied to `to`, opened read-only there: the reference the dataset is compared with. */
function openCopy(storeDir: string, to: string, withWal = true): Database.Database {
  mkdirSync(to, { recursive: true });
  copyFileSync(join(storeDir, 'state.db'), join(to, 'state.db'));
  if (withWal && existsSync(join(storeDir, 'state.db-wal'))) copyFileSync(join(storeDir, 'state.db-wal'), join(to, 'state.db-wal'));
  return new Database(join(to, 'state.db'), { readonly: true });
}

const columnsOf = (db: Database.Database, table: string) =>
  new Set((db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name));

function expectedProvider(url: string, billingProvider: string): string {
  const host = url ? new URL(url).hostname : null;
  if (host) return HOST_PROVIDER[host] ?? host;
  return billingProvider && !['auto', 'custom'].includes(billingProvider) ? billingProvider : 'unknown';
}

/** Generates one store (a named profile, or a bare schema level) and holds the dataset to it. */
function check(profile: string, settings: ProfileSettings, gen: { profile?: string; level?: number; sessions: number; messages: number }): void {
  test(`${profile}: the dataset equals plain SQL on the store, the folder is untouched, a second backfill writes nothing`, () => {
    const { dir, cleanup } = tempDir('hermetic-gen-');
    const storeDir = join(dir, 'hermes');
    // From the run's cache of generated stores, but for a PostgreSQL profile, whose config.yaml the cache does not keep.
    const g = (settings.postgres ? generate : generatedStore)({ out: join(storeDir, 'state.db'), ...gen, seed: 'forwarder-generated' });
    const folderBefore = folderState(storeDir);
    const rig = forwarderRig([g.path], { dir });
    const ref = openCopy(storeDir, join(dir, 'reference'));
    try {
      const [r] = rig.forwarder.backfill();
      if (settings.postgres) {
        // A profile on the PostgreSQL backend is read from PostgreSQL, never from its stale state.db; with no
        // HERMES_DATABASE_URL anywhere it says so, and nothing is read (decision 0038).
        assert.equal(r!.backend, 'postgres');
        assert.equal(r!.error?.code, 'HERMETIC_READER_PG_CONFIG');
        assert.match(r!.warning!, /selects the PostgreSQL backend, but no HERMES_DATABASE_URL was found/);
        assert.equal(existsSync(join(rig.forwarder.home, 'hermetic.db')), false, 'nothing read, no dataset made');
        return;
      }
      assert.equal(r!.error, null);
      assert.equal(r!.schemaVersion, Math.min(settings.level, 30));
      assert.equal(r!.journalMode, settings.journal === 'delete' ? 'delete' : 'wal');
      // A WAL store without its -shm would gain files if opened in place: the reader reads a private copy instead.
      assert.equal(r!.read, settings.journal === 'delete' ? 'in-place' : 'copy');
      assert.equal(r!.backend, 'sqlite');
      assert.equal(r!.warning, null);

      // Sessions: exactly the store's (deleted ones are gone from it, so they must not appear), counters equal.
      const sCols = columnsOf(ref, 'sessions');
      const pick = (c: string) => (sCols.has(c) ? c : `NULL AS ${c}`);
      const storeSessions = ref.prepare(`SELECT id, source, parent_session_id, started_at, ended_at, ${[...COUNTERS, 'api_call_count', 'estimated_cost_usd', 'actual_cost_usd'].map(pick).join(', ')} FROM sessions ORDER BY id`).all() as Row[];
      const dataSessions = rig.query<Row>('SELECT * FROM sessions ORDER BY session_id');
      assert.equal(r!.sessionsSeen, storeSessions.length);
      assert.equal(r!.sessionsWritten, storeSessions.length);
      assert.deepEqual(dataSessions.map((s) => s.session_id), storeSessions.map((s) => s.id));
      storeSessions.forEach((e, i) => {
        const s = dataSessions[i]!;
        const label = `${profile} ${e.id}`;
        for (const k of COUNTERS) assert.equal(s[k], e[k] ?? 0, `${label} ${k}`);
        assert.equal(s.api_call_count, e.api_call_count ?? 0, `${label} api_call_count`);
        assert.equal(s.estimated_cost_usd, e.estimated_cost_usd, `${label} estimated_cost_usd`);
        assert.equal(s.actual_cost_usd, e.actual_cost_usd, `${label} actual_cost_usd`);
        assert.equal(s.source, e.source, `${label} source`);
        assert.equal(s.parent_session_id, e.parent_session_id, `${label} parent`);
        assert.equal(s.started_at, e.started_at, `${label} started_at`);
        assert.equal(s.ended_at, e.ended_at, `${label} ended_at`);
        assert.equal(s.removed_from_store, 0);
        assert.equal(s.origin, 'backfill');
        assert.equal(s.policy, 'full');
      });
      // attributes: every extra column the store has set, by name, as stored (JSON ones parsed); never the user's or
      // the chat's identity, never a credential of model_config.
      const extras = ref.prepare(`SELECT id, ${[...SESSION_EXTRA_COLUMNS, ...SESSION_IDENTITY_COLUMNS].map(pick).join(', ')} FROM sessions ORDER BY id`).all() as Row[];
      extras.forEach((e, i) => {
        const s = dataSessions[i]!;
        const attrs = (s.attributes === null ? {} : JSON.parse(s.attributes as string)) as Row;
        const set = SESSION_EXTRA_COLUMNS.filter((c) => e[c] !== null && e[c] !== 0);
        assert.deepEqual(Object.keys(attrs).sort(), [...set].sort(), `${profile} ${e.id} attribute names`);
        for (const c of set) {
          if (c === 'model_config') assert.deepEqual(attrs[c], maskedConfig(JSON.parse(e[c])), `${profile} ${e.id} model_config`);
          else if (c === 'tool_names') assert.deepEqual(attrs[c], (() => { try { return JSON.parse(e[c]); } catch { return e[c]; } })());
          else assert.equal(attrs[c], e[c], `${profile} ${e.id} ${c}`);
        }
        for (const c of SESSION_IDENTITY_COLUMNS) {
          if (typeof e[c] === 'string' && e[c].length > 3) assert.ok(!JSON.stringify(s).includes(e[c]), `${profile} ${e.id} ${c} left the store`);
        }
      });

      // Totals, summed in the same (id) order on both sides so even the float sums are bit-equal.
      const total = (rows: Row[], k: string) => rows.reduce((t, x) => t + (x[k] ?? 0), 0);
      for (const k of [...COUNTERS, 'api_call_count', 'estimated_cost_usd', 'actual_cost_usd']) {
        assert.equal(total(dataSessions, k), total(storeSessions, k), `${profile} total ${k}`);
      }

      // The usage ledger after one backfill: one event per session with usage (0 to its counters), no clamps.
      const events = rig.query<Row>('SELECT * FROM usage_events ORDER BY session_id');
      const withUsage = dataSessions.filter((s) => [...COUNTERS, 'api_call_count', 'estimated_cost_usd', 'actual_cost_usd'].some((k) => (s[k] ?? 0) !== 0));
      assert.deepEqual(events.map((e) => [e.session_id, e.seq, e.clamped, e.origin]), withUsage.map((s) => [s.session_id, 1, 0, 'backfill']));
      for (const k of [...COUNTERS, 'api_call_count']) assert.equal(total(events, k), total(storeSessions, k), `${profile} usage_events ${k}`);

      if (settings.walTail) {
        // Sessions committed only to state.db-wal: the main file alone does not have them; the dataset does.
        const mainOnly = openCopy(storeDir, join(dir, 'main-only'), false);
        const inMain = new Set(mainOnly.prepare('SELECT id FROM sessions').pluck().all() as string[]);
        mainOnly.close();
        const walOnly = storeSessions.map((s) => s.id as string).filter((id) => !inMain.has(id));
        assert.ok(walOnly.length >= g.walOnlySessions && g.walOnlySessions > 0, `${walOnly.length} sessions only in the -wal`);
        const have = new Set(dataSessions.map((s) => s.session_id));
        assert.deepEqual(walOnly.filter((id) => !have.has(id)), []);
      }

      // model_usage equals session_model_usage row for row (and is empty before v20 had the table).
      const usage = rig.query<Row>('SELECT * FROM model_usage');
      const uCols = columnsOf(ref, 'session_model_usage');
      if (uCols.size === 0) assert.deepEqual(usage, []);
      else {
        const rows = ref.prepare('SELECT * FROM session_model_usage').all() as Row[];
        // Rows are matched by everything but the base URL (the dataset keeps only a secret-free form of it).
        const key = (x: Row) => [x.session_id, x.model, x.task ?? '', x.billing_provider, x.billing_mode].join('\u0001');
        const got = new Map(usage.map((u) => {
          const parts = String(u.provider_key).split('|');
          return [key({ ...u, billing_provider: parts[0], billing_mode: parts[parts.length - 1] }), u] as const;
        }));
        assert.equal(got.size, usage.length, 'matching keys are unique');
        assert.equal(usage.length, rows.length);
        assert.ok(rows.length > 0);
        for (const u of rows) {
          const task = u.task ?? '';
          const { provider_key: providerKey, ...rest } = got.get(key(u)) ?? {};
          assert.ok(typeof providerKey === 'string' && providerKey.startsWith(`${u.billing_provider}|`) && providerKey.endsWith(`|${u.billing_mode}`), `provider_key ${providerKey}`);
          assert.deepEqual(rest, {
            store: g.path, session_id: u.session_id, model: u.model,
            provider: expectedProvider(u.billing_base_url, u.billing_provider), billing_mode: u.billing_mode, task,
            in_session_totals: task === '' ? 1 : 0, api_call_count: u.api_call_count,
            ...Object.fromEntries(COUNTERS.map((k) => [k, u[k]])), estimated_cost_usd: u.estimated_cost_usd,
            actual_cost_usd: u.actual_cost_usd, cost_status: u.cost_status, cost_source: u.cost_source,
            first_seen: u.first_seen, last_seen: u.last_seen,
          });
        }
      }

      // messages: per session, the history Hermes shows in id order: the live rows, and the rows compaction summarized
      // away that no live row repeats (Hermes's display identity over the columns this store has).
      const mCols = columnsOf(ref, 'messages');
      const same = ['role', 'content', 'timestamp', 'tool_call_id', 'tool_calls', 'tool_name'].filter((c) => mCols.has(c)).map((c) => `l.${c} IS m.${c}`).join(' AND ');
      const isLive = (t: string) => `(${t}.active = 1 OR ${t}.active IS NULL)`;
      const shown = !mCols.has('active') ? '' : mCols.has('compacted')
        ? `AND (${isLive('m')} OR (m.compacted = 1 AND NOT EXISTS (SELECT 1 FROM messages l WHERE l.session_id = m.session_id AND ${isLive('l')} AND ${same})))`
        : `AND ${isLive('m')}`;
      const compactedOf = mCols.has('active') ? `CASE WHEN ${isLive('m')} THEN 0 ELSE 1 END` : '0';
      const mPick = (c: string) => (mCols.has(c) ? `m.${c}` : `NULL AS ${c}`);
      const liveStmt = ref.prepare(`SELECT m.id, m.role, m.content, m.tool_call_id, m.timestamp, ${compactedOf} AS compacted, ${['platform_message_id', 'effect_disposition', 'observed'].map(mPick).join(', ')} FROM messages m WHERE m.session_id = ? ${shown} ORDER BY m.id`);
      const allStmt = ref.prepare('SELECT id, timestamp FROM messages WHERE session_id = ? ORDER BY id');
      const garbage: Row[] = [];
      let liveTotal = 0;
      for (const s of storeSessions) {
        const want = liveStmt.all(s.id) as Row[];
        liveTotal += want.length;
        const got = rig.query<Row>('SELECT message_id, role, content, content_format, tool_call_id, created_at, compacted, attributes FROM messages WHERE session_id = ? ORDER BY seq', s.id);
        assert.deepEqual(got.map((m) => m.message_id), want.map((m) => m.id), `${profile} ${s.id} live ids`);
        // The time a garbage row is given: the previous good time among all the session's rows, else started_at.
        const repairedAt = new Map<number, number>();
        let previous = s.started_at as number;
        for (const m of allStmt.all(s.id) as Row[]) {
          if (validEpoch(m.timestamp)) previous = m.timestamp;
          else repairedAt.set(m.id, previous);
        }
        want.forEach((m, i) => {
          const row = got[i]!;
          const json = typeof m.content === 'string' && m.content.startsWith(SENTINEL);
          assert.equal(row.role, m.role);
          assert.equal(row.content, json ? m.content.slice(SENTINEL.length) : m.content);
          assert.equal(row.content_format, m.content === null ? null : json ? 'json' : 'text');
          assert.equal(row.tool_call_id, m.tool_call_id);
          assert.equal(row.compacted, m.compacted, `${profile} ${s.id} #${m.id} compacted`);
          const attrs = (row.attributes === null ? {} : JSON.parse(row.attributes as string)) as Row;
          assert.equal(attrs.platform_message_id, m.platform_message_id ?? undefined, `${profile} ${s.id} #${m.id} platform_message_id`);
          assert.equal(attrs.effect_disposition, m.effect_disposition ?? undefined);
          assert.equal(attrs.observed, m.observed ? m.observed : undefined);
          if (repairedAt.has(m.id)) {
            assert.equal(row.created_at, repairedAt.get(m.id));
            garbage.push({ session_id: s.id, message_id: m.id, stored: m.timestamp });
          } else assert.equal(row.created_at, m.timestamp, `${profile} ${s.id} #${m.id} created_at`);
        });
      }
      assert.equal(r!.messages, liveTotal);
      assert.equal(rig.query<Row>('SELECT COUNT(*) AS n FROM messages')[0]!.n, liveTotal);
      // Every garbage time is reported (and nothing else is): the generator's poison pill is 5e+246.
      assert.ok(garbage.length > 0, 'the garbage_ts scenario ran');
      assert.deepEqual(
        rig.query<Row>('SELECT session_id, message_id, field, problem FROM row_issues ORDER BY session_id, message_id'),
        garbage.map((x) => ({ session_id: x.session_id, message_id: x.message_id, field: 'timestamp', problem: `timestamp ${String(x.stored)} is not a plausible time; the previous message's time (or the session's start) is used` }))
          .sort((a, b) => (a.session_id < b.session_id ? -1 : a.session_id > b.session_id ? 1 : a.message_id - b.message_id)),
      );

      // The raw billing_base_url (the generator's local route carries ?api_key=sk-local-test) is never stored.
      // (Small stores may not have drawn that route.)
      if (sCols.has('billing_base_url') && (ref.prepare("SELECT COUNT(*) FROM sessions WHERE billing_base_url LIKE '%sk-local-test%'").pluck().get() as number) > 0) {
        for (const t of ['sessions', 'messages', 'parts', 'model_usage', 'row_issues']) {
          const leaks = rig.query<Row>(`SELECT * FROM ${t}`).filter((x) => JSON.stringify(x).includes('sk-local-test'));
          assert.deepEqual(leaks, [], `${t} holds the raw base URL`);
        }
      }

      // A second backfill finds nothing changed and writes nothing.
      const [again] = rig.forwarder.backfill();
      assert.equal(again!.error, null);
      assert.equal(again!.sessionsWritten, 0);
      assert.equal(again!.sessionsUnchanged, storeSessions.length);
      assert.equal(again!.messages, 0);
      assert.equal(again!.parts, 0);

      // No file appeared, went or changed beside the store.
      assert.deepEqual(folderState(storeDir), folderBefore);
    } finally {
      ref.close();
      rig.cleanup();
      cleanup();
    }
  });
}

for (const profile of profileNames()) check(`profile ${profile}`, PROFILES[profile]!, { profile, sessions: 40, messages: 600 });
// Every schema level the generator knows (1 … 30, and 31: v30 with session_daily_usage), freshly created at it.
for (let level = FIRST_LEVEL; level <= LATEST_LEVEL; level++) {
  check(`schema level ${level}`, { level, description: `level ${level}` }, { level, sessions: 12, messages: 150 });
}

/** model_config as the dataset keeps it, written out here independently: credentials masked, URLs as their host. */
function maskedConfig(v: unknown): unknown {
  if (typeof v === 'string') return /^[a-z]+:\/\//i.test(v) ? new URL(v).hostname : v;
  if (Array.isArray(v)) return v.map(maskedConfig);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, /(^|_)(api_?key|key|token|secret|password)$/i.test(k) && x ? '***' : maskedConfig(x)]));
  return v;
}
