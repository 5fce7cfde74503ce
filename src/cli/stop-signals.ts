// SIGINT and SIGTERM heard from the bin's first line on (bin/hermetic.js holds them before the CLI's modules load), so
// a stop request at any moment after the process starts reaches the command: `serve`, `forward` and `web` stop cleanly
// with exit 0, even before they bound or opened anything; `statedb generate` cleans up and exits 130
// (state-db/cli.ts); every other command ends as the signal would have ended it.
// No imports: the bin loads this module on its own, before everything else.

export type StopSignal = 'SIGINT' | 'SIGTERM';
const SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM'];

interface Hold {
  signal: StopSignal | null;
  readonly waiters: Set<(signal: StopSignal) => void>;
  readonly listener: (signal: StopSignal) => void;
}

let hold: Hold | null = null;

function listen(): Hold {
  const h: Hold = {
    signal: null,
    waiters: new Set(),
    listener: (signal) => {
      h.signal ??= signal;
      for (const w of [...h.waiters]) w(signal);
    },
  };
  for (const s of SIGNALS) process.on(s, h.listener);
  return h;
}

function unlisten(h: Hold): void {
  for (const s of SIGNALS) process.off(s, h.listener);
}

/**
 * From now on a SIGINT or SIGTERM is remembered instead of ending the process, until a command takes it over
 * (`listenForStop`) or gives it back (`releaseStopSignals`). Called first by the bin, before the CLI's modules load.
 * @example holdStopSignals(); const { main } = await import('../dist/cli/main.js');
 */
export function holdStopSignals(): void {
  hold ??= listen();
}

/**
 * For a command that does not stop cleanly on a signal: SIGINT and SIGTERM take node's default action again (the
 * process ends by the signal), and one that arrived while they were held ends the process now. Resolves only when
 * no signal was held.
 */
export async function releaseStopSignals(): Promise<void> {
  const h = hold;
  if (!h) return;
  hold = null;
  unlisten(h);
  if (h.signal === null) return;
  process.kill(process.pid, h.signal);
  // The signal ends the process as soon as it is delivered; until then the event loop stays alive (and should another
  // listener have kept it from ending the process, the exit status is the one a shell gives a process it ended).
  await new Promise<never>(() => setTimeout(() => process.exit(h.signal === 'SIGINT' ? 130 : 143), 1000));
}

export interface StopRequest {
  /** The signal that asked the command to stop, or null while none has. */
  readonly signal: StopSignal | null;
  /** Resolves with that signal (at once when it came before). */
  readonly stopped: Promise<StopSignal>;
  /** Stops listening: SIGINT and SIGTERM take node's default action again. */
  dispose(): void;
}

/**
 * For a command that stops cleanly on SIGINT or SIGTERM (`serve`, `forward`, `web`): call it first, before anything is
 * read, opened, bound or printed. A signal the bin held counts. After the first signal the listeners are gone, so a
 * second one ends the process at once (a stop that hangs can still be interrupted).
 * @example const stop = listenForStop(); try { …start…; await stop.stopped; …close… } finally { stop.dispose(); }
 */
export function listenForStop(): StopRequest {
  const h = hold ?? listen();
  hold = null;
  let resolve!: (signal: StopSignal) => void;
  const stopped = new Promise<StopSignal>((r) => (resolve = r));
  let disposed = false;
  const dispose = () => {
    if (disposed) return;
    disposed = true;
    h.waiters.clear();
    unlisten(h);
  };
  const heard = (signal: StopSignal) => {
    resolve(signal);
    dispose();
  };
  if (h.signal !== null) heard(h.signal);
  else h.waiters.add(heard);
  return {
    get signal() {
      return h.signal;
    },
    stopped,
    dispose,
  };
}
