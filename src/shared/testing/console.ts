// What a command run in this process prints: console.log and console.error captured while it runs, one entry per call
// (as the bin's stdout and stderr would hold its lines), and put back whatever happens. For tests only.

export interface Printed<T> {
  value: T;
  out: string[];
  err: string[];
}

/**
 * Runs `run` with the console captured.
 * @example const { value: code, out } = await printed(() => reportCommand(['--json'])); JSON.parse(out.join('\n'));
 */
export async function printed<T>(run: () => T | Promise<T>): Promise<Printed<T>> {
  const out: string[] = [];
  const err: string[] = [];
  const { log, error } = console;
  console.log = (...a: unknown[]) => void out.push(a.join(' '));
  console.error = (...a: unknown[]) => void err.push(a.join(' '));
  try {
    return { value: await run(), out, err };
  } finally {
    console.log = log;
    console.error = error;
  }
}
