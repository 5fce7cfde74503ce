// `hermetic statedb` as a person meets it: every mistake is one line with a code and the documented exit code
// (2 refused, 1 failed), nothing is replaced without --force, and inspect changes nothing. Each kind of answer goes
// through the real bin; the long list of flag mistakes runs through the same main() in process (the bin only calls
// it and sets the exit code), which keeps the suite quick on a small machine.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { spawnSync } from 'node:child_process';
import { runBin, runBinAsync, runMain, spawnBin, type BinResult } from '../support/process.js';
import { waitFor } from '../support/wait.js';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'hermetic-statedb-cli-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');

const inProcess = runMain;

type Want = { status: 1 | 2; code: string; message: string; help?: string };

/** Runs `hermetic ...args` through the bin in `cwd` and asserts the whole of what a person sees. */
async function expectRefusal(args: string[], want: Want, cwd = dir, run: (args: string[]) => Promise<BinResult> = (a) => runBinAsync(a, { cwd })): Promise<void> {
  const r = await run(args);
  const help = want.status === 2 ? `${want.help ?? 'Run "hermetic statedb --help" for the options.'}\n` : '';
  assert.deepEqual(
    { status: r.status, stdout: r.stdout, stderr: r.stderr },
    { status: want.status, stdout: '', stderr: `hermetic: ${want.message} [${want.code}]\n${help}` },
    args.join(' '),
  );
}

const usage = (message: string, help?: string) => ({ status: 2 as const, code: 'HERMETIC_CLI_USAGE', message, help });

describe('the command line itself', () => {
  it('bare hermetic and bare statedb are refused with exit 2; --help exits 0', async () => {
    const helps = [['--help'], ['statedb', '--help'], ['statedb', 'generate', '--help'], ['statedb', 'inspect', '-h']].map(async (args) => {
      const r = await runBinAsync(args, { cwd: dir });
      assert.deepEqual([r.status, r.stderr], [0, ''], args.join(' '));
      assert.match(r.stdout, /^Usage: hermetic /);
    });
    await Promise.all([
      expectRefusal([], usage('No command given; use serve, statedb, backfill, forward, status, report, export, web, query, policy, forget or sinks.', 'Run "hermetic --help" for the commands.')),
      expectRefusal(['statedb'], usage('statedb needs a command: generate or inspect.', 'Run "hermetic statedb --help" for the commands.')),
      expectRefusal(['frobnicate'], usage('Unknown command "frobnicate"; use serve, statedb, backfill, forward, status, report, export, web, query, policy, forget or sinks.', 'Run "hermetic --help" for the commands.')),
      expectRefusal(['statdb'], usage('Unknown command "statdb"; did you mean "statedb"?', 'Run "hermetic --help" for the commands.')),
      expectRefusal(['--nope'], usage('Unknown option "--nope": the command comes first; use serve, statedb, backfill, forward, status, report, export, web, query, policy, forget or sinks.', 'Run "hermetic --help" for the commands.')),
      ...helps,
    ]);
  });

  it('generate refuses a conflicting profile and a negative count through the bin', async () => {
    await Promise.all([
      expectRefusal(['statedb', 'generate', '--out', 'x.db', '--profile', 'v9', '--schema', '30'],
        usage('--schema 30 conflicts with --profile v9, which sets schema 9; give one or the other.')),
      expectRefusal(['statedb', 'generate', '--out', 'x.db', '--sessions', '-3'], usage('--sessions must be a whole number from 1 to 1000000, not "-3".')),
    ]);
    assert.deepEqual(readdirSync(dir), []);
  });

  it('generate refuses unknown, missing, malformed, repeated and conflicting flags before writing anything', async () => {
    const x = join(dir, 'x.db');
    const out = ['statedb', 'generate', '--out', x];
    const cases = [
      [['statedb', 'generate'], 'generate needs --out PATH.'],
      [['statedb', 'generate', '--out'], '--out needs a value.'],
      [['statedb', 'generate', '--out', '--force'], '--out needs a value.'],
      [['statedb', 'generate', '--out', ''], '--out must not be empty.'],
      [[...out, '--sesions', '3'], 'Unknown option "--sesions"; did you mean "--sessions"?'],
      [[...out, '--frobnicate'], 'Unknown option "--frobnicate".'],
      [[...out, '-x'], 'Unknown option "-x".'],
      [[...out, 'extra'], 'Unexpected argument "extra".'],
      [['statedb', 'generate', 'state.db'], 'Unexpected argument "state.db"; did you mean "--out state.db"?'],
      [[...out, '--force=yes'], '--force takes no value.'],
      [[...out, '--sessions', 'ten'], '--sessions must be a whole number from 1 to 1000000, not "ten".'],
      [[...out, '--sessions', '-3'], '--sessions must be a whole number from 1 to 1000000, not "-3".'],
      [[...out, '--sessions', '2.5'], '--sessions must be a whole number from 1 to 1000000, not "2.5".'],
      [[...out, '--messages', '0'], '--messages must be a whole number from 1 to 100000000, not "0".'],
      [[...out, '--seed', 'a', '--seed', 'b'], '--seed is given more than once.'],
      [[...out, '--journal', 'memory'], '--journal must be wal or delete, not "memory".'],
      [[...out, '--profile', 'v9', '--schema', '30'], '--schema 30 conflicts with --profile v9, which sets schema 9; give one or the other.'],
      [[...out, '--profile', 'wal-tail', '--journal', 'delete'], '--journal delete conflicts with --profile wal-tail, which sets journal wal; give one or the other.'],
      [[...out, '--profile', 'migrated', '--created-at', '30'], '--created-at 30 conflicts with --profile migrated, which sets created-at 12; give one or the other.'],
    ] as const;
    for (const [args, message] of cases) await expectRefusal([...args], usage(message), dir, inProcess);
    await expectRefusal([...out, '--schema', '31'], { status: 2, code: 'HERMETIC_STATEDB_SCHEMA', message: 'Schema version "31" is not known; use 1 to 30 or 30-pre-daily.' }, dir, inProcess);
    await expectRefusal([...out, '--schema', 'v9'], { status: 2, code: 'HERMETIC_STATEDB_SCHEMA', message: 'Schema version "v9" is not known; use 1 to 30 or 30-pre-daily.' }, dir, inProcess);
    await expectRefusal([...out, '--profile', 'nope'], {
      status: 2, code: 'HERMETIC_STATEDB_PROFILE',
      message: 'Unknown profile "nope"; known profiles: v2-early, v9, v11, mid, v22, v25, v30, v30-pre-daily, wal-tail, delete-journal, migrated, postgres-stale.',
    }, dir, inProcess);
    assert.deepEqual(readdirSync(dir), []);
  });

  it('inspect refuses a missing or extra PATH and unknown flags', async () => {
    // In process one at a time: the captures share console.
    await expectRefusal(['statedb', 'inspect'], usage('inspect needs exactly one PATH to a state.db.'), dir, inProcess);
    await expectRefusal(['statedb', 'inspect', ''], usage('inspect needs exactly one PATH to a state.db.'), dir, inProcess);
    await expectRefusal(['statedb', 'inspect', 'a.db', 'b.db'], usage('Unexpected argument "b.db".'), dir, inProcess);
    await expectRefusal(['statedb', 'inspect', 'a.db', '--jsn'], usage('Unknown option "--jsn"; did you mean "--json"?'), dir, inProcess);
  });
});

