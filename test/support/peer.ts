// A transcription of the pinned `hermes peer` client (hermes_cli/subcommands/peer.py, spec sessions-api §9): the
// requests it sends — headers, bodies as Python's json.dumps writes them, the order — and what it prints and exits
// with, for `run`, `status`, `stop` and `dm`. Tests drive it against the emulator over either transport.
import { randomUUID } from 'node:crypto';
import { dumps, isDict, parsePyJson, pyStr, type PyDict, type PyValue } from '../../src/shared/python/index.js';
import type { Harness } from './harness.js';

export interface PeerTarget {
  /** The peer's name in bot_peers (errors name it). */
  readonly name: string;
  /** The registered url's path part: '' for the server itself, '/ns/<name>' for a namespace. */
  readonly url: string;
  /** `<peer>/<profile>` targets a profile: /p/<profile> is added to the base URL. */
  readonly profile?: string | null;
  readonly key: string;
}

export interface SentRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** What came back: status and body bytes. */
  status?: number;
  answer?: string;
}

/** Where the client's requests go: a harness, or a stand-in for another server. */
export type Requester = Pick<Harness, 'request'>;

export interface PeerResult {
  exit: number;
  stdout: string;
  stderr: string;
  sent: SentRequest[];
}

class HttpError extends Error {
  constructor(
    readonly code: number,
    readonly detail: string,
  ) {
    super(`HTTP Error ${code}`);
  }
}
class Runtime extends Error {}
class Exit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

const dict = (entries: Array<[string, PyValue]>): PyDict => new Map(entries);
/** json.loads, keeping Python's types (a float stays a float when printed again). */
const loads = (text: string): PyValue => parsePyJson(text);
const isObject = (v: PyValue | undefined): v is PyDict => isDict(v);
const str = (v: PyValue | undefined): string => (v === undefined ? 'None' : pyStr(v));
const truthy = (v: PyValue | undefined): boolean =>
  !(v === undefined || v === null || v === false || v === '' || v === 0 || (Array.isArray(v) && v.length === 0) || (isDict(v) && v.size === 0));
const strip = (s: string): string => s.replace(/^[\s\x1c-\x1f\x85]+|[\s\x1c-\x1f\x85]+$/g, '');

const BOT_CHAT = 'Bot Chat';
const DURABILITY_WARNING =
  'Warning: this peer does not advertise restart-durable run replay; keep the run ID and avoid blind retries after a gateway restart.';

export class Peer {
  readonly sent: SentRequest[] = [];
  readonly #out: string[] = [];
  readonly #err: string[] = [];

  constructor(
    private readonly h: Requester,
    private readonly target: PeerTarget,
  ) {}

