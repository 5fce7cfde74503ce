// Event-stream faults: a sink between the subscriber and the transport that, after N events, drops the connection
// (sse_drop) or lets nothing more through while the connection stays open (sse_stall; until the namespace is reset or
// closed, which drops it).
import type { HttpResponse, StreamSink } from '../http.js';

/**
 * Whether a written chunk is an event: a run's `data:` frame or a session chat stream's `event:` one (each frame is one
 * write). Keep-alives and the end are comments (`:`), never counted.
 */
const isEvent = (chunk: string): boolean => chunk.startsWith('data:') || chunk.startsWith('event:');

/**
 * Arms `response`'s stream (a 200 event stream) with the fault. `take()` is asked when the fault would act (after
 * `afterEvents` event frames): true spends the rule and the fault acts; false (spent meanwhile) lets the stream run on.
 * A stream that ends before that point is not affected and spends nothing.
 */
export function armStream(
  response: HttpResponse,
  mode: 'drop' | 'stall',
  afterEvents: number,
  take: () => boolean,
  stalls: Set<() => void>,
): void {
  const open = response.stream!;
  response.stream = (sink) => {
    let state: 'pass' | 'drop' | 'stall' = 'pass';
    let waiting = true;
    let events = 0;
    /** A stalled stream stays open until the client leaves or the namespace goes (then the connection drops). */
    const unstall = (): void => {
      stalls.delete(unstall);
      state = 'drop';
      abort(sink);
    };
    const trip = (): void => {
      waiting = false;
      if (!take()) return;
      state = mode;
      if (mode === 'drop') abort(sink);
      else stalls.add(unstall);
    };
    if (afterEvents === 0) trip();
    open({
      write(chunk) {
        if (state === 'drop') return false;
        // Stalled: Hermes keeps writing into a connection that no longer moves; nothing reaches the client.
        if (state === 'stall') return true;
        const ok = sink.write(chunk);
        if (ok && waiting && isEvent(chunk) && ++events >= afterEvents) trip();
        return ok;
      },
      drained() {
        // Stalled, nothing moves and nothing backs up (the fault's writes go nowhere); passing, the transport decides.
        return state === 'pass' ? sink.drained?.() ?? null : null;
      },
      end() {
        if (state === 'pass') sink.end();
      },
      abort() {
        if (state === 'drop') return;
        stalls.delete(unstall);
        state = 'drop';
        abort(sink);
      },
    });
  };
}

/** Drops the connection under a stream (a transport without abort() ends it instead). */
function abort(sink: StreamSink): void {
  if (sink.abort) sink.abort();
  else sink.end();
}
