// `hermetic serve` as a person meets it, through the real bin: help, plain refusals with codes and exit codes, the
// start-up banner, and store paths that must already have their folder.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { serveOptions } from '../../src/emulator/serve/cli.js';
import { HermeticError } from '../../src/shared/errors.js';
import { runBin, runBinAsync, spawnServe } from '../support/process.js';
import { waitFor } from '../support/wait.js';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'hermetic-serve-cli-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const HELP_LINE = 'Run "hermetic serve --help" for the options.\n';

async function expectLines(args: string[], status: 1 | 2, line: string, env: NodeJS.ProcessEnv = {}): Promise<void> {
  const r = await runBinAsync(args, { cwd: dir, env });
  assert.deepEqual({ status: r.status, stdout: r.stdout, stderr: r.stderr }, { status, stdout: '', stderr: `hermetic: ${line}\n${status === 2 ? HELP_LINE : ''}` }, args.join(' '));
}

it('serve --help lists the options and exits 0', () => {
  const r = runBin(['serve', '--help']);
  assert.equal(r.status, 0);
  assert.match(r.stdout, /--max-concurrent-runs N/);
  assert.equal(r.stderr, '');
});

it('an unknown, malformed or missing flag is one plain line with a code and exit 2, never a stack trace', async () => {
  await Promise.all([
    expectLines(['serve', '--prot', '1'], 2, 'Unknown option "--prot"; did you mean "--port"? [HERMETIC_CLI_USAGE]'),
    expectLines(['serve', '--port', '-1'], 2, '--port must be between 0 and 65535; got -1. [HERMETIC_CLI_USAGE]'),
    expectLines(['serve', '--frozen=yes'], 2, '--frozen takes no value. [HERMETIC_CLI_USAGE]'),
    expectLines(['serve'], 2, 'API_SERVER_PORT must be a whole number; got "http". [HERMETIC_CLI_USAGE]', { API_SERVER_PORT: 'http' }),
    runBinAsync(['nope']).then((r) => {
      // A refusal before any command names the top-level help.
      assert.deepEqual([r.status, r.stderr], [2, 'hermetic: Unknown command "nope"; use serve, statedb, backfill, forward, status, report, export, web, query, policy, forget or sinks. [HERMETIC_CLI_USAGE]\nRun "hermetic --help" for the commands.\n']);
    }),
    // What the line quotes is shown harmless: a line break, an escape sequence or a bidi override cannot end the line
    // early, colour the terminal or turn the rest of it around.
    expectLines(['serve', '--port', '1\n\u001b[31mx\u202e'], 2, '--port must be a whole number; got "1\\n\\u001b[31mx\\u202e". [HERMETIC_CLI_USAGE]'),
    runBinAsync(['nope\u001b[2J\u202e']).then((r) => {
      assert.deepEqual([r.status, r.stderr], [2, 'hermetic: Unknown command "nope␛[2J\\u202e"; use serve, statedb, backfill, forward, status, report, export, web, query, policy, forget or sinks. [HERMETIC_CLI_USAGE]\nRun "hermetic --help" for the commands.\n']);
    }),
  ]);
});

