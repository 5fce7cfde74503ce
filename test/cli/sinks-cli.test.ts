// Remote sinks as a person meets them (decision 0035): --sink on backfill and forward, the config file's sinks: with
// did-you-mean refusals, status per sink, sinks remove, a bad URL refused before anything is read (and never a
// password printed), a failing sink leaving the dataset written and the run failed.
import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readSqliteSinkFile } from '../../src/forwarder/sinks/remote/sqlite-file.js';
import { copyFixture } from '../../src/state-db/testing/fixtures.js';
import { runMain } from '../support/process.js';
import { childEnv, spawnHermetic } from '../support/forwarder-harness.js';
import { waitFor } from '../support/wait.js';

let dir: string;
let store: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'hermetic-sinks-cli-'));
  mkdirSync(join(dir, 'fx'));
  store = copyFixture('basic', join(dir, 'fx'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const home = (name: string) => join(dir, 'homes', name);
const machineId = (h: string) => readFileSync(join(h, 'machine-id'), 'utf8').trim();

const count = (h: string, table: string) => {
  const db = new Database(join(h, 'hermetic.db'), { readonly: true });
  try {
    return db.prepare(`SELECT COUNT(*) FROM "${table}"`).pluck().get() as number;
  } finally {
    db.close();
  }
};

describe('hermetic backfill and forward with --sink', () => {
  it('backfill ships the dataset to a sqlite:// sink after the local pass; status shows it up to date; forward ships what changed', async () => {
    const h = home('ship');
    const copy = join(dir, 'copy.db');
    const r = await runMain(['backfill', '--state-db', store, '--home', h, '--sink', `sqlite://${copy}`]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^sink sqlite://${copy}: up to date \\([\\d,]+ rows in \\d+ batch(es)? sent\\)$`, 'm'));
    const held = readSqliteSinkFile(copy, machineId(h));
    assert.equal(held.messages!.length, count(h, 'messages'));
    assert.equal(held.sessions!.length, count(h, 'sessions'));
    const status = await runMain(['status', '--state-db', store, '--home', h, '--json']);
    const sinks = (JSON.parse(status.stdout) as { sinks: { display: string; lag_rows: number; lag_seconds: number; snapshot_pending: boolean; last_error: null }[] }).sinks;
    assert.deepEqual(sinks.map((s) => [s.display, s.lag_rows, s.lag_seconds, s.snapshot_pending, s.last_error]), [[`sqlite://${copy}`, 0, 0, false, null]]);
    const words = await runMain(['status', '--state-db', store, '--home', h]);
    assert.match(words.stdout, new RegExp(`^sink sqlite://${copy}\\n  acked seq \\d+, up to date; [\\d,]+ rows sent; last ack \\d{4}-`, 'm'));
    const once = await runMain(['forward', '--once', '--state-db', store, '--home', h, '--sink', `sqlite://${copy}`]);
    assert.equal(once.status, 0, once.stderr);
    assert.match(once.stderr, /sink sqlite:.*: up to date \(0 rows in 0 batches sent\)/);
    // sinks remove: the cursor, and with the last sink the log's triggers, go.
    const removed = await runMain(['sinks', 'remove', `sqlite://${copy}`, '--home', h]);
    assert.equal(removed.status, 0, removed.stderr);
    assert.match(removed.stdout, /removed; no sink is left, so the change log is gone too/);
    const db = new Database(join(h, 'hermetic.db'), { readonly: true });
    assert.equal(db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'change_log_%'").pluck().get(), 0);
    db.close();
    const again = await runMain(['sinks', 'remove', `sqlite://${copy}`, '--home', h]);
    assert.equal(again.status, 2);
    assert.match(again.stderr, /^hermetic: The dataset feeds no sink sqlite:.* \(it feeds none\)\. \[HERMETIC_SINK_UNKNOWN\]\n$/);
    // A home with no dataset: said, and no dataset made to say it.
    const none = home('no-dataset');
    const nothing = await runMain(['sinks', 'remove', `sqlite://${copy}`, '--home', none]);
    assert.equal(nothing.status, 2);
    assert.match(nothing.stderr, /The dataset feeds no sink sqlite:.*: there is no dataset in .*no-dataset yet\. \[HERMETIC_SINK_UNKNOWN\]/);
    assert.equal(existsSync(join(none, 'hermetic.db')), false);
  });

  it('the forward loop with --json says each sink pass that sent something as a hermetic.sink_ship line, and is quiet while nothing is new', async () => {
    const h = home('loop-json');
    const copy = join(dir, 'loop-copy.db');
    const fwd = spawnHermetic(['forward', '--state-db', store, '--home', h, '--interval', '50ms', '--json', '--sink', `sqlite://${copy}`], { env: childEnv(join(dir, 'loop-env')) });
    try {
      const lines = () => fwd.stdout().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
      const ships = () => lines().filter((l) => l.event === 'hermetic.sink_ship');
      const [first] = await waitFor(() => (ships().length > 0 ? ships() : null), 'a sink_ship line');
      assert.equal(first!.sink, `sqlite://${copy}`);
      assert.equal(first!.state, 'caught-up');
      assert.ok((first!.rows as number) > 0 && (first!.batches as number) > 0);
      assert.equal(first!.error, null);
      assert.equal(readSqliteSinkFile(copy, machineId(h)).messages!.length, count(h, 'messages'));
      // Five more ticks with nothing new: no more sink lines.
      const ticks = lines().filter((l) => l.event === 'hermes.poll_tick').length;
      await waitFor(() => lines().filter((l) => l.event === 'hermes.poll_tick').length >= ticks + 5, 'five more ticks');
      assert.equal(ships().length, 1);
    } finally {
      fwd.child.kill('SIGINT');
      await fwd.exited;
    }
    assert.match(fwd.stderr(), /forward: stopped/);
  });

  it('the config file\'s sinks: are shipped to, and its mistakes are refused with did-you-mean before anything is read', async () => {
    const h = home('config');
    mkdirSync(h, { recursive: true });
    const copy = join(dir, 'from-config.db');
    writeFileSync(join(h, 'config.yaml'), `sinks:\n  - url: sqlite://${copy}\n    redact: false\n`);
    const r = await runMain(['backfill', '--state-db', store, '--home', h]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^sink sqlite:.*from-config\.db: up to date/m);
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, `sinkz:\n  - sqlite://${copy}\n`);
    const h2 = home('config-typo');
    const typo = await runMain(['backfill', '--state-db', store, '--home', h2, '--config', bad]);
    assert.equal(typo.status, 2);
    assert.match(typo.stderr, /^hermetic: In .*bad\.yaml, sinkz: Unknown forwarder config option "sinkz"\. Did you mean "sinks"\? \[HERMETIC_OPTIONS_UNKNOWN\]/);
    writeFileSync(bad, `sinks:\n  - url: sqlite://${copy}\n    rdact: false\n`);
    const entry = await runMain(['backfill', '--state-db', store, '--home', h2, '--config', bad]);
    assert.match(entry.stderr, /^hermetic: In .*bad\.yaml, sinks\.0\.rdact: Unknown sink option "rdact"\. Did you mean "redact"\? \[HERMETIC_OPTIONS_UNKNOWN\]/);
    assert.equal(existsSync(join(h2, 'hermetic.db')), false, 'nothing was read or created');
  });

  it('a sink URL with an unknown scheme is refused before anything is read, with its password masked', async () => {
    const h = home('bad-url');
    const r = await runMain(['backfill', '--state-db', store, '--home', h, '--sink', 'postgress://me:hunter2@db.example/fleet']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^hermetic: No sink serves "postgress:\/\/" URLs; did you mean "postgres:\/\/"\? \(there are sqlite:\/\/, postgres:\/\/, postgresql:\/\/, otlp\+http:\/\/, otlp\+http-json:\/\/, otlp\+https:\/\/, otlp\+https-json:\/\/\)\. \[HERMETIC_SINK_URL\]/);
    assert.doesNotMatch(r.stderr + r.stdout, /hunter2/);
    assert.equal(existsSync(join(h, 'hermetic.db')), false);
    const notUrl = await runMain(['forward', '--once', '--state-db', store, '--home', h, '--sink', 'just-a-path.db']);
    assert.match(notUrl.stderr, /"just-a-path\.db" is not a sink URL; a sink is given as SCHEME:\/\/…/);
  });

  it('a sink refused at its first open leaves the dataset written, says why, fails the run, and is not kept as a sink', async () => {
    const h = home('failing');
    const broken = join(dir, 'broken.db');
    writeFileSync(broken, 'not a database at all '.repeat(200));
    const r = await runMain(['backfill', '--state-db', store, '--home', h, '--sink', `sqlite://${broken}`]);
    assert.equal(r.status, 1);
    assert.ok(count(h, 'messages') > 0, 'the dataset is written');
    assert.match(r.stderr, /hermetic: sink sqlite:.*broken\.db stopped: cannot open .*: file is not a database \(SQLITE_NOTADB\); the file is not a SQLite database this sink can use: name another file with --sink \(a sink already fed is removed with "hermetic sinks remove URL"\) \[HERMETIC_SINK_FAILED\]; it is not kept as a sink; the other sinks go on/);
    // The summary gives the code and what became of the sink; the sentence is said once, on stderr.
    assert.match(r.stdout, /^sink sqlite:.*broken\.db: stopped \[HERMETIC_SINK_FAILED\]$/m);
    assert.doesNotMatch(r.stdout, /not a database/);
    // Nothing grows for it: no sink row, no change log.
    const status = await runMain(['status', '--state-db', store, '--home', h]);
    assert.doesNotMatch(status.stdout, /broken\.db/);
    assert.equal(count(h, 'change_log'), 0);
  });

  it('a sink whose folder does not exist is not made: the run fails and says so; status says when it is tried again', async () => {
    const h = home('missing-folder');
    const target = join(dir, 'not-made', 'copy.db');
    const r = await runMain(['backfill', '--state-db', store, '--home', h, '--sink', `sqlite://${target}`]);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /the folder .*not-made does not exist \(create it, or mount its disk\)/);
    assert.equal(existsSync(join(dir, 'not-made')), false);
    const status = await runMain(['status', '--state-db', store, '--home', h]);
    assert.match(status.stdout, /last error \(1 failure\): cannot open .*not-made.* does not exist.*\[HERMETIC_[A-Z_]+\]\n {2}(next retry after \d{4}-|tried again by the next backfill or forward that feeds it)/);
  });

  it('--help says redaction is on by default for sinks that leave the machine', async () => {
    const r = await runMain(['backfill', '--help']);
    assert.match(r.stdout, /Redaction is ON by default for every sink that leaves the machine/);
    assert.match(r.stdout, /--no-redact turns that off/);
  });
});
