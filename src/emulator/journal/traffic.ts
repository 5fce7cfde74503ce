// What a namespace notes about each request it answers: an entry in its journal (client requests only), a tally by
// operation and status (every request, for metrics), and a line for whoever listens (`hermetic serve`'s console).
// The namespace's pipeline calls begin() on arrival and end() once the answer's head is ready (decision 0022).
import type { Clock } from '../../shared/clock.js';
import type { HttpRequest, HttpResponse } from '../http.js';
import { describeRequest, type RequestInfo, type RequestOperation } from '../namespaces/operation.js';
import { OPERATIONS } from '../api/routes.js';
import { RequestJournal, type JournalSlots } from './journal.js';

/** One request on its way through a namespace's pipeline; the faults part sets `faultId` when a rule affects it. */
export interface RequestTrace {
  readonly info: RequestInfo;
  /** performance.now() at arrival. */
  readonly started: number;
  faultId: string | null;
  /** The automatic checkpoint taken after it (namespace.ts), if any. */
  checkpoint: string | null;
  /** Its journal entry's sequence number once journaled (-1: not, or not yet). */
  seq: number;
  /** Names the rule that affects the request after it was journaled (a stream fault that trips); nothing before. */
  lateFault(faultId: string): void;
}

/** A request's trace: its journal entry's number once it has one, so a later fault is named on it (no closure a request). */
class Trace implements RequestTrace {
  faultId: string | null = null;
  checkpoint: string | null = null;
  seq = -1;

  constructor(
    readonly info: RequestInfo,
    readonly started: number,
    private readonly journal: RequestJournal,
  ) {}

  lateFault(faultId: string): void {
    this.journal.setFault(this.seq, faultId);
  }
}

/** What the `onRequest` option receives for every answered request (control-plane requests included). */
export interface RequestRecord {
  readonly namespace: string;
  readonly method: string;
  /** Without the /ns/<name> prefix and without the query string. */
  readonly path: string;
  readonly operation: RequestOperation;
  readonly status: number;
  readonly durationMs: number;
  readonly runId: string | null;
  readonly replayed: boolean | null;
  readonly faultId: string | null;
}

export type RequestListener = (record: RequestRecord) => void;

const REQUEST_OPERATIONS: readonly RequestOperation[] = [...OPERATIONS, 'admin', 'other'];
const OPERATION_INDEX = new Map(REQUEST_OPERATIONS.map((op, i) => [op, i]));

/** A submit's 202 body starts with its run id (wire/run-object key order). */
const SUBMIT_RUN_ID = /^\{"run_id": "([^"\\]+)"/;

export class RequestTraffic {
  readonly journal: RequestJournal;
  /** Answered requests by operation and status, keyed operation index × 1000 + status (one numeric Map lookup). */
  readonly #counts = new Map<number, number>();
  #total = 0;

  constructor(
    readonly namespace: string,
    journalSize: number,
    private readonly clock: () => Clock,
    private readonly listener: RequestListener | null,
    journalSlots: JournalSlots | null = null,
  ) {
    this.journal = new RequestJournal(journalSize, journalSlots);
  }

  begin(req: HttpRequest): RequestTrace {
    return new Trace(describeRequest(req), performance.now(), this.journal);
  }


  /** Notes the answer; returns it unchanged. */
  end(req: HttpRequest, trace: RequestTrace, response: HttpResponse): HttpResponse {
    // A dropped connection (a fault) reached the client as no answer at all: noted as status 0.
    this.#note(req, trace, response.drop ? 0 : response.status, response);
    return response;
  }

  /** The pipeline threw: the transport answers 500 (aiohttp's page); noted as such, then rethrown by the caller. */
  failed(req: HttpRequest, trace: RequestTrace): void {
    this.#note(req, trace, 500, null);
  }

  /** Answered requests so far: [operation, status, count] (metrics read these at scrape time). */
  *counts(): IterableIterator<[RequestOperation, number, number]> {
    for (const [key, n] of this.#counts) yield [REQUEST_OPERATIONS[Math.floor(key / 1000)]!, key % 1000, n];
  }

  /** Requests answered so far (metrics rank namespaces by it). */
  get total(): number {
    return this.#total;
  }

  /** Journal and tallies as new (a namespace reset). */
  reset(): void {
    this.journal.reset();
    this.resetCounts();
  }

  /** The tallies alone as new (DELETE /__admin/metrics): the journal stays. */
  resetCounts(): void {
    this.#counts.clear();
    this.#total = 0;
  }

  #note(req: HttpRequest, trace: RequestTrace, status: number, response: HttpResponse | null): void {
    const durationMs = performance.now() - trace.started;
    const { operation } = trace.info;
    let runId = trace.info.runId;
    let replayed: boolean | null = null;
    // An admitted submit's run id, even when the answer was then lost (admit_then_drop: Hermes did admit it).
    if (operation === 'submit' && response?.status === 202) [runId, replayed] = admitted(response);
    const key = OPERATION_INDEX.get(operation)! * 1000 + status;
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
    this.#total++;
    // The control plane is the test's own plumbing, not what the client under test sent: not journaled.
    if (operation !== 'admin') {
      // A submit's key as the client sent it (Hermes strips it before use): what a retry must repeat.
      const idempotencyKey = operation === 'submit' ? req.header('idempotency-key') ?? null : null;
      const seq = this.journal.record(this.clock().now(), req.method, req.path, operation, status, durationMs, runId, replayed, trace.faultId, trace.checkpoint, idempotencyKey);
      trace.seq = seq;
    }
    if (!this.listener) return;
    try {
      this.listener({ namespace: this.namespace, method: req.method, path: req.path, operation, status, durationMs, runId, replayed, faultId: trace.faultId });
    } catch (e) {
      // The listener is the caller's code: its failure must not turn the answer already made into a 500.
      console.error(`hermetic: the onRequest listener threw: ${(e as Error)?.stack ?? String(e)}`);
    }
  }
}

/** The run id a submit was answered with, and whether the answer was a replay (Hermes's Idempotency-Replayed header). */
function admitted(response: HttpResponse): [string | null, boolean] {
  let replayed = false;
  for (const [name, value] of response.headers) {
    if (name === 'Idempotency-Replayed') replayed = value === 'true';
  }
  const body = response.body;
  const text = typeof body === 'string' ? body : body ? Buffer.from(body.buffer, body.byteOffset, Math.min(body.byteLength, 200)).toString('utf8') : '';
  return [SUBMIT_RUN_ID.exec(text)?.[1] ?? null, replayed];
}
