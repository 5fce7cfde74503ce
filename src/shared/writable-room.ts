// Waiting for a writable stream (stdout, an HTTP response) to take more, so a long output is written as fast as its
// reader reads it and never piles up in memory: `hermetic query`'s lines, the dashboard's whole texts.
import type { Writable } from 'node:stream';

/**
 * Resolves true once `stream` has room for more (at once, unless a slower reader let its buffer fill), false when it
 * cannot be written any more (its reader went away, it failed, or it was destroyed).
 * @example if (!res.write(chunk) && !(await writableRoom(res))) return;
 */
export async function writableRoom(stream: Writable): Promise<boolean> {
  if (stream.errored != null) return false;
  if (!stream.writableNeedDrain) return true;
  await new Promise<void>((resolve) => {
    const done = () => {
      for (const event of ['drain', 'error', 'close'] as const) stream.off(event, done);
      resolve();
    };
    for (const event of ['drain', 'error', 'close'] as const) stream.on(event, done);
  });
  return stream.errored == null && !stream.destroyed;
}
