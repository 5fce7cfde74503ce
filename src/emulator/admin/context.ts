// What a control-plane handler receives, and the small helpers for reading control bodies.
import { HermeticError } from '../../shared/errors.js';
import type { GatewaySettings } from '../gateway.js';
import type { HttpRequest } from '../http.js';
import type { Faults } from '../faults/index.js';
import type { RequestJournal } from '../journal/journal.js';
import type { NamespaceClock } from '../namespaces/borrowed-clock.js';
import type { Checkpoints, CheckpointSummary, TimelineView } from '../namespaces/checkpoints.js';
import type { FakeAgent } from '../runs/agent.js';
import type { RunRegistry } from '../runs/registry.js';
import type { ScenarioBook } from '../scenarios/book.js';
import type { PyDict, PyValue } from '../../shared/python/index.js';
import { parseBody } from '../api/body.js';

export { field, onlyKeys } from '../control/fields.js';

/** The namespace a control request is for, as the control plane sees it (namespaces/namespace.ts implements it). */
export interface ControlledNamespace {
  readonly name: string;
  readonly faults: Faults;
  readonly scenarios: ScenarioBook;
  readonly journal: RequestJournal;
  readonly checkpoints: Pick<Checkpoints, 'list' | 'delete' | 'createBranch' | 'deleteBranch'>;
  checkpoint(): CheckpointSummary;
  restoreCheckpoint(id: string): CheckpointSummary;
  /** A branch checked out: the current branch, at `id` or its head (checkpoints.ts). */
  checkout(branch: string, id?: string): { branch: string; checkpoint: CheckpointSummary | null };
  timeline(): TimelineView;
  /** A checkpoint after each request that changed the namespace (decision 0065). */
  autoCheckpoints: boolean;
  /** Back to how the options describe a new namespace. */
  reset(): void;
  /** The clock alone back to how the options start it (false: the namespace runs on a clock the caller gave). */
  resetClock(): boolean;
  /** The request tallies the metrics count (hermetic_requests_total), started over; the journal stays. */
  resetMetrics(): void;
  /** An emulated gateway crash and restart on the same store. */
  restart(): void;
  /** Runs whose status write is waiting for a commit (held while another connection holds the store's lock). */
  heldWrites(): number;
}

/** One namespace in GET /__admin/namespaces. */
export interface NamespaceSummary {
  name: string;
  runs: number;
  live_runs: number;
  created_at: number;
}

/** Every namespace of the emulator, as the control plane sees them (namespaces/index.ts implements it). */
export interface ControlledNamespaces {
  /** The default first, then the others in order of first use. */
  summaries(): NamespaceSummary[];
  /** The namespace other than `except` that knows run `runId`, if any. */
  holding(runId: string, except: string): string | null;
  /** Resets every namespace (the default starts over, the others are forgotten); the names it reset. */
  resetAll(): string[];
  /** The Prometheus text of every namespace (src/emulator/metrics/). */
  scrapeMetrics(): Promise<{ contentType: string; text: string }>;
}

export interface AdminDeps {
  readonly clock: NamespaceClock;
  readonly gateway: GatewaySettings;
  readonly registry: RunRegistry;
  readonly agent: FakeAgent;
  /** The namespace this request is for, and every namespace of the emulator. */
  readonly namespace: ControlledNamespace;
  readonly namespaces: ControlledNamespaces;
  /** The admin key every control route but GET /__admin/health needs (null: open), checked by the dispatcher. */
  readonly adminKey: string | null;
  /** A bug in Hermetic surfaced while answering (answered 500 HERMETIC_INTERNAL). */
  readonly onInternalError: (error: unknown) => void;
}

export interface AdminContext {
  readonly req: HttpRequest;
  readonly params: Readonly<Record<string, string>>;
  readonly deps: AdminDeps;
  /** The decoded JSON body (an object; empty when the request had no body). */
  readonly body: PyDict;
}

/** A handler's answer: a plain object (JSON.stringify), a Hermes dict (Python json.dumps), or AdminText. */
export type AdminHandler = (ctx: AdminContext) => unknown;

/** An answer sent as it is rather than as JSON (Prometheus text from GET /__admin/metrics); the client gets a string. */
export class AdminText {
  constructor(
    readonly contentType: string,
    readonly text: string,
  ) {}
}

export async function readAdminBody(req: HttpRequest): Promise<PyDict> {
  if (req.method === 'GET') return new Map();
  let bytes: Uint8Array | 'too-large';
  try {
    bytes = await req.readBody(10_000_000);
  } catch {
    // The client went away before its body ended (nobody reads this answer), or its stream failed.
    throw new HermeticError('HERMETIC_ADMIN_BAD_JSON', 'The control request body could not be read to its end.');
  }
  if (bytes === 'too-large') throw new HermeticError('HERMETIC_ADMIN_BAD_JSON', 'The control request body is larger than 10 MB.');
  if (bytes.byteLength === 0) return new Map();
  let value: PyValue;
  try {
    // Charged to the server's body budget as Hermes's bodies are (decision 0135).
    value = await parseBody(bytes, undefined, req.bodyCharge);
  } catch (e) {
    throw new HermeticError('HERMETIC_ADMIN_BAD_JSON', `The control request body is not valid JSON (${(e as Error).message}).`);
  }
  if (!(value instanceof Map)) throw new HermeticError('HERMETIC_ADMIN_BAD_JSON', 'The control request body must be a JSON object.');
  return value;
}

