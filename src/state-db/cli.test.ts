import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { statedbCommand } from './cli.js';
import { PROFILES } from './generate/index.js';
import { tempDir } from './testing/fixtures.js';
import { printed } from '../shared/testing/console.js';

async function capture(argv: string[]): Promise<{ code: number; out: string }> {
  const { value, out } = await printed(() => statedbCommand(argv));
  return { code: value, out: out.join('\n') };
}

async function rejects(argv: string[], code: string, message: string): Promise<void> {
  await assert.rejects(statedbCommand(argv), (e: { code: string; message: string }) => {
    assert.deepEqual([e.code, e.message], [code, message]);
    return true;
  });
}

test('a profile accepts flags that repeat its own values', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const g = await capture(['generate', '--out', join(dir, 'v9.db'), '--profile', 'v9', '--schema', '9', '--created-at', '9', '--sessions', '2']);
    assert.equal(g.code, 0);
    assert.match(g.out, /: schema v9, wal journal, /);
    // One is one: "1 session", as many as there are otherwise.
    const one = await capture(['generate', '--out', join(dir, 'one.db'), '--sessions', '1', '--messages', '1']);
    assert.match(one.out, /, wal journal, 1 session, \d+ messages$/);
    const tail = await capture(['generate', '--out', join(dir, 'tail.db'), '--profile', 'wal-tail', '--sessions', '3']);
    assert.match(tail.out, /, 3 sessions, \d+ messages, 1 session only in -wal$/);
  } finally {
    cleanup();
  }
});

test('statedb generate then inspect round-trips through the CLI', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const out = join(dir, 'state.db');
    const g = await capture(['generate', '--out', out, '--schema', '22', '--sessions', '5', '--messages', '40', '--seed', 's', '--journal', 'delete']);
    assert.equal(g.code, 0);
    assert.match(g.out, /^wrote .*state\.db: schema v22, delete journal, \d+ sessions, \d+ messages$/);
    const i = await capture(['inspect', out, '--json']);
    const report = JSON.parse(i.out) as { schemaVersion: number; journalMode: string; differences: string[] };
    assert.deepEqual([report.schemaVersion, report.journalMode, report.differences], [22, 'delete', []]);
  } finally {
    cleanup();
  }
});

test('statedb usage errors carry HERMETIC_CLI_USAGE and a plain sentence', async () => {
  await rejects(['frobnicate'], 'HERMETIC_CLI_USAGE', 'Unknown statedb command "frobnicate"; use generate or inspect.');
  await rejects(['generate'], 'HERMETIC_CLI_USAGE', 'generate needs --out PATH.');
  await rejects(['generate', '--out', '/tmp/x.db', '--journal', 'memory'], 'HERMETIC_CLI_USAGE', '--journal must be wal or delete, not "memory".');
  await rejects(['generate', '--out', '/tmp/x.db', '--sessions', '0'], 'HERMETIC_CLI_USAGE', '--sessions must be a whole number from 1 to 1000000, not "0".');
  await rejects(['generate', '--out', '/tmp/x.db', '--profile', 'mid', '--created-at', '12'], 'HERMETIC_CLI_USAGE',
    '--created-at 12 conflicts with --profile mid, which sets created-at 11; give one or the other.');
  await rejects(['generate', '--out', '/tmp/x.db', '--schema', '30-pre-daily', '--profile', 'v30'], 'HERMETIC_CLI_USAGE',
    '--schema 30-pre-daily conflicts with --profile v30, which sets schema 30; give one or the other.');
  await rejects(['generate', '--out', '/tmp/x.db', '--schema', '12', '--created-at', '13'], 'HERMETIC_CLI_USAGE', '--created-at must not be newer than --schema.');
  await rejects(['generate', '--out', '/tmp/x.db', '--schema', '31'], 'HERMETIC_STATEDB_SCHEMA', 'Schema version "31" is not known; use 1 to 30 or 30-pre-daily.');
  await rejects(['generate', '--out', '/tmp/x.db', '--profile', 'nope'], 'HERMETIC_STATEDB_PROFILE',
    'Unknown profile "nope"; known profiles: v2-early, v9, v11, mid, v22, v25, v30, v30-pre-daily, wal-tail, delete-journal, migrated, postgres-stale.');
  await rejects(['inspect'], 'HERMETIC_CLI_USAGE', 'inspect needs exactly one PATH to a state.db.');
  await rejects([], 'HERMETIC_CLI_USAGE', 'statedb needs a command: generate or inspect.');
});

test('generate --end and --days: the history ends at --end (default now, injected), over --days; bad values refused', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const now = Date.UTC(2026, 9, 1, 12);
    const last = (path: string) => {
      const db = new Database(path, { readonly: true });
      const t = db.prepare('SELECT MAX(timestamp) FROM messages WHERE timestamp < 1e100').pluck().get() as number;
      const first = db.prepare('SELECT MIN(started_at) FROM sessions').pluck().get() as number;
      db.close();
      return [first, t];
    };
    const g = await statedbCommand(['generate', '--out', join(dir, 'a.db'), '--sessions', '20', '--days', '3', '--seed', 's'], () => now);
    assert.equal(g, 0);
    const [first, t] = last(join(dir, 'a.db'));
    assert.ok(t! <= now / 1000 && t! > now / 1000 - 86400 && first! >= now / 1000 - 3 * 86400, `${first} ${t}`);
    await statedbCommand(['generate', '--out', join(dir, 'b.db'), '--sessions', '20', '--end', '2026-09-01T00:00:00Z'], () => now);
    assert.ok(last(join(dir, 'b.db'))[1]! <= Date.UTC(2026, 8, 1) / 1000);
    await rejects(['generate', '--out', join(dir, 'c.db'), '--end', 'yesterday'], 'HERMETIC_CLI_USAGE', '--end must be an ISO date such as 2026-07-14, a date-time such as 2026-07-14T18:00Z, or now; got "yesterday".');
    await rejects(['generate', '--out', join(dir, 'c.db'), '--end', '2026-02-30'], 'HERMETIC_CLI_USAGE', '--end "2026-02-30" is not a real date: days of February 2026 run from 01 to 28.');
    await rejects(['generate', '--out', join(dir, 'c.db'), '--end', '2026-03-01T24:00'], 'HERMETIC_CLI_USAGE', '--end "2026-03-01T24:00" is not a real time: hours run from 00 to 23 (the end of a day is the next day\'s 00:00).');
    await rejects(['generate', '--out', join(dir, 'c.db'), '--end', '2150-01-01'], 'HERMETIC_CLI_USAGE', '--end must fall between 2000 and 2100 (the times Hermes accepts); got "2150-01-01".');
    await rejects(['generate', '--out', join(dir, 'c.db'), '--days', '0'], 'HERMETIC_CLI_USAGE', '--days must be a whole number from 1 to 36500, not "0".');
    await rejects(['generate', '--out', join(dir, 'c.db'), '--end', '2001-01-01', '--days', '3650'], 'HERMETIC_CLI_USAGE', '--days 3650 before --end starts before 2000; give fewer days.');
  } finally {
    cleanup();
  }
});

test('generate --help says what each profile is', async () => {
  const { out } = await capture(['generate', '--help']);
  // A long description goes on under itself (the help fits 80 columns).
  const unwrapped = out.replace(/\n {17}/g, ' ');
  for (const [name, p] of Object.entries(PROFILES)) assert.ok(unwrapped.includes(`  ${name.padEnd(15)}${p.description}\n`), name);
  assert.ok(out.split('\n').every((l) => l.length <= 80), out);
  assert.match(out, /--end DATE/);
  assert.match(out, /--days N/);
});