it('every other flag mistake is refused with HERMETIC_CLI_USAGE and one sentence (the same parser, in process)', () => {
  for (const [args, message, env] of [
    [['--port', 'eighty'], '--port must be a whole number; got "eighty".'],
    [['--port', '70000'], '--port must be between 0 and 65535; got 70000.'],
    [['--port', '8642.5'], '--port must be a whole number; got "8642.5".'],
    [['--port'], '--port needs a value.'],
    [['--db', '--frozen'], '--db needs a value.'],
    [['--port', '1', '--port', '2'], '--port is given more than once.'],
    [['now'], 'Unexpected argument "now".'],
    // A stray word that looks like a flag's value names the flag (decision 0107); the command is still refused.
    [['9000'], 'Unexpected argument "9000"; did you mean "--port 9000"?'],
    [['--port', '9000', '0.0.0.0'], 'Unexpected argument "0.0.0.0"; did you mean "--host 0.0.0.0"?'],
    [['runs.db'], 'Unexpected argument "runs.db"; did you mean "--db runs.db"?'],
    [['~/.hermes/state.db'], 'Unexpected argument "~/.hermes/state.db"; did you mean "--state-db ~/.hermes/state.db"?'],
    [['--port', '1', '2'], 'Unexpected argument "2".'],
    [['-p', '80'], 'Unknown option "-p".'],
    [['--max-concurrent-runs', 'lots'], '--max-concurrent-runs must be a whole number; got "lots".'],
    [['--max-concurrent-runs', '1e3'], '--max-concurrent-runs must be a whole number; got "1e3".'],
    [['--host', ''], '--host must not be empty.'],
    [['--db', ''], '--db must not be empty.'],
    [['--state-db', ''], '--state-db must not be empty.'],
    [['--seed', ''], '--seed must not be empty.'],
    [['--state-home', '/tmp', '--state-db', '/tmp/s.db'], '--state-db and --state-home both record the runs (one file, or a Hermes home of one per profile): give one.'],
    [['--state-home', '/tmp', '--profile', 'a.b=k'], 'Profile "a.b" cannot have a folder in the --state-home Hermes home: Hermes names profiles with [a-z0-9][a-z0-9_-]{0,63}.'],
    [[], 'API_SERVER_PORT must be between 0 and 65535; got 99999.', { API_SERVER_PORT: '99999' }],
  ] as const) {
    assert.throws(() => serveOptions([...args], { ...env }), (e: HermeticError) => {
      assert.deepEqual([e.code, e.message], ['HERMETIC_CLI_USAGE', message], args.join(' '));
      return true;
    });
  }
});

it('a --db, --state-db or --state-home whose folder is missing, or that is under a file or is a folder, fails with exit 1 and creates nothing', async () => {
  const work = join(dir, 'stores');
  mkdirSync(work);
  writeFileSync(join(work, 'file'), 'x');
  writeFileSync(join(work, 'empty.db'), '');
  const home = join(work, 'home');
  mkdirSync(join(home, 'profiles', 'work'), { recursive: true });
  writeFileSync(join(home, 'profiles', 'work', 'state.db'), '');
  const missing = join(work, 'no', 'such', 'runs.db');
  await Promise.all([
    expectLines(['serve', '--port', '0', '--db', missing], 1,
      `Cannot open the --db store at ${missing}: the folder ${join(work, 'no', 'such')} does not exist. [HERMETIC_STORE_OPEN]`),
    expectLines(['serve', '--port', '0', '--db', ':memory:', '--state-db', join(work, 'file', 's.db')], 1,
      `Cannot open the --state-db store at ${join(work, 'file', 's.db')}: ${join(work, 'file')} is not a folder. [HERMETIC_STORE_OPEN]`),
    expectLines(['serve', '--port', '0', '--db', ':memory:', '--state-db', join(work, 'no', 's.db')], 1,
      `Cannot open the --state-db store at ${join(work, 'no', 's.db')}: the folder ${join(work, 'no')} does not exist. [HERMETIC_STORE_OPEN]`),
    expectLines(['serve', '--port', '0', '--db', work], 1, `Cannot open the --db store at ${work}: it is a folder, not a file. [HERMETIC_STORE_OPEN]`),
    expectLines(['serve', '--port', '0', '--db', ':memory:', '--state-db', join(work, 'file')], 1,
      `Cannot open the --state-db store at ${join(work, 'file')}: it is not a SQLite database (it does not start with SQLite's header). [HERMETIC_STORE_OPEN]`),
    expectLines(['serve', '--port', '0', '--db', ':memory:', '--state-db', join(work, 'empty.db')], 1,
      `Cannot open the --state-db store at ${join(work, 'empty.db')}: it is empty, so it is not a SQLite database. [HERMETIC_STORE_OPEN]`),
    expectLines(['serve', '--port', '0', '--db', ':memory:', '--state-home', join(work, 'no')], 1,
      `Cannot record into the --state-home Hermes home at ${join(work, 'no')}: it does not exist. [HERMETIC_STORE_OPEN]`),
    expectLines(['serve', '--port', '0', '--db', ':memory:', '--state-home', join(work, 'file')], 1,
      `Cannot record into the --state-home Hermes home at ${join(work, 'file')}: it is a file, not a folder. [HERMETIC_STORE_OPEN]`),
    // A profile's store already there is recorded into as it is: it must be a SQLite store.
    expectLines(['serve', '--port', '0', '--db', ':memory:', '--state-home', home, '--profile', 'work=k'], 1,
      `Cannot open the --state-home (profile work) store at ${join(home, 'profiles', 'work', 'state.db')}: it is empty, so it is not a SQLite database. [HERMETIC_STORE_OPEN]`),
  ]);
  assert.deepEqual(readdirSync(work).sort(), ['empty.db', 'file', 'home']);
  assert.deepEqual(readdirSync(home), ['profiles'], 'no state.db made for the default profile');
  assert.equal(readFileSync(join(work, 'file'), 'utf8'), 'x');
  assert.equal(existsSync(join(work, 'no')), false);
});