  get #base(): string {
    const profile = this.target.profile;
    return `${this.target.url.replace(/\/$/, '')}${profile ? `/p/${encodeURIComponent(profile)}` : ''}`;
  }

  /** One urllib request (§9.3): the JSON object of a 2xx, HttpError for ≥ 400, Runtime for a body that is not an object. */
  async #call(method: string, path: string, body?: PyDict, extra: Record<string, string> = {}): Promise<PyDict> {
    const headers: Record<string, string> = {
      'Accept-Encoding': 'identity',
      Authorization: `Bearer ${this.target.key}`,
      'Content-Type': 'application/json',
      'User-Agent': 'hermes-peer-dm',
      ...extra,
    };
    const text = body === undefined ? undefined : dumps(body);
    const sent: SentRequest = { method, path, headers, ...(text === undefined ? {} : { body: text }) };
    this.sent.push(sent);
    const reply = await this.h.request(method, path, { headers, body: text });
    sent.status = reply.status;
    sent.answer = reply.text;
    if (reply.status >= 400) {
      let detail = reply.text.slice(0, 200);
      try {
        const parsed = loads(reply.text);
        const error = isObject(parsed) ? parsed.get('error') : undefined;
        const message = isObject(error) ? error.get('message') : undefined;
        if (typeof message === 'string') detail = message;
      } catch {
        // not JSON: the body's head
      }
      throw new HttpError(reply.status, detail);
    }
    let parsed: PyValue;
    try {
      parsed = loads(reply.text);
    } catch {
      throw new Runtime(`Peer returned non-JSON response: ${reply.text.slice(0, 200)}`);
    }
    if (!isObject(parsed)) throw new Runtime('Peer returned a non-object JSON response');
    return parsed;
  }

  /** Steps 4–5 of §9.4: find the Bot Chat, else create it. */
  async #botChat(): Promise<string> {
    const found = await this.#call('GET', `${this.#base}/api/sessions?limit=200&title=Bot+Chat&include_hidden=1`);
    const data = found.get('data');
    for (const item of Array.isArray(data) ? data : []) {
      if (isObject(item) && strip(str(item.get('title') ?? '')) === BOT_CHAT) {
        const id = str(item.get('id') ?? '');
        if (id) return id;
        break;
      }
    }
    let created: PyDict;
    try {
      created = await this.#call('POST', `${this.#base}/api/sessions`, dict([['title', BOT_CHAT], ['source', 'bot_peer_dm']]));
    } catch (e) {
      if (e instanceof HttpError && e.code === 400 && e.detail.toLowerCase().includes('title')) {
        throw new Runtime(
          `Peer already has a 'Bot Chat' session but it is hidden and the peer's gateway is too old to expose hidden sessions to this lookup (HTTP 400: ${e.detail}). Update the peer's hermes-agent, or unhide the session there: PATCH /api/sessions/<id> {"hidden": false}.`,
        );
      }
      throw e;
    }
    const session = created.get('session');
    const pick = (d: PyDict, k: string) => (truthy(d.get(k)) ? d.get(k) : undefined);
    const id = (isObject(session) ? (pick(session, 'id') ?? pick(session, 'session_id')) : undefined) ?? pick(created, 'id') ?? pick(created, 'session_id');
    if (id === undefined) throw new Runtime('Peer did not return a session id for the new Bot Chat');
    return str(id);
  }

  #fail(e: unknown): never {
    if (e instanceof Exit) throw e;
    if (e instanceof HttpError) this.#err.push(`Peer '${this.target.name}' rejected the request (HTTP ${e.code}): ${e.detail}`);
    else this.#err.push(`Could not reach peer '${this.target.name}': ${(e as Error).message}`);
    throw new Exit(1);
  }

  async #main(body: () => Promise<void>): Promise<PeerResult> {
    let exit = 0;
    try {
      await body();
    } catch (e) {
      if (!(e instanceof Exit)) throw e;
      exit = e.code;
    }
    const lines = (l: string[]) => (l.length ? `${l.join('\n')}\n` : '');
    return { exit, stdout: lines(this.#out), stderr: lines(this.#err), sent: this.sent };
  }

  /** `hermes peer run <target> <message> [--idempotency-key K] [--json]` (§9.4). */
  run(message: string, options: { idempotencyKey?: string; json?: boolean } = {}): Promise<PeerResult> {
    return this.#main(async () => {
      const text = strip(message);
      if (!text) {
        this.#err.push('Message required (argument or stdin).');
        throw new Exit(2);
      }
      const key = strip(options.idempotencyKey || `peer-${randomUUID().replace(/-/g, '')}`);
      if (key.length < 1 || Array.from(key).length > 255 || /[\r\n\x00]/.test(key)) {
        this.#err.push('Idempotency key must be 1-255 characters without control newlines.');
        throw new Exit(2);
      }
      try {
        let durable = false;
        try {
          const caps = await this.#call('GET', `${this.#base}/v1/capabilities`);
          const features = caps.get('features');
          const idem = isObject(features) ? features.get('runs_idempotency') : undefined;
          durable = isObject(idem) && truthy(idem.get('supported')) && idem.get('durable') === true;
        } catch {
          durable = false;
        }
        if (!durable) this.#err.push(DURABILITY_WARNING);
        const sessionId = await this.#botChat();
        const run = await this.#call('POST', `${this.#base}/v1/runs`, dict([['input', text], ['session_id', sessionId]]), { 'Idempotency-Key': key });
        const runId = truthy(run.get('run_id')) ? str(run.get('run_id')) : '';
        if (!runId) {
          this.#err.push(`Peer '${this.target.name}' did not return a run ID.`);
          throw new Exit(1);
        }
        const status = truthy(run.get('status')) ? str(run.get('status')) : 'started';
        const replayed = run.get('replayed') === true;
        if (options.json) {
          this.#out.push(dumps(dict([
            ['peer', this.target.name], ['profile', this.target.profile ?? null], ['session_id', sessionId], ['run_id', runId],
            ['status', run.get('status') ?? null], ['idempotency_key', key], ['replayed', replayed],
          ])));
        } else {
          this.#out.push(`${runId}: ${status}${replayed ? ' (replayed)' : ''}`, `session_id: ${sessionId}`, `idempotency_key: ${key}`);
        }
      } catch (e) {
        this.#fail(e);
      }
    });
  }

  /** `hermes peer status|stop <target> <run_id> [--json]` (§9.5). */
  control(command: 'status' | 'stop', runId: string, options: { json?: boolean } = {}): Promise<PeerResult> {
    return this.#main(async () => {
      const id = strip(runId);
      if (!id) {
        this.#err.push('Run ID required.');
        throw new Exit(2);
      }
      try {
        const path = `${this.#base}/v1/runs/${encodeURIComponent(id)}`;
        const data = command === 'status' ? await this.#call('GET', path) : await this.#call('POST', `${path}/stop`, dict([]));
        if (options.json) {
          const entries: Array<[string, PyValue]> = [['peer', this.target.name], ['profile', this.target.profile ?? null]];
          for (const [k, v] of data) entries.push([k, v]);
          this.#out.push(dumps(dict(entries)));
          return;
        }
        this.#out.push(`${truthy(data.get('run_id')) ? str(data.get('run_id')) : id}: ${truthy(data.get('status')) ? str(data.get('status')) : 'unknown'}`);
        if (command === 'status') {
          if (truthy(data.get('output'))) this.#out.push(str(data.get('output')));
          else if (truthy(data.get('error'))) this.#err.push(str(data.get('error')));
        }
      } catch (e) {
        this.#fail(e);
      }
    });
  }

  /** `hermes peer dm <target> <message> [--json]` (§9.6). */
  dm(message: string, options: { json?: boolean } = {}): Promise<PeerResult> {
    return this.#main(async () => {
      const text = strip(message);
      if (!text) {
        this.#err.push('Message required (argument or stdin).');
        throw new Exit(2);
      }
      try {
        const sessionId = await this.#botChat();
        const reply = await this.#call('POST', `${this.#base}/api/sessions/${encodeURIComponent(sessionId)}/chat`, dict([['message', text]]));
        const message = reply.get('message');
        const content = isObject(message) ? message.get('content') : undefined;
        const shown = truthy(content) ? str(content) : '(no reply)';
        if (options.json) {
          this.#out.push(dumps(dict([['peer', this.target.name], ['profile', this.target.profile ?? null], ['session_id', sessionId], ['reply', shown]])));
        } else this.#out.push(shown);
      } catch (e) {
        this.#fail(e);
      }
    });
  }
}