describe('files', () => {
  it('generate never replaces an existing file without --force, and --force replaces it', async () => {
    const work = join(dir, 'force');
    mkdirSync(work);
    writeFileSync(join(work, 'notes.txt'), 'my notes\n');
    await expectRefusal(['statedb', 'generate', '--out', 'notes.txt'], {
      status: 2, code: 'HERMETIC_STATEDB_EXISTS', message: 'notes.txt already exists; pass --force to replace it, or choose another --out.',
    }, work);
    assert.equal(readFileSync(join(work, 'notes.txt'), 'utf8'), 'my notes\n');
    const r = runBin(['statedb', 'generate', '--out', 'notes.txt', '--force', '--sessions', '2', '--seed', 's'], { cwd: work });
    assert.deepEqual([r.status, r.stderr], [0, '']);
    assert.match(r.stdout, /^wrote notes\.txt: schema v30, wal journal, \d+ sessions, \d+ messages\n$/);
    assert.equal(readFileSync(join(work, 'notes.txt')).subarray(0, 15).toString(), 'SQLite format 3');
    assert.deepEqual(readdirSync(work), ['notes.txt']);
  });

  it('generate into a folder, a missing folder or under a file fails with exit 1 and creates nothing', async () => {
    const work = join(dir, 'paths');
    mkdirSync(work);
    writeFileSync(join(work, 'file'), 'x');
    const write = (message: string) => ({ status: 1 as const, code: 'HERMETIC_STATEDB_WRITE', message });
    await Promise.all([
      expectRefusal(['statedb', 'generate', '--out', work], write(`Cannot write a state.db at ${work}: it is a folder, not a file.`), work),
      expectRefusal(['statedb', 'generate', '--out', work, '--force'], write(`Cannot write a state.db at ${work}: it is a folder, not a file.`), work),
      expectRefusal(['statedb', 'generate', '--out', 'no/such/x.db'], write('Cannot write a state.db at no/such/x.db: the folder no/such does not exist.'), work),
      expectRefusal(['statedb', 'generate', '--out', 'file/x.db'], write('Cannot write a state.db at file/x.db: file is not a folder.'), work),
    ]);
    assert.deepEqual(readdirSync(work), ['file']);
  });

  it('inspect of a text file, an empty file, a folder or a missing file fails with exit 1 and a code', async () => {
    const work = join(dir, 'inspect');
    mkdirSync(work);
    writeFileSync(join(work, 'notes.txt'), 'remember the milk\n');
    writeFileSync(join(work, 'empty.db'), '');
    const notSqlite = (message: string) => ({ status: 1 as const, code: 'HERMETIC_STATEDB_NOT_SQLITE', message });
    const open = (message: string) => ({ status: 1 as const, code: 'HERMETIC_STATEDB_OPEN', message });
    await Promise.all([
      expectRefusal(['statedb', 'inspect', 'notes.txt'], notSqlite("notes.txt is not a SQLite database (it does not start with SQLite's header)."), work),
      expectRefusal(['statedb', 'inspect', 'empty.db'], notSqlite('empty.db is empty, so it is not a SQLite database.'), work),
      expectRefusal(['statedb', 'inspect', '.'], open('Cannot open . read-only: it is a folder, not a file.'), work),
      expectRefusal(['statedb', 'inspect', 'missing.db'], open('Cannot open missing.db read-only: the file does not exist.'), work),
    ]);
    assert.deepEqual(readdirSync(work).sort(), ['empty.db', 'notes.txt']);
  });

  it('inspect of a WAL store reads its -wal rows and leaves the folder exactly as it was', () => {
    const work = join(dir, 'wal');
    mkdirSync(work);
    const g = runBin(['statedb', 'generate', '--out', 'state.db', '--profile', 'wal-tail', '--sessions', '20', '--seed', 't'], { cwd: work });
    assert.equal(g.status, 0, g.stderr);
    const sessions = Number(/, (\d+) sessions,/.exec(g.stdout)![1]);
    const before = readdirSync(work).sort().map((f) => `${f} ${sha(join(work, f))}`);
    assert.deepEqual(before.map((l) => l.split(' ')[0]), ['state.db', 'state.db-wal']);
    const r = runBin(['statedb', 'inspect', 'state.db', '--json'], { cwd: work });
    assert.deepEqual([r.status, r.stderr], [0, '']);
    const report = JSON.parse(r.stdout) as { journalMode: string; counts: Record<string, number> };
    assert.deepEqual([report.journalMode, report.counts.sessions], ['wal', sessions]);
    assert.deepEqual(readdirSync(work).sort().map((f) => `${f} ${sha(join(work, f))}`), before);
  });
});

