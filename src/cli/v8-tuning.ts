// V8's settings for the commands that read a whole store (backfill, forward): TurboFan compiles without inlining,
// and later.
// On two busy cores a backfill's optimizing compiles compete with its own two threads, and inlining makes the large
// per-session functions (the ledger's allocation, the projector) cost 100–180 ms a compile; measured whole process,
// the passes are faster without it (decision 0044, fifth addendum). The emulator keeps V8's defaults.
import { setFlagsFromString } from 'node:v8';

/** The flags, each unless the process's command line or NODE_OPTIONS already sets it. */
const FLAGS: ReadonlyArray<[name: string, flag: string]> = [
  ['turbo-inlining', '--no-turbo-inlining'],
  // Four times V8's default (67,584): a function is optimized after more runs, so fewer compiles of code that runs
  // a few thousand times (once per session) and fewer recompiles after the first rows of a new shape.
  ['interrupt-budget', '--interrupt-budget=270336'],
];

/** Sets FLAGS for this process (those its command line or NODE_OPTIONS does not set); returns the flags it set. */
export function tuneForBulkReads(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS ?? ''): string[] {
  const given = (name: string) => execArgv.some((a) => a.includes(name)) || nodeOptions.includes(name);
  const set = FLAGS.filter(([name]) => !given(name)).map(([, flag]) => flag);
  // Process-wide and read by every compile after this one, the read worker's included (V8 flags are not per isolate).
  for (const flag of set) setFlagsFromString(flag);
  return set;
}