it('without --db, two servers keep private stores: a key used on one never replays on the other, and nothing is written to the temp directory', async () => {
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp);
  const [a, b] = await Promise.all([spawnServe(['--port', '0'], { TMPDIR: tmp }), spawnServe(['--port', '0'], { TMPDIR: tmp })]);
  try {
    assert.match(a.output(), /store: private to this process/);
    const post = (url: string) =>
      fetch(`${url}/v1/runs`, { method: 'POST', headers: { 'Idempotency-Key': 'same' }, body: '{"input":"x"}' }).then((r) => r.json() as Promise<{ replayed: boolean }>);
    assert.equal((await post(a.url)).replayed, false);
    assert.equal((await post(b.url)).replayed, false);
    assert.equal((await post(a.url)).replayed, true);
    assert.deepEqual(readdirSync(tmp), []);
  } finally {
    a.child.kill('SIGTERM');
    b.child.kill('SIGTERM');
    assert.deepEqual([await a.exited, await b.exited], [0, 0]);
  }
});

it('a store that fails a request (a lock held past --lock-timeout) gets aiohttp\'s 500 page, says why on stderr, keeps nothing and lives on', async () => {
  const db = join(dir, 'locked.db');
  const server = await spawnServe(['--port', '0', '--db', db, '--lock-timeout', '0.2', '--quiet']);
  const submit = () => fetch(`${server.url}/v1/runs`, { method: 'POST', headers: { 'Idempotency-Key': 'k' }, body: '{"input":"x"}' });
  try {
    const other = new Database(db);
    other.exec('BEGIN IMMEDIATE');
    try {
      const refused = await submit();
      assert.deepEqual([refused.status, await refused.text()], [500, '500 Internal Server Error\n\nServer got itself in trouble']);
      const line = await waitFor(() => server.output().split('\n').find((l) => l.includes('500 page')), 'the line that says why');
      assert.match(line, /^hermetic: POST \/v1\/runs answered aiohttp's 500 page, as Hermes does when its store raises: The store is locked by another connection \(.+\): database is locked$/);
    } finally {
      other.exec('COMMIT');
      other.close();
    }
    // Nothing of the refused request was kept: the key starts a new run.
    const accepted = await submit();
    assert.equal(accepted.status, 202);
    assert.equal(((await accepted.json()) as { replayed: boolean }).replayed, false);
  } finally {
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
  }
  assert.doesNotMatch(server.output(), /internal error|^\s+at /m);
});

it('--run-table and --lock-timeout reach the emulator, and bad values are refused', () => {
  const plain = serveOptions(['--run-table', 'plain', '--lock-timeout', '0.5'], {});
  assert.ok(plain !== 'help');
  assert.deepEqual([plain.runTable, plain.lockTimeout, plain.db], ['plain', 0.5, null]);
  assert.throws(() => serveOptions(['--run-table', 'quick'], {}), (e: HermeticError) => {
    assert.deepEqual([e.code, e.message], ['HERMETIC_CLI_USAGE', '--run-table must be fast or plain; got "quick".']);
    return true;
  });
  assert.throws(() => serveOptions(['--lock-timeout', '-1'], {}), (e: HermeticError) => {
    assert.deepEqual([e.code, e.message], ['HERMETIC_CLI_USAGE', '--lock-timeout must be a number of seconds, 0 or more; got "-1".']);
    return true;
  });
});

it('HERMES_REDACT_SECRETS is read as Hermes reads it, over the config file\'s redactSecrets; unset and absent, the option is left to its default (on)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hermetic-redact-'));
  const config = join(dir, 'hermetic.json');
  writeFileSync(config, JSON.stringify({ redactSecrets: false }));
  const read = (argv: string[], env: NodeJS.ProcessEnv) => {
    const o = serveOptions(argv, env);
    assert.ok(o !== 'help');
    return o.redactSecrets;
  };
  assert.equal(read([], {}), undefined);
  assert.equal(read([], { HERMES_REDACT_SECRETS: 'false' }), false);
  assert.equal(read([], { HERMES_REDACT_SECRETS: '' }), false);
  assert.equal(read([], { HERMES_REDACT_SECRETS: 'Yes' }), true);
  assert.equal(read(['--config', config], {}), false);
  assert.equal(read(['--config', config], { HERMES_REDACT_SECRETS: 'on' }), true);
  rmSync(dir, { recursive: true, force: true });
});

