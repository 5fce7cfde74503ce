// `hermetic serve`: flags (and Hermes's own API_SERVER_* variables) → emulator options → a running server that
// stops cleanly on SIGINT/SIGTERM.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { HermeticError } from '../../shared/errors.js';
import { pyStrip } from '../../shared/python/index.js';
import { HERMES_VERSION } from '../api/meta.js';
import { startServer, type ServerOptions } from './node.js';

export const SERVE_HELP = `Usage: hermetic serve [options]

Emulates Hermes Agent v${HERMES_VERSION} (release v2026.8.31) /v1/runs over HTTP, with a scriptable fake agent.

Options:
  --port N                  port to listen on (default 8642, or API_SERVER_PORT; 0 picks a free one)
  --host H                  address to bind (default 127.0.0.1, or API_SERVER_HOST)
  --db PATH                 idempotency store file (default: a file under the temp directory, named at start-up;
                            :memory: keeps nothing across restarts)
  --state-db PATH           also record every run into this Hermes-shaped state.db (created if missing)
  --api-key K               require "Authorization: Bearer K" (default API_SERVER_KEY; none = Hermes's test listener)
  --max-concurrent-runs N   capacity (default 10; 0 disables)
  --model NAME              advertised model name (default API_SERVER_MODEL_NAME, else hermes-agent)
  --cors-origins LIST       comma-separated allowed origins (default API_SERVER_CORS_ORIGINS; none refuses any Origin)
  --time EPOCH              start the clock at this epoch time in seconds (default: now)
  --frozen                  start with the clock frozen (move it with POST /__admin/clock)
  --seed S                  seed run ids and approval ids (repeatable sessions)
  -h, --help                show this help
`;

function usage(message: string): never {
  throw new HermeticError('HERMETIC_CLI_USAGE', `${message} Run "hermetic serve --help" for the options.`);
}

function integer(name: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^-?\d+$/.test(raw.trim())) usage(`--${name} must be a whole number; got "${raw}".`);
  const n = Number(raw);
  if (n < min || n > max) usage(`--${name} must be between ${min} and ${max}; got ${raw}.`);
  return n;
}

/** Turns argv and the environment into server options (throws HERMETIC_CLI_USAGE with a plain sentence). */
export function serveOptions(argv: string[], env: NodeJS.ProcessEnv): ServerOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        db: { type: 'string' },
        'state-db': { type: 'string' },
        'api-key': { type: 'string' },
        'max-concurrent-runs': { type: 'string' },
        model: { type: 'string' },
        'cors-origins': { type: 'string' },
        time: { type: 'string' },
        frozen: { type: 'boolean' },
        seed: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    usage((e as Error).message.replace(/\s*To specify.*$/s, '') + '.');
  }
  const v = parsed.values;
  if (v.help) return 'help';
  const port = integer('port', v.port ?? env.API_SERVER_PORT, 0, 65535) ?? 8642;
  const host = v.host ?? env.API_SERVER_HOST ?? '127.0.0.1';
  const time = v.time === undefined ? undefined : Number(v.time);
  if (time !== undefined && !Number.isFinite(time)) usage(`--time must be epoch seconds; got "${v.time}".`);
  const apiKey = v['api-key'] ?? env.API_SERVER_KEY ?? null;
  if (apiKey === '') usage('--api-key must not be empty.');
  const cors = v['cors-origins'] ?? env.API_SERVER_CORS_ORIGINS ?? '';
  return {
    port,
    host,
    db: v.db ?? join(tmpdir(), 'hermetic', `${host.replace(/[^\w.-]/g, '_')}-${port}`, 'runs_idempotency.db'),
    apiKey,
    stateDb: v['state-db'] ?? null,
    maxConcurrentRuns: integer('max-concurrent-runs', v['max-concurrent-runs'], -1_000_000, 1_000_000) ?? 10,
    modelName: v.model ?? env.API_SERVER_MODEL_NAME ?? 'hermes-agent',
    corsOrigins: cors.split(',').map(pyStrip).filter(Boolean),
    time: time ?? null,
    frozen: v.frozen ?? false,
    seed: v.seed ?? null,
  };
}

export async function serveCommand(argv: string[], out: (line: string) => void = console.log): Promise<number> {
  const options = serveOptions(argv, process.env);
  if (options === 'help') {
    out(SERVE_HELP);
    return 0;
  }
  const server = await startServer(options);
  const auth = options.apiKey ? ` -H 'Authorization: Bearer ${options.apiKey}'` : '';
  out(`hermetic: Hermes Agent v${HERMES_VERSION} /v1/runs emulator listening on ${server.url}`);
  out(`  store: ${options.db}`);
  if (options.stateDb) out(`  state.db: ${options.stateDb} (every run is recorded as Hermes's API server records it)`);
  out(`  auth:  ${options.apiKey ? 'API key required (Authorization: Bearer …)' : "none (Hermes's test-only listener)"}`);
  out(`  try:   curl -s -X POST ${server.url}/v1/runs${auth} -d '{"input":"hello"}'`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  out('hermetic: stopped');
  return 0;
}
