// Each terminal call's program is kept on its part (decision 0152): written by the projector, named again by the
// migration to dataset version 15 for a dataset written before, and named again at open when the rules that named
// them are not this Hermetic's — only the names that change are written, and so shipped.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generatedStore } from '../../../state-db/testing/generated.js';
import { tempDir } from '../../../state-db/testing/fixtures.js';
import { DATASET_VERSION } from '../../dataset/columns.js';
import { PROGRAM_RULES, programOfArgs } from '../../dataset/program.js';
import { forwarderRig, hermesStore } from '../../testing/index.js';
import { registerSink } from '../remote/changelog.js';
import { openDataset } from './dataset.js';
import { nameTerminalCalls, storedProgramRules } from './programs.js';

let home: string;
let cleanup: () => void;

before(() => {
  const t = tempDir('hermetic-programs-');
  cleanup = t.cleanup;
  const g = generatedStore({ out: join(t.dir, 'hermes', 'state.db'), sessions: 12, messages: 1200, seed: 'programs', end: 1_780_000_000, days: 5 });
  const rig = forwarderRig([g.path], { dir: t.dir, timeZone: 'UTC' });
  rig.forwarder.backfill();
  rig.forwarder.close();
  home = rig.home;
});
after(() => cleanup());

type Row = { part_type: string; tool_name: string | null; tool_args: string | null; program: string | null };
const partsOf = (db: Database.Database) => db.prepare('SELECT part_type, tool_name, tool_args, program FROM parts ORDER BY store, session_id, part_id').all() as Row[];
const loggedParts = (db: Database.Database) => db.prepare("SELECT COUNT(*) FROM change_log WHERE tbl = 'parts'").pluck().get() as number;
const terminalCalls = (rows: Row[]) => rows.filter((r) => r.part_type === 'tool_call' && r.tool_name === 'terminal');

/** A copy of the backfilled dataset, to change without touching the others'. */
function copy(): { dir: string; done: () => void } {
  const t = tempDir('hermetic-programs-copy-');
  const src = new Database(join(home, 'hermetic.db'), { readonly: true });
  src.exec(`VACUUM INTO '${join(t.dir, 'hermetic.db').replace(/'/g, "''")}'`);
  src.close();
  return { dir: t.dir, done: t.cleanup };
}