it('flags override Hermes environment variables; defaults are 127.0.0.1:8642', () => {
  const fromEnv = serveOptions([], { API_SERVER_KEY: 'env-key-0123456789', API_SERVER_PORT: '9000', API_SERVER_CORS_ORIGINS: 'http://a, http://b' });
  assert.ok(fromEnv !== 'help');
  assert.equal(fromEnv.port, 9000);
  assert.equal(fromEnv.apiKey, 'env-key-0123456789');
  assert.deepEqual(fromEnv.corsOrigins, ['http://a', 'http://b']);
  const flags = serveOptions(['--port', '1234', '--api-key', 'flag-key'], { API_SERVER_PORT: '9000', API_SERVER_KEY: 'x' });
  assert.ok(flags !== 'help');
  assert.equal(flags.port, 1234);
  assert.equal(flags.apiKey, 'flag-key');
  const defaults = serveOptions([], {});
  assert.ok(defaults !== 'help');
  assert.equal(defaults.port, 8642);
  assert.equal(defaults.host, '127.0.0.1');
  // An empty API_SERVER_KEY is no key, as Hermes reads it; an empty --api-key is a mistake.
  const noKey = serveOptions([], { API_SERVER_KEY: '' });
  assert.ok(noKey !== 'help');
  assert.equal(noKey.apiKey, null);
  assert.throws(() => serveOptions(['--api-key', ''], {}), (e: HermeticError) => {
    assert.deepEqual([e.code, e.message], ['HERMETIC_CLI_USAGE', '--api-key must not be empty.']);
    return true;
  });
  const noOrigins = serveOptions(['--cors-origins', ''], {});
  assert.ok(noOrigins !== 'help');
  assert.deepEqual(noOrigins.corsOrigins, []);
});

it('HERMES_REDACT_SECRETS=false reaches the server: the banner says redaction is off, and the recorded answer is kept as given (decision 0165)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hermetic-redact-serve-'));
  const stateDb = join(dir, 'state.db');
  const secret = 'sk-proj-abcdefghijklmnop1234';
  const server = await spawnServe(['--port', '0', '--quiet', '--state-db', stateDb], { HERMES_REDACT_SECRETS: 'false' });
  try {
    assert.match(server.output(), /redaction: off \(HERMES_REDACT_SECRETS, or redactSecrets in the config\)/);
    const run = ((await (await fetch(`${server.url}/v1/runs`, { method: 'POST', body: '{"input":"hi","session_id":"s1"}' })).json()) as { run_id: string }).run_id;
    assert.equal((await fetch(`${server.url}/__admin/runs/${run}/complete`, { method: 'POST', body: JSON.stringify({ output: `The key is ${secret}.` }) })).status, 200);
  } finally {
    server.child.kill('SIGINT');
    assert.equal(await server.exited, 0);
  }
  const db = new Database(stateDb, { readonly: true });
  try {
    assert.deepEqual(db.prepare("SELECT content FROM messages WHERE role = 'assistant'").pluck().all(), [`The key is ${secret}.`]);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

it('the banner names the address, the store and a curl example; a taken port is a plain error', async () => {
  const server = await spawnServe(['--port', '0', '--db', ':memory:']);
  try {
    assert.match(server.output(), /store: :memory: \(Hermes's in-memory fallback/);
    assert.doesNotMatch(server.output(), /redaction:/, 'redaction on, as by default, is not a line of its own');
    assert.match(server.output(), /try: {3}curl -s -X POST http:\/\/127\.0\.0\.1:\d+\/v1\/runs/);
    const port = new URL(server.url).port;
    await expectLines(['serve', '--port', port, '--db', ':memory:'], 1, `Cannot listen on 127.0.0.1:${port}: the port is already in use; give another with --port N (0 picks a free one). [HERMETIC_SERVE_LISTEN]`);
  } finally {
    server.child.kill('SIGINT');
    assert.equal(await server.exited, 0);
  }
});
