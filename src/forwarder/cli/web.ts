// `hermetic web`: the usage dashboard over the dataset (or the fleet store: --from postgres://…), on a local HTTP
// server (loopback unless --host says otherwise), read-only. Prints its URL; --open asks the desktop to open it. It
// answers only as the names --host implies and --allowed-host adds (DNS rebinding; web/hosts.ts, decision 0087).
// SIGINT and SIGTERM stop it cleanly, as they stop `serve`: the server closes, "stopped" is said, exit 0.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { looksLikeHost, looksLikePort, parseFlags, usageError, wholeNumber } from '../../cli/args.js';
import { listenForStop, type StopRequest } from '../../cli/stop-signals.js';
import { hermeticHome } from '../home.js';
import { DATASET_FILE } from '../sinks/sqlite/dataset.js';
import { explicitTimeZone, systemTimeZone, Zone } from '../ledger/zone.js';
import { sqliteDialect } from '../report/dialect.js';
import type { UsageSource } from '../web/data/source.js';
import { datasetFileSource } from '../web/data/dataset-file.js';
import { sqliteSource } from '../web/data/sqlite.js';
import { allowedHosts } from '../web/hosts.js';
import { DEFAULT_REFRESH_MS, startWebServer, type WebServer } from '../web/server.js';
import { durationSeconds } from '../../shared/duration.js';
import { COMMON_FLAGS, fleetFrom } from './common.js';
import { WEB_HELP } from './help.js';
import { localMachine, openForReport } from './report.js';
import { isLoopbackHost } from '../../shared/loopback.js';

/** The flags web parses (its help page documents each: help.test.ts). */
export const FLAGS = {
  home: COMMON_FLAGS.home, help: COMMON_FLAGS.help,
  port: { type: 'string', lone: looksLikePort }, host: { type: 'string', lone: looksLikeHost }, 'allowed-host': { type: 'string', multiple: true }, open: { type: 'boolean' },
  from: { type: 'string' }, utc: { type: 'boolean' }, refresh: { type: 'string' },
} as const;

/** --refresh: how often an open page asks whether the data changed (ms), null for `off` (decision 0119). */
function refreshOf(text: string | undefined): number | null {
  if (text === undefined) return DEFAULT_REFRESH_MS;
  if (text === 'off') return null;
  const seconds = durationSeconds(text);
  if (seconds === null || seconds < 1 || seconds > 3600) usageError(`--refresh must be a duration from 1s to 1h such as 5s or 1m, or off; got "${text}".`);
  return Math.round(seconds * 1000);
}

export interface WebIo {
  /** Milliseconds since the epoch (injected by tests and the screenshot script). */
  now?: () => number;
  /**
   * Receives the running server, and the command returns at once: the caller closes it (tests). Without it the command
   * runs until SIGINT or SIGTERM.
   */
  started?: (server: WebServer) => void;
}

/** The desktop's opener for a URL; failures are said, not fatal. */
function openBrowser(url: string): void {
  const [cmd, args] = process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  const child = spawn(cmd as string, args as string[], { stdio: 'ignore', detached: true });
  const failed = (why: string) => console.error(`hermetic: could not open a browser (${why}); open ${url} yourself.`);
  child.on('error', () => failed(`${cmd} failed`));
  // An opener that runs and finds no browser (xdg-open on a machine without a desktop exits 3) says so by its code.
  child.on('exit', (code) => { if (code !== null && code !== 0) failed(`${cmd} exited with code ${code}`); });
  child.unref();
}

export async function webCommand(argv: string[], io: WebIo = {}): Promise<number> {
  // Listening first, before anything is read, bound or printed (as serve does; main.ts leaves the signals to web): a
  // SIGINT or SIGTERM at any moment stops it with exit 0.
  const stop = io.started ? null : listenForStop();
  try {
    return await web(argv, io, stop);
  } finally {
    stop?.dispose();
  }
}

async function web(argv: string[], io: WebIo, stop: StopRequest | null): Promise<number> {
  const { values } = parseFlags(argv, FLAGS);
  if (values.help) return console.log(WEB_HELP), 0;
  const port = values.port === undefined ? 8650 : wholeNumber('--port', values.port, 0, 65535);
  const refreshMs = refreshOf(values.refresh);
  const host = values.host ?? '127.0.0.1';
  // Checked here, before anything is opened: a refused name is one line and exit 2.
  const allowed = allowedHosts(values['allowed-host'] ?? [], (rest) => usageError(`--allowed-host ${rest}`));
  fleetFrom(values.from);
  // Stopped while the modules loaded (the bin held the signal): nothing is opened.
  if (stop?.signal) return console.log('hermetic web: stopped'), 0;
  let source: UsageSource;
  if (values.from !== undefined) {
    // Read once before listening: a store nobody answers at (or without the fleet's tables) is one line and exit 1,
    // not a dashboard whose every page fails.
    const [{ postgresSource }, { readFleet }] = await Promise.all([import('../web/data/postgres.js'), import('../sinks/postgres/read.js')]);
    await readFleet(values.from, async () => undefined);
    source = postgresSource(values.from, new Zone(explicitTimeZone() ?? systemTimeZone()));
  } else {
    const home = hermeticHome(values.home);
    const dialect = sqliteDialect(localMachine(home));
    // Followed by its path: a dataset moved aside and built again, or deleted, under the running server (decision 0081).
    source = datasetFileSource(join(home, DATASET_FILE), () => openForReport(home), (db) => sqliteSource(db, dialect));
  }
  let server: WebServer;
  try {
    server = await startWebServer({ source, host, port, allowedHosts: allowed, now: io.now, utc: values.utc === true, refreshMs, onError: (e) => console.error('hermetic web: unexpected failure (a bug):', e) });
  } catch (e) {
    await source.close();
    throw e;
  }
  const close = async () => { await server.close(); await source.close(); };
  if (stop === null) {
    announce(values, host, allowed, server);
    io.started?.({ ...server, close });
    return 0;
  }
  // Stopped while it started: what it opened is closed, and no URL is given for a server that is going away.
  if (stop.signal === null) announce(values, host, allowed, server);
  await stop.stopped;
  await close();
  console.log('hermetic web: stopped');
  return 0;
}

/**
 * The dashboard's URL; a warning when it is open to the network, with the names it answers as, and when --allowed-host
 * '*' lets a rebinding page read it; --open hands the URL to the desktop.
 */
function announce(values: { from?: string; open?: true }, host: string, allowed: readonly string[], server: WebServer): void {
  const any = allowed.includes('*');
  const shown = host === '0.0.0.0' || host === '::' ? server.url.replace(/\/\/[^/]+:/, '//localhost:') : server.url;
  console.log(`hermetic web: the usage dashboard${values.from !== undefined ? ' of the fleet store' : ''} is at ${shown} (Ctrl-C stops it)`);
  const rebinding = 'a page on another site can read it through your browser (DNS rebinding)';
  if (!isLoopbackHost(host)) {
    console.error(`hermetic web: listening on ${host}: anyone who can reach this machine can read your usage; the dashboard has no login. It answers as ${server.answersAs}${any ? ` (--allowed-host '*'), so ${rebinding}` : '; --allowed-host NAME adds a name'}.`);
  } else if (any) {
    console.error(`hermetic web: --allowed-host '*': the dashboard answers as any name, so ${rebinding}.`);
  }
  if (values.open) openBrowser(shown);
}