describe('parts.program', () => {
  it('the writer names every terminal call from its stored arguments, and no other part; the rules are recorded', () => {
    const db = new Database(join(home, 'hermetic.db'), { readonly: true });
    try {
      const rows = partsOf(db);
      const calls = terminalCalls(rows);
      assert.ok(calls.length > 30, `the generated store's terminal calls: ${calls.length}`);
      for (const r of calls) assert.equal(r.program, programOfArgs(r.tool_args), r.tool_args ?? 'NULL');
      assert.ok(new Set(calls.map((r) => r.program)).size > 2);
      assert.deepEqual(rows.filter((r) => !calls.includes(r) && r.program !== null), []);
      assert.equal(storedProgramRules(db), PROGRAM_RULES);
      // The index of the terminal tool's parts holds them, and only them.
      assert.equal(db.prepare("SELECT COUNT(*) FROM parts INDEXED BY parts_terminal WHERE tool_name = 'terminal'").pluck().get(),
        rows.filter((r) => r.tool_name === 'terminal').length);
    } finally {
      db.close();
    }
  });

  it('a dataset of version 14 gains the column, the index and every name by migrating (its remote sinks receive them)', () => {
    const c = copy();
    try {
      const before = new Database(join(c.dir, 'hermetic.db'));
      const expected = partsOf(before);
      // As version 14 left it: no index, no column, no rules; a remote sink registered (its log on).
      before.exec("DROP INDEX parts_terminal; ALTER TABLE parts DROP COLUMN program; DELETE FROM dataset_meta WHERE key = 'program_rules'; PRAGMA user_version = 14");
      registerSink(before, { id: 'sqlite:///copy.db', display: 'sqlite:///copy.db' }, 1);
      const from = loggedParts(before);
      before.close();
      const db = openDataset(c.dir, { timeZone: 'UTC' });
      try {
        assert.equal(db.pragma('user_version', { simple: true }), DATASET_VERSION);
        assert.deepEqual(partsOf(db), expected);
        assert.equal(storedProgramRules(db), PROGRAM_RULES);
        assert.equal(db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = 'parts_terminal'").pluck().get(), 1);
        // Each call named is in the log (an update: its key before and after), so each sink gets it; nothing else is.
        assert.equal(loggedParts(db) - from, 2 * terminalCalls(expected).length);
      } finally {
        db.close();
      }
    } finally {
      c.done();
    }
  });

  it('a dataset named by other rules is named again at open: only the names that change are written', () => {
    const c = copy();
    try {
      const before = new Database(join(c.dir, 'hermetic.db'));
      const expected = partsOf(before);
      const calls = terminalCalls(expected);
      registerSink(before, { id: 'sqlite:///copy.db', display: 'sqlite:///copy.db' }, 1);
      // Rules of another version, which named git otherwise: what a Hermetic with those rules left.
      const other = (args: unknown) => (programOfArgs(args) === 'git' ? 'git-by-other-rules' : programOfArgs(args));
      const changed = before.transaction(() => nameTerminalCalls(before, other, PROGRAM_RULES + 1))();
      const gits = calls.filter((r) => r.program === 'git').length;
      assert.ok(gits > 0);
      assert.equal(changed, gits);
      assert.equal(storedProgramRules(before), PROGRAM_RULES + 1);
      assert.equal(before.prepare("SELECT COUNT(*) FROM parts WHERE program = 'git-by-other-rules'").pluck().get(), gits);
      const from = loggedParts(before);
      before.close();
      // Opened by this Hermetic: named by its rules again, the git calls alone written (and logged).
      const db = openDataset(c.dir, { timeZone: 'UTC' });
      try {
        assert.deepEqual(partsOf(db), expected);
        assert.equal(storedProgramRules(db), PROGRAM_RULES);
        assert.equal(loggedParts(db) - from, 2 * gits);
        // Opened again with the same rules: nothing is named, nothing logged.
        db.close();
        const again = openDataset(c.dir, { timeZone: 'UTC' });
        assert.equal(loggedParts(again) - from, 2 * gits);
        again.close();
      } finally {
        if (db.open) db.close();
      }
    } finally {
      c.done();
    }
  });
});

describe('parts.program beside a Hermetic of other rules (decision 0158)', () => {
  it('a running forwarder whose dataset another Hermetic named by other rules names it again before it writes: the names stay those of the recorded rules', () => {
    const s = hermesStore('hermetic-programs-rules-', 'rules');
    try {
      const id = s.w.createSession({ source: 'cli', model: 'gpt-5' });
      const call = (n: number, command: string) => {
        s.w.appendMessages(id, [{ role: 'user', content: `q${n}` }, { role: 'assistant', content: null, tool_calls: [{ id: `c${n}`, type: 'function', function: { name: 'terminal', arguments: JSON.stringify({ command }) } }] }]);
        s.w.appendMessage(id, { role: 'tool', tool_call_id: `c${n}`, tool_name: 'terminal', content: '{"exit_code": 0}' });
      };
      call(1, 'git status');
      const rig = forwarderRig([s.path], { dir: s.dir });
      try {
        rig.forwarder.backfill();
        call(2, 'git diff');
        assert.equal(rig.forwarder.forwardOnce()[0]!.error, null);
        // Meanwhile a Hermetic of other rules (which name git otherwise) opens the dataset read-write and names it.
        const other = new Database(join(rig.home, 'hermetic.db'));
        const otherRules = (args: unknown) => (programOfArgs(args) === 'git' ? 'git-by-other-rules' : programOfArgs(args));
        other.transaction(() => nameTerminalCalls(other, otherRules, PROGRAM_RULES + 1))();
        other.close();
        // The running forwarder writes a new call.
        call(3, 'git log');
        assert.equal(rig.forwarder.forwardOnce()[0]!.error, null);
        const rows = rig.query<{ tool_args: string; program: string }>("SELECT tool_args, program FROM parts WHERE tool_name = 'terminal' AND part_type = 'tool_call' ORDER BY created_at, part_id");
        assert.equal(rows.length, 3);
        const rules = rig.query<{ value: string }>("SELECT value FROM dataset_meta WHERE key = 'program_rules'")[0]!.value;
        const namer = Number(rules) === PROGRAM_RULES ? programOfArgs : otherRules;
        assert.deepEqual(rows.map((r) => r.program), rows.map((r) => namer(r.tool_args)), `every name is by the rules the dataset records (${rules})`);
      } finally {
        rig.cleanup();
      }
    } finally {
      s.db.close();
      s.cleanup();
    }
  });
});