describe('an interrupted generate', { concurrency: true }, () => {
  // A store far too big to finish: the signal always comes while it is being built.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`a ${signal} while the store is being built: its temporary files are removed, one line, exit 130`, async () => {
      const work = join(dir, `interrupted-${signal}`);
      mkdirSync(work);
      const p = spawnBin(['statedb', 'generate', '--out', 'state.db', '--sessions', '100000', '--seed', 'i'], { cwd: work });
      let ended = false;
      void p.exited.then(() => (ended = true));
      const tmp = await waitFor(() => {
        assert.ok(!ended, `generate ended before its temporary file appeared: ${p.output()}`);
        return readdirSync(work).find((f) => /^\.state\.db\.\d+-\d+\.tmp$/.test(f));
      }, 'the temporary store beside state.db');
      assert.equal(tmp, `.state.db.${p.child.pid}-1.tmp`);
      p.child.kill(signal);
      assert.equal(await p.exited, 130, p.output());
      assert.deepEqual({ stdout: p.stdout(), stderr: p.stderr() }, { stdout: '', stderr: 'hermetic: interrupted — nothing was written\n' });
      assert.deepEqual(readdirSync(work), []);
    });
  }

  it('the next generate to the same target removes what a process that is gone left behind, and nothing of a live one', async () => {
    const work = join(dir, 'stale');
    mkdirSync(work);
    // A pid that was, and is no more.
    const gone = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' });
    const dead = Number(gone.stdout.trim());
    const left = [`.state.db.${dead}-1.tmp`, `.state.db.${dead}-1.tmp-wal`, `.state.db.${dead}-1.tmp-shm`, `.state.db.${dead}-2.tmp.src-journal`, `.state.db.${dead}-3.tmp.config.yaml`];
    // A generate still running (this test's own process stands for it), another store's, and a file of the user's.
    const kept = [`.state.db.${process.pid}-1.tmp`, `.other.db.${dead}-1.tmp`, '.state.db.notes'];
    for (const f of [...left, ...kept]) writeFileSync(join(work, f), 'x');
    const r = await runBinAsync(['statedb', 'generate', '--out', 'state.db', '--sessions', '2', '--seed', 's'], { cwd: work });
    assert.deepEqual([r.status, r.stderr], [0, '']);
    assert.deepEqual(readdirSync(work).sort(), [...kept, 'state.db'].sort());
  });
});
