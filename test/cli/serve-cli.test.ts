// `hermetic serve` as a person meets it: help, plain usage errors with codes, the start-up banner.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { it } from 'node:test';
import { serveOptions } from '../../src/emulator/serve/cli.js';
import { HermeticError } from '../../src/shared/errors.js';
import { spawnServe } from '../support/process.js';

const run = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { encoding: 'utf8', timeout: 30_000 });

it('serve --help lists the options and exits 0', () => {
  const r = run('serve', '--help');
  assert.equal(r.status, 0);
  assert.match(r.stdout, /--max-concurrent-runs N/);
});

it('an unknown flag or a bad number is one plain line with a code and exit 2, never a stack trace', () => {
  for (const [args, text] of [
    [['serve', '--prot', '1'], "Unknown option '--prot'"],
    [['serve', '--port', 'eighty'], '--port must be a whole number; got "eighty".'],
    [['serve', '--port', '70000'], '--port must be between 0 and 65535; got 70000.'],
    [['nope'], 'unknown command "nope"'],
  ] as const) {
    const r = run(...args);
    assert.equal(r.status, 2, r.stderr);
    assert.ok(r.stderr.includes(text), r.stderr);
    assert.match(r.stderr, /HERMETIC_CLI_USAGE/);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  }
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
  assert.throws(() => serveOptions(['--api-key', ''], {}), HermeticError);
});

it('the banner names the address, the store and a curl example; a taken port is a plain error', async () => {
  const server = await spawnServe(['--port', '0', '--db', ':memory:']);
  try {
    assert.match(server.output(), /store: :memory:/);
    assert.match(server.output(), /try: {3}curl -s -X POST http:\/\/127\.0\.0\.1:\d+\/v1\/runs/);
    const port = new URL(server.url).port;
    const clash = run('serve', '--port', port, '--db', ':memory:');
    assert.equal(clash.status, 1);
    assert.match(clash.stderr, /the port is already in use\. \[HERMETIC_SERVE_LISTEN\]/);
  } finally {
    server.child.kill('SIGINT');
    assert.equal(await server.exited, 0);
  }
});
