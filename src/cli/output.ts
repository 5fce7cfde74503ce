// What the process does when its output cannot be written, instead of Node's unhandled 'error' with its stack: a
// reader that went away (`hermetic report | head`) ends it quietly, as SIGPIPE ends a Unix tool; any other failure (a
// full disk under `> report.csv`) is said in one line on stderr with HERMETIC_CLI_OUTPUT, exit 1.
import { writableRoom } from '../shared/writable-room.js';

let installed = false;

/** The line said when stdout cannot be written for `e`, or null when its reader went away (nothing to say). */
export function outputFailure(e: NodeJS.ErrnoException): string | null {
  if (e.code === 'EPIPE') return null;
  const why = e.code === 'ENOSPC' ? 'the disk is full' : e.code === 'EDQUOT' ? 'the disk quota is used up' : e.message;
  return `hermetic: Cannot write the output: ${why}; what was printed is incomplete. [HERMETIC_CLI_OUTPUT]`;
}

/**
 * From now on a failed write to stdout or stderr ends the process as outputFailure says. A command that failed before
 * keeps its exit code; one whose reader went away ends with 0 (the reader took what it wanted).
 * @example outputErrorsSaid(); console.log(report);
 */
export function outputErrorsSaid(): void {
  if (installed) return;
  installed = true;
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    const line = outputFailure(e);
    if (line === null) process.exit(process.exitCode ?? 0);
    try {
      process.stderr.write(`${line}\n`);
    } finally {
      process.exit(1);
    }
  });
  // Nowhere left to say anything: ended as the same failure on stdout would end it.
  process.stderr.on('error', (e: NodeJS.ErrnoException) => process.exit(e.code === 'EPIPE' ? (process.exitCode ?? 0) : 1));
}

/**
 * Resolves true once stdout has room for more, false when it cannot be written any more (shared/writable-room.ts). A
 * command printing a long result awaits it after each line: it stops reading for nobody (`| head`), and what it printed
 * never piles up in memory (`| less`). The 'error' listener above ends the process as it says, a tick after the failed
 * write.
 * @example for (const line of lines) { console.log(line); if (!(await stdoutRoom())) break; }
 */
export function stdoutRoom(stream: NodeJS.WriteStream = process.stdout): Promise<boolean> {
  return writableRoom(stream);
}
