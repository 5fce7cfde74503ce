// GET /v1/runs/{run_id}/events: attaches a subscriber to the run's single buffer (spec runs-api §8).
// Subscribers compete for events; keep-alive after 30 s of clock silence; the buffer is deleted when a
// subscriber's handler exits, however it exits.
import type { Clock, Timer } from '../../shared/clock.js';
import type { HttpResponse, StreamSink } from '../http.js';
import type { BufferItem, EventBuffer } from '../runs/event-log.js';
import { hermesErrors } from '../runs/hermes-errors.js';
import type { RunRegistry } from '../runs/registry.js';
import { errorResponse } from '../wire/responses.js';
import type { PyDict } from '../../shared/python/index.js';
import { CLOSED_FRAME, dataFrame, KEEPALIVE_FRAME, SSE_HEADERS } from '../wire/sse.js';
import type { ApiContext } from './context.js';

const KEEPALIVE_SECONDS = 30;
/**
 * aiohttp's StreamWriter.write awaits drain() only once more than this many bytes went out since it last did (its
 * LIMIT); the drain then waits only while the transport is past its high-water mark (decision 0083).
 */
const DRAIN_CHECK_BYTES = 0x10000;
/** Hermes polls 20 × 50 ms for a buffer that may be created by a racing POST. */
const BUFFER_WAIT_SECONDS = 1;

/** Waits on the clock; a frozen clock would never get there, so it answers at once. */
function clockDelay(clock: Clock, seconds: number): Promise<void> {
  if (clock.frozen) return Promise.resolve();
  return new Promise((resolve) => clock.schedule(seconds, resolve));
}

export async function runEvents(ctx: ApiContext): Promise<HttpResponse> {
  const { service, registry, clock } = ctx.deps;
  const runId = ctx.params.run_id!;
  const found = service.stream(ctx.scope, runId);
  if (!found.ok) return errorResponse(found.error);
  let buffer = found.value;
  if (buffer === 'gone') {
    await clockDelay(clock, BUFFER_WAIT_SECONDS);
    buffer = registry.buffers.get(runId) ?? 'gone';
    if (buffer === 'gone') return errorResponse(hermesErrors.runNotFound(runId));
  }
  const attached = buffer;
  attached.subscribers++;
  return {
    status: 200,
    headers: [...SSE_HEADERS],
    body: null,
    stream: (sink) =>
      subscribe(runId, attached, sink, clock, registry, {
        frame: dataFrame,
        endFrame: CLOSED_FRAME,
        // Hermes's finally: the run's buffer goes, whichever subscriber left (spec §8.6).
        exited: () => registry.releaseBuffer(runId, attached),
      }),
  };
}

/** How a subscriber writes its events and what it does as it leaves (the run events route, a session chat stream). */
export interface Framing {
  /** An event's bytes; null when they cannot be written (Python's encode raised: the handler's loop ends there). */
  frame(event: PyDict, name: string | undefined): string | null;
  /** Written once the end sentinel is taken (null: nothing, the body just ends). */
  endFrame: string | null;
  /** The handler's finally, however it exits. */
  exited(): void;
  /** A write failed: the client went away (before `exited`). */
  departed?(): void;
  /** Frames may hold non-ASCII text (ensure_ascii=False): count their UTF-8 bytes towards the drain check. */
  utf8?: boolean;
}

/**
 * One subscriber's loop: drain what is queued, then wait for the next item or 30 s of silence. Used by the run events
 * route and the session chat stream (decision 0145), which write frames the same way and differ only in `framing`.
 */
export function subscribe(runId: string, buffer: EventBuffer, sink: StreamSink, clock: Clock, registry: RunRegistry, framing: Framing): void {
  let done = false;
  let keepalive: Timer | null = null;
  let cancelWait: () => void = () => {};
  let detach: () => void = () => {};

  /** The handler's end; `cut`: the gateway crashed under it, so the connection drops instead of the body ending. */
  const exit = (cut = false, departed = false): void => {
    if (done) return;
    done = true;
    keepalive?.cancel();
    cancelWait();
    buffer.subscribers--;
    detach();
    if (departed) framing.departed?.();
    if (cut && sink.abort) sink.abort();
    else sink.end();
    framing.exited();
  };

  /** Bytes written since the last drain check (aiohttp's buffer_size). */
  let unchecked = 0;
  /** Parked in a drain: the handler is inside `await response.write()`, so it takes nothing and sends no keep-alive. */
  let parked = false;

  /**
   * Writes one frame, as `await response.write(frame)`: false when the client is gone. Past the drain check with the
   * transport backed up (a client that stopped reading), the subscriber parks until it drains, then `then` goes on;
   * if the client leaves meanwhile the drain fails and the handler exits at once.
   */
  const write = (frame: string, then: () => void): boolean => {
    if (!sink.write(frame)) return false;
    // json.dumps's frames are ASCII (characters are bytes); ensure_ascii=False ones are counted in UTF-8.
    unchecked += framing.utf8 ? Buffer.byteLength(frame) : frame.length;
    if (unchecked > DRAIN_CHECK_BYTES) {
      unchecked = 0;
      const drain = sink.drained?.();
      if (drain) {
        parked = true;
        void drain.then((ok) => {
          parked = false;
          if (done) return;
          if (ok) then();
          else exit(false, true);
        });
      }
    }
    return true;
  };

  /** Writes one item; false when the stream is over or parked (end of run, a departed client, a backed-up one). */
  const deliver = (item: BufferItem): boolean => {
    if (item.kind === 'end') {
      // Hermes's handler breaks out of its loop (and deletes the buffer) once this write has returned.
      if (framing.endFrame === null) exit();
      else if (!write(framing.endFrame, () => exit())) exit(false, true);
      else if (!parked) exit();
      return false;
    }
    const frame = framing.frame(item.event, item.name);
    if (frame === null) {
      exit();
      return false;
    }
    if (!write(frame, pump)) {
      exit(false, true);
      return false;
    }
    return !parked;
  };

  /** An item this subscriber took from the queue, not yet written. */
  let taken: BufferItem | null = null;

  const take = (): void => {
    cancelWait = buffer.wait((item) => {
      keepalive?.cancel();
      // The taker is called inside the code that emits the event, before that code records the status the event
      // announces (run.completed precedes the status flip): write it once that code has finished (a microtask).
      taken = item;
      queueMicrotask(pump);
    });
  };

  const wait = (): void => {
    // Periodic, so a clock jump of any length sends one keep-alive, not one per missed 30 s (decision 0014). Each
    // keep-alive ends the timed-out queue.get() and starts a new one, at the back of the waiters, as Hermes does.
    keepalive = clock.every(KEEPALIVE_SECONDS, () => {
      cancelWait();
      if (!write(KEEPALIVE_FRAME, pump)) exit(false, true);
      else if (parked) keepalive?.cancel();
      else take();
    });
    take();
  };

  const pump = (): void => {
    if (done) return;
    // The durability barrier: a frame may announce a status (run.completed, run.failed, …); it is written only once
    // that status is committed to the store. While the store is locked the stream waits, then tries again.
    const barrier = registry.settle(runId);
    if (barrier) {
      barrier.then(pump, () => void registry.lockWait.sleep(100).then(pump));
      return;
    }
    if (taken) {
      const item = taken;
      taken = null;
      if (!deliver(item)) return;
    }
    while (!done) {
      const item = buffer.poll();
      if (item === undefined) return wait();
      if (!deliver(item)) return;
    }
  };

  // An emulated crash (a restart, a checkpoint's restore, a reset): the process that wrote this stream is gone.
  detach = registry.onCrash(() => exit(true));
  pump();
}
