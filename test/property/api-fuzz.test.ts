// Property tests: thousands of random and malformed requests thrown at the emulated /v1/runs surface (spec runs-api
// §1–§13), in process for volume and over a real node:http server for a smaller sample, plus a stateful random walk
// over submits, fake-agent actions, stop/approval/steer/GET, clock jumps, sweeps and restarts.
//
// What must hold for every answer, whatever was sent:
//   (a) no 5xx, except aiohttp's 500 text page exactly where Hermes itself raises (§5.1 non-object root, §5.3
//       non-object last input element, §9 step 3 non-object approval body, §12.2 lone surrogate with a key, a
//       previous_response_id sqlite3 cannot bind: decision 0113) —
//       and there it must be a 500 (an independent oracle below decides);
//   (b) error bodies are one of Hermes's envelopes (§2.1) or aiohttp's exact text pages (§2.5), CORS 403s empty;
//   (c) JSON bodies are valid, pure ASCII, Python separators, lowercase \u escapes, correct Content-Length;
//   (d) the emulator keeps answering (GET /health is 200 at the end).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { createEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import type { HttpRequest } from '../../src/emulator/http.js';
import { startServer, type ServerHandle } from '../../src/emulator/serve/node.js';
import { K, T0 } from '../support/harness.js';

const ALICE = 'alice-key-0123456789abcdef';
const OK_ORIGIN = 'http://ok.test';
/** Bugs of Hermetic's own met while answering; every fuzz suite ends by asserting there were none. */
const BUGS: unknown[] = [];
const OPTIONS: EmulatorOptions = {
  onInternalError: (e) => void BUGS.push(e),
  apiKey: K,
  time: T0,
  frozen: true,
  seed: 'fuzz',
  maxConcurrentRuns: 0,
  corsOrigins: [OK_ORIGIN],
  profiles: { alice: { apiKey: ALICE }, bob: { apiKey: null } },
};
const PAGE_500 = '500 Internal Server Error\n\nServer got itself in trouble';
const PAGE_500_HTML =
  '<html><head><title>500 Internal Server Error</title></head><body>\n<h1>500 Internal Server Error</h1>\nServer got itself in trouble\n</body></html>\n';
const JSON_TYPE = 'application/json; charset=utf-8';
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

// ---------------------------------------------------------------------------------------------------------------
// Requests as the handler sees them: header values are the decoded text (what aiohttp would hand Hermes).

interface FuzzRequest {
  method: string;
  /** Request target (may carry a query string). */
  target: string;
  headers: Array<[string, string]>;
  body: Uint8Array | null;
}

type Transport = 'fetch' | 'handle' | 'http';

const header = (req: FuzzRequest, name: string): string | undefined => {
  const hits = req.headers.filter(([k]) => k.toLowerCase() === name).map(([, v]) => v);
  return hits.length ? hits.join(', ') : undefined;
};

/** What each transport can carry: `handle` takes any string; fetch and node:http trim OWS and refuse controls. */
function adaptForTransport(req: FuzzRequest, transport: Transport): FuzzRequest {
  if (transport === 'handle') return req;
  const headers: Array<[string, string]> = [];
  for (const [k, v] of req.headers) {
    let value = [...v].filter((c) => c === '\t' || (c >= ' ' && c !== '\x7f' && (transport === 'http' || c <= '~'))).join('');
    value = value.replace(/^[\t ]+|[\t ]+$/g, '');
    // Lone surrogates cannot be UTF-8 on the wire.
    if (/[\ud800-\udfff]/.test(value.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''))) continue;
    headers.push([k, value]);
  }
  const bodyless = transport === 'fetch' && (req.method === 'GET' || req.method === 'HEAD');
  // What each client puts in the request line: fetch normalises through the URL parser; node:http needs ASCII.
  const target =
    transport === 'fetch'
      ? ((u) => u.pathname + u.search)(new URL(`http://hermes.test${req.target}`))
      : req.target.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
  return { ...req, target, headers, body: bodyless ? null : req.body };
}

// ---------------------------------------------------------------------------------------------------------------
// Python helpers for the oracle (independent of src/).

const PY_SPACE = /^[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;
const pyStrip = (s: string) => s.replace(PY_SPACE, '');
const codePoints = (s: string) => [...s].length;
const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

class Num {
  constructor(readonly lexeme: string) {}
  truthy(): boolean {
    return this.lexeme === 'NaN' || /Infinity/.test(this.lexeme) || Number(this.lexeme) !== 0;
  }
}
type Py = null | boolean | string | Num | Py[] | Map<string, Py>;

class Ambiguous extends Error {}

/** json.loads with CPython 3.11's acceptance rules; very deep nesting is a RecursionError (ambiguous near the limit). */
function pyLoads(text: string): Py {
  if (text.charCodeAt(0) === 0xfeff) throw new Error('BOM');
  let pos = 0;
  let depth = 0;
  const ws = () => {
    while (pos < text.length && ' \t\n\r'.includes(text[pos]!)) pos++;
  };
  const fail = (what: string): never => {
    throw new Error(`${what} at ${pos}`);
  };
  const str = (): string => {
    pos++;
    let out = '';
    for (;;) {
      if (pos >= text.length) fail('unterminated string');
      const c = text[pos]!;
      if (c === '"') {
        pos++;
        return out;
      }
      if (c.charCodeAt(0) < 0x20) fail('control character');
      if (c === '\\') {
        const e = text[pos + 1];
        const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
        if (e !== undefined && e in simple) {
          out += simple[e];
          pos += 2;
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(pos + 2, pos + 6))) {
          out += String.fromCharCode(parseInt(text.slice(pos + 2, pos + 6), 16));
          pos += 6;
        } else fail('bad escape');
      } else {
        out += c;
        pos++;
      }
    }
  };
  const value = (): Py => {
    const c = text[pos];
    if (c === '"') return str();
    if (c === '{' || c === '[') {
      if (++depth > 1000) fail('RecursionError');
      if (depth > 850) throw new Ambiguous('nesting near the recursion limit');
      pos++;
      ws();
      if (c === '[') {
        const arr: Py[] = [];
        if (text[pos] === ']') {
          pos++;
          depth--;
          return arr;
        }
        for (;;) {
          ws();
          arr.push(value());
          ws();
          if (text[pos] === ']') {
            pos++;
            depth--;
            return arr;
          }
          if (text[pos] !== ',') fail('expecting ,');
          pos++;
        }
      }
      const obj = new Map<string, Py>();
      if (text[pos] === '}') {
        pos++;
        depth--;
        return obj;
      }
      for (;;) {
        ws();
        if (text[pos] !== '"') fail('expecting property name');
        const k = str();
        ws();
        if (text[pos] !== ':') fail('expecting :');
        pos++;
        ws();
        obj.set(k, value());
        ws();
        if (text[pos] === '}') {
          pos++;
          depth--;
          return obj;
        }
        if (text[pos] !== ',') fail('expecting ,');
        pos++;
      }
    }
    for (const [lit, v] of [['null', null], ['true', true], ['false', false]] as const) {
      if (text.startsWith(lit, pos)) {
        pos += lit.length;
        return v;
      }
    }
    for (const lit of ['NaN', 'Infinity', '-Infinity']) {
      if (text.startsWith(lit, pos)) {
        pos += lit.length;
        return new Num(lit);
      }
    }
    const m = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/.exec(text.slice(pos, pos + 100_000));
    if (!m) fail('expecting value');
    if (!m![1] && !m![2] && m![0].replace('-', '').length > 4300) fail('int digit limit');
    pos += m![0].length;
    return new Num(m![0]);
  };
  ws();
  const v = value();
  ws();
  if (pos !== text.length) fail('extra data');
  return v;
}

const isDict = (v: Py | undefined): v is Map<string, Py> => v instanceof Map;
const truthy = (v: Py | undefined): boolean =>
  v === undefined || v === null || v === false ? false : v instanceof Num ? v.truthy() : typeof v === 'string' ? v !== '' : Array.isArray(v) ? v.length > 0 : v instanceof Map ? v.size > 0 : true;

/** Whether Python's sqlite3 binds a decoded JSON value as a parameter (None, bool, a 64-bit int, a float, a UTF-8 string). */
function sqliteBinds(v: Py): boolean {
  if (v === null || typeof v === 'boolean') return true;
  if (typeof v === 'string') return !LONE.test(v);
  if (v instanceof Num) return !/^-?\d+$/.test(v.lexeme) || (BigInt(v.lexeme) >= -(2n ** 63n) && BigInt(v.lexeme) < 2n ** 63n);
  return false;
}

function hasLone(v: Py): boolean {
  if (typeof v === 'string') return LONE.test(v);
  if (Array.isArray(v)) return v.some(hasLone);
  if (v instanceof Map) return [...v].some(([k, x]) => LONE.test(k) || hasLone(x));
  return false;
}

const ASCII_COMPATIBLE = new Set(['latin-1', 'latin1', 'iso-8859-1', 'ascii', 'us-ascii', 'cp1252', 'windows-1252', 'koi8-r', 'utf-8-sig']);
const UTF8_LABELS = new Set(['utf-8', 'utf8', 'utf_8', 'u8']);
const UNKNOWN_TO_PYTHON = new Set(['bogus', 'x-user-defined', 'utf-7½']);
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** request.json(): the parsed value, 'invalid' (→ 400 Invalid JSON), or Ambiguous (oracle abstains). */
function pyRequestJson(req: FuzzRequest): Py | 'invalid' {
  const bytes = req.body ?? new Uint8Array(0);
  const type = header(req, 'content-type');
  const m = type ? /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(type) : null;
  const charset = m ? m[1]!.toLowerCase() : undefined;
  let text: string;
  if (charset === undefined || UTF8_LABELS.has(charset)) {
    try {
      text = strictUtf8.decode(bytes);
    } catch {
      return 'invalid';
    }
  } else if (UNKNOWN_TO_PYTHON.has(charset)) return 'invalid';
  else if (ASCII_COMPATIBLE.has(charset) && bytes.every((b) => b < 0x80)) text = Buffer.from(bytes).toString('latin1');
  else throw new Ambiguous(`charset ${charset}`);
  try {
    return pyLoads(text);
  } catch (e) {
    if (e instanceof Ambiguous) throw e;
    return 'invalid';
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The world the oracle knows: which run ids are visible in which ownership scope.

const PROFILES: Record<string, string | null> = { default: K, alice: ALICE, bob: null };

class World {
  readonly runs = new Map<string, Set<string>>([['default', new Set()], ['alice', new Set()]]);
  readonly all: string[] = [];
  add(scope: string, runId: string): void {
    if (!this.runs.get(scope)!.has(runId)) this.all.push(runId);
    this.runs.get(scope)!.add(runId);
  }
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

interface Routed {
  profile: string;
  route: string;
  runId?: string;
  authorized: boolean;
}

/** Where aiohttp + Hermes's middlewares would take the request, up to and including authentication. */
function route(req: FuzzRequest): Routed | 'elsewhere' {
  let path = req.target.split('?')[0]!;
  let profile = 'default';
  const prefixed = /^\/p\/([^/]+)(\/.*)$/.exec(path);
  if (prefixed) {
    // aiohttp's match_info holds the segment decoded; the middleware strips it, and a blank name is no prefix at all.
    const segment = decodeSegment(prefixed[1]!);
    if (/[{}]/.test(segment)) return 'elsewhere';
    profile = pyStrip(segment) || 'default';
    if (!Object.hasOwn(PROFILES, profile)) return 'elsewhere';
    path = prefixed[2]!;
  }
  const origin = header(req, 'origin');
  if (origin && origin !== OK_ORIGIN) return 'elsewhere';
  if (req.method !== 'POST') return 'elsewhere';
  const parts = path.split('/').slice(1).map(decodeSegment);
  let name: string;
  let runId: string | undefined;
  if (parts.length === 2 && parts[0] === 'v1' && parts[1] === 'runs') name = 'submit';
  else if (parts.length === 4 && parts[0] === 'v1' && parts[1] === 'runs' && parts[2] !== '' && !/[{}]/.test(parts[2]!)) {
    name = parts[3]!;
    runId = parts[2]!;
  } else return 'elsewhere';
  const auth = header(req, 'authorization');
  const key = PROFILES[profile];
  const authorized = key !== null && auth !== undefined && !/^hermesroom\s/i.test(auth) && auth.startsWith('Bearer ') && pyStrip(auth.slice(7)) === key;
  return { profile, route: name, runId, authorized };
}

const EMULATED = /^\/(health|v1\/health|v1\/capabilities|v1\/runs(\/.*)?)$/;

/** A Hermes route the emulator knowingly does not reproduce (docs/reference/coverage.md): anything else. */
function unemulated(req: FuzzRequest): boolean {
  const path = req.target.split('?')[0]!.replace(/^\/p\/[^/]+(?=\/)/, '');
  return !EMULATED.test(path) && !path.startsWith('/__admin');
}

/** true: Hermes raises (aiohttp 500 page); false: it must not; 'abstain': the oracle cannot tell. */
function expect500(req: FuzzRequest, world: World): boolean | 'abstain' {
  // POST /api/sessions is not modelled here: Hermes raises where sqlite3 binds a str holding a lone surrogate (the id,
  // system_prompt or model; decision 0118, test/conformance/session-routes-beside-hermes.test.ts).
  if (req.method === 'POST' && /^(\/p\/[^/]*)?\/api\/sessions$/.test(req.target.split('?')[0]!)) {
    try {
      const body = pyRequestJson(req);
      if (body !== 'invalid' && hasLone(body)) return 'abstain';
    } catch (e) {
      if (e instanceof Ambiguous) return 'abstain';
      throw e;
    }
  }
  const r = route(req);
  if (r === 'elsewhere' || !r.authorized) return false;
  try {
    if (r.route === 'submit') {
      const rawSession = header(req, 'x-hermes-session-key');
      const session = rawSession === undefined ? '' : pyStrip(rawSession);
      if (session && (/[\r\n\0]/.test(session) || codePoints(session) > 256)) return false;
      const body = pyRequestJson(req);
      if (body === 'invalid') return false;
      const key = pyStrip(header(req, 'idempotency-key') ?? '');
      if (key && !(codePoints(key) <= 255 && /^[\x21-\x7e]+$/.test(key))) return false;
      if (key && (hasLone(body) || LONE.test(session))) return true;
      if (!isDict(body)) return true;
      const input = body.get('input');
      // The body's 400s first: no input, no user message (the last element's content, or a string input).
      if (!truthy(input)) return false;
      if (Array.isArray(input)) {
        const last = input[input.length - 1];
        if (!isDict(last)) return true;
        if (!truthy(last.get('content'))) return false;
      } else if (typeof input !== 'string') return false;
      // Explicit history: its own 400s, and then no lookup of previous_response_id.
      if (truthy(body.get('conversation_history'))) return false;
      // Without it, a truthy previous_response_id is looked up in Hermes's SQLite response store, and sqlite3 refuses to
      // bind an object, a list, an int past 64 bits or a string with a lone surrogate (decision 0113).
      const previous = body.get('previous_response_id');
      return previous !== undefined && truthy(previous) && !sqliteBinds(previous);
    }
    if (r.route === 'approval') {
      if (!world.runs.get(r.profile === 'alice' ? 'alice' : 'default')!.has(r.runId!)) return false;
      const body = pyRequestJson(req);
      return body !== 'invalid' && !isDict(body);
    }
  } catch (e) {
    if (e instanceof Ambiguous) return 'abstain';
    throw e;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------------------------
// Checks on one answer.

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Python json.dumps defaults: ASCII only, `", "` / `": "` separators and nothing else outside strings. */
export function pythonJsonProblem(text: string): string | null {
  if (/[^\x00-\x7f]/.test(text)) return 'non-ASCII byte';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const code = c.charCodeAt(0);
    if (inString) {
      if (c === '"') inString = false;
      else if (c === '\\') {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-f]{4}$/.test(text.slice(i + 2, i + 6))) return `bad \\u escape at ${i}`;
          const n = parseInt(text.slice(i + 2, i + 6), 16);
          if ((n >= 0x20 && n < 0x7f && n !== 0x22 && n !== 0x5c) || [0x08, 0x09, 0x0a, 0x0c, 0x0d].includes(n)) {
            return `needless \\u${text.slice(i + 2, i + 6)} at ${i}`;
          }
          i += 5;
        } else if (e !== undefined && '"\\bfnrt'.includes(e)) i++;
        else return `escape \\${e} at ${i}`;
      } else if (code < 0x20 || code === 0x7f) return `raw control 0x${code.toString(16)} at ${i}`;
    } else if (c === '"') inString = true;
    else if (c === ',' || c === ':') {
      if (text[i + 1] !== ' ' || text[i + 2] === ' ') return `separator at ${i}`;
      i++;
    } else if (/\s/.test(c)) return `whitespace outside strings at ${i}`;
  }
  return inString ? 'unterminated string' : null;
}

/** JSON.parse, accepting the NaN/Infinity tokens Python's json.dumps writes for such floats. */
function parseJsonText(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return JSON.parse(text.replace(/(?<=[:\[,] |\[)-?(?:NaN|Infinity)(?=[,\]}])/g, '0'));
  }
}

const keysOf = (o: unknown) => (o && typeof o === 'object' && !Array.isArray(o) ? Object.keys(o) : null);
const same = (a: string[] | null, b: string[]) => a !== null && a.length === b.length && a.every((k, i) => k === b[i]);

function checkEnvelope(status: number, value: any, text: string): void {
  assert.ok(same(keysOf(value), ['error']), `error body must be {"error": …}: ${text}`);
  const err = value.error;
  if (typeof err === 'string') {
    assert.equal(text, '{"error": "Unknown or unconfigured profile"}');
    assert.equal(status, 404);
    return;
  }
  const keys = keysOf(err);
  if (same(keys, ['message', 'type', 'param', 'code'])) {
    assert.equal(typeof err.message, 'string');
    assert.equal(typeof err.type, 'string');
    assert.equal(err.param, null);
    assert.ok(err.code === null || typeof err.code === 'string', text);
  } else if (same(keys, ['message', 'type', 'code'])) {
    assert.equal(text, '{"error": {"message": "Invalid gateway API key (API_SERVER_KEY)", "type": "gateway_auth_error", "code": "gateway_auth_failed"}}');
    assert.equal(status, 401);
  } else if (same(keys, ['message', 'type'])) {
    assert.ok(['Invalid session key', 'Session key too long'].includes(err.message), text);
    assert.equal(err.type, 'invalid_request_error');
    assert.equal(status, 400);
  } else assert.fail(`not a Hermes error envelope: ${text}`);
}

function describeRequest(req: FuzzRequest): string {
  const body = req.body === null ? '(none)' : JSON.stringify(Buffer.from(req.body).toString('latin1').slice(0, 300));
  return `${req.method} ${JSON.stringify(req.target)} headers=${JSON.stringify(req.headers)} body=${body}`;
}

function checkAnswer(req: FuzzRequest, ans: Answer, world: World, transport: Transport): void {
  const where = `${describeRequest(req)} → ${ans.status} ${JSON.stringify(ans.body.toString('latin1').slice(0, 300))}`;
  try {
    // A HEAD answer has no body over HTTP or fetch (the transport-neutral handler still returns the page).
    const isHead = req.method === 'HEAD' && transport !== 'handle';
    if (isHead) assert.equal(ans.body.length, 0, 'a HEAD answer has no body');
    const text = ans.body.toString('latin1');
    const type = ans.headers['content-type'];
    // `/__admin` itself is the control plane's index (GET), not a Hermes route: its answers are Hermetic's own JSON.
    if (req.target.split('?')[0] === '/__admin') {
      assert.equal(type, 'application/json; charset=utf-8', 'the control plane answers JSON');
      if (!isHead && ans.status >= 400) assert.match(JSON.parse(text).error.code, /^HERMETIC_/);
      return;
    }
    if (ans.status === 501 && unemulated(req)) {
      // Deliberate: Hermes routes outside the emulated surface answer 501 HERMETIC_UNSUPPORTED_ROUTE (not Hermes bytes).
      if (!isHead) assert.equal(JSON.parse(text).error.code, 'HERMETIC_UNSUPPORTED_ROUTE');
      return;
    }
    const expected = expect500(req, world);
    // (a) 5xx only where Hermes itself raises; and there, always.
    if (expected === true) assert.equal(ans.status, 500, 'Hermes raises here: expected aiohttp 500');
    if (expected === false) assert.ok(ans.status < 500, 'unexpected 5xx');
    if (ans.status >= 500) {
      assert.equal(ans.status, 500);
      const html = (header(req, 'accept') ?? '').includes('text/html');
      if (!isHead) assert.equal(text, html ? PAGE_500_HTML : PAGE_500);
      return;
    }
    if (!isHead && ans.headers['content-length'] !== undefined) {
      assert.equal(ans.headers['content-length'], String(ans.body.length), 'Content-Length');
    }
    // (b) transport-level bodies.
    if (ans.status === 404 && type?.startsWith('text/plain')) {
      if (!isHead) assert.equal(text, '404: Not Found');
      return;
    }
    if (ans.status === 405) {
      assert.ok(ans.headers.allow, 'Allow header on 405');
      if (!isHead) assert.equal(text, '405: Method Not Allowed');
      return;
    }
    if (ans.status === 403 || (ans.status === 200 && req.method === 'OPTIONS')) {
      assert.equal(text, '', 'CORS 403/preflight bodies are empty');
      return;
    }
    if (ans.status === 200 && type === 'text/event-stream') return;
    // (c) everything else is JSON in Python's dialect.
    assert.equal(type, JSON_TYPE, 'JSON content type');
    if (isHead) return;
    const problem = pythonJsonProblem(text);
    assert.equal(problem, null, `not Python json.dumps output: ${problem}`);
    const value = parseJsonText(text);
    if (ans.status >= 400) checkEnvelope(ans.status, value, text);
    else if (ans.status === 202) {
      assert.ok(same(keysOf(value), ['run_id', 'status', 'replayed']), text);
      assert.match(value.run_id, /^run_[0-9a-f]{32}$/);
      // §4 step 5: the stripped session key is echoed; aiohttp writes header values as UTF-8 bytes.
      const session = pyStrip(header(req, 'x-hermes-session-key') ?? '');
      const echoed = ans.headers['x-hermes-session-key'];
      const decoded = echoed === undefined || transport !== 'http' ? echoed : Buffer.from(echoed, 'latin1').toString('utf8');
      assert.equal(decoded, session === '' ? undefined : session, 'X-Hermes-Session-Key echo');
    } else assert.ok(keysOf(value) !== null, 'a 2xx JSON body is an object');
  } catch (e) {
    (e as Error).message = `${(e as Error).message}\n  ${transport}: ${where}`;
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Sending.

function toHttpRequest(req: FuzzRequest): HttpRequest {
  const q = req.target.search(/[?#]/);
  let read = false;
  return {
    method: req.method,
    path: q < 0 ? req.target : req.target.slice(0, q),
    query: q < 0 || req.target[q] === '#' ? '' : req.target.slice(q + 1).split('#')[0]!,
    header: (name) => header(req, name),
    readBody: async (limit) => {
      if (read) return new Uint8Array(0);
      read = true;
      const b = req.body ?? new Uint8Array(0);
      return b.length > limit ? 'too-large' : b;
    },
  };
}

async function sendInProcess(emulator: Emulator, req: FuzzRequest, transport: 'fetch' | 'handle'): Promise<Answer> {
  if (transport === 'handle') {
    const res = await emulator.handle(toHttpRequest(req));
    const headers: Record<string, string> = {};
    for (const [k, v] of res.headers) headers[k.toLowerCase()] = headers[k.toLowerCase()] ? `${headers[k.toLowerCase()]}, ${v}` : v;
    if (res.stream) {
      res.stream({ write: () => false, end: () => {} });
      return { status: res.status, headers, body: Buffer.alloc(0) };
    }
    const body = res.body === null ? Buffer.alloc(0) : typeof res.body === 'string' ? Buffer.from(res.body, 'utf8') : Buffer.from(res.body);
    return { status: res.status, headers, body };
  }
  const res = await emulator.fetch(
    new Request(`http://hermes.test${req.target}`, {
      method: req.method,
      headers: req.headers,
      body: req.body === null ? undefined : Buffer.from(req.body),
    }),
  );
  const headers = Object.fromEntries(res.headers);
  if (headers['content-type'] === 'text/event-stream') {
    await res.body?.cancel();
    return { status: res.status, headers, body: Buffer.alloc(0) };
  }
  return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()) };
}

function sendHttp(server: ServerHandle, req: FuzzRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // Header values go out as their UTF-8 bytes (node:http writes a string's chars as latin-1 bytes).
    const headers: Record<string, string> = {};
    for (const [k, v] of req.headers) headers[k] = Buffer.from(v, 'utf8').toString('latin1');
    if (req.body !== null) headers['Content-Length'] = String(req.body.length);
    const r = httpRequest({ host: '127.0.0.1', port: server.port, method: req.method, path: req.target, headers, agent: false });
    r.on('response', (res) => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
      if (headers['content-type'] === 'text/event-stream') {
        r.destroy();
        resolve({ status: res.statusCode!, headers, body: Buffer.alloc(0) });
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers, body: Buffer.concat(chunks) }));
    });
    r.on('error', reject);
    // A server that never answers is a failure in its own right, not a hung test run.
    r.setTimeout(1500, () => {
      r.destroy();
      reject(new Error(`no answer within 1.5 s from the node:http server to ${describeRequest(req)}`));
    });
    r.end(req.body === null ? undefined : Buffer.from(req.body));
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Generators.

const WS = ['', ' ', '\t', '  ', '\u00a0', '\u0085', '\u3000', '\u2003', '\n', '\x1f'];
const printable = (max: number) => fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: max });
const unicodeText = (max: number) => fc.string({ unit: 'grapheme', maxLength: max });
const anyText = (max: number) => fc.string({ unit: 'binary', maxLength: max });
const hex32 = fc.stringMatching(/^[0-9a-f]{32}$/);

const idempotencyKey = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('k1', 'k2', 'k-1', 'replay') },
  { weight: 4, arbitrary: printable(24) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...WS), printable(12), fc.constantFrom(...WS)).map(([a, b, c]) => a + b + c) },
  { weight: 1, arbitrary: fc.constantFrom('k'.repeat(255), 'k'.repeat(256), '   ', '\t', 'a b', 'caf\u00e9', '\u00a0', 'k\u0000', 'a\r\nb') },
  { weight: 2, arbitrary: unicodeText(12) },
  { weight: 1, arbitrary: anyText(8) },
);

const sessionKey = fc.oneof(
  fc.constantFrom('agent:main:webui:dm:user-42', ' padded ', '', '   ', 'a\rb', 'a\nb', 'a\u0000b', '\u00a0x\u00a0', 'x'.repeat(256), 'x'.repeat(257)),
  printable(40),
  unicodeText(30),
  fc.integer({ min: 200, max: 400 }).map((n) => 'é'.repeat(n)),
  fc.tuple(fc.constantFrom(...WS), unicodeText(10), fc.constantFrom(...WS)).map(([a, b, c]) => a + b + c),
);

const authorization = fc.constantFrom(
  `Bearer ${K}`, `Bearer ${K}`, `Bearer ${K}`, `Bearer ${K}`, `Bearer   ${K}  `, `Bearer ${ALICE}`, `bearer ${K}`, `BEARER ${K}`,
  'Bearer wrong', 'Bearer ', 'Basic dXNlcjpwYXNz', 'HermesRoom x', 'hermesroom grant.token', `Bearer ${K}\u00a0`, `Bearer\t${K}`, undefined,
);

const contentType = fc.constantFrom(
  undefined, undefined, 'application/json', 'application/json; charset=utf-8', 'application/json; charset=UTF-8', 'text/plain',
  'application/json; charset=latin-1', 'application/json; charset="utf-8"', 'application/json; charset=ascii', 'application/json; charset=utf-16',
  'application/json; charset=bogus', 'application/json; charset=x-user-defined', 'application/json; charset=cp1252', 'application/json; charset=utf-8-sig',
  'application/json; charset=koi8-r', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'application/json;charset=',
);

const origin = fc.constantFrom(undefined, undefined, undefined, undefined, undefined, OK_ORIGIN, 'http://evil.test', 'null', 'http://localhost:3000');
const accept = fc.constantFrom(undefined, undefined, undefined, 'application/json', '*/*', 'text/html');

/** JSON text in Python or compact style, with optional non-standard twists that Python's json.loads still reads. */
function writeJson(v: unknown, style: { spaced: boolean; escapeAll: boolean }): string {
  const sep = style.spaced ? [', ', ': '] : [',', ':'];
  const str = (s: string) => {
    let out = '"';
    for (const ch of s) {
      const c = ch.codePointAt(0)!;
      if (ch === '"' || ch === '\\') out += `\\${ch}`;
      else if (c < 0x20 || (style.escapeAll && c > 0x7e)) {
        if (c > 0xffff) {
          const hi = Math.floor((c - 0x10000) / 0x400) + 0xd800;
          const lo = ((c - 0x10000) % 0x400) + 0xdc00;
          out += `\\u${hi.toString(16)}\\u${lo.toString(16)}`;
        } else out += `\\u${c.toString(16).padStart(4, '0')}`;
      } else out += ch;
    }
    return `${out}"`;
  };
  const w = (x: unknown): string => {
    if (x === null || x === undefined) return 'null';
    if (typeof x === 'string') return str(x);
    if (typeof x === 'number') return Number.isFinite(x) ? (Object.is(x, -0) ? '-0.0' : String(x)) : Number.isNaN(x) ? 'NaN' : x > 0 ? 'Infinity' : '-Infinity';
    if (typeof x === 'boolean') return String(x);
    if (x instanceof Raw) return x.text;
    if (Array.isArray(x)) return `[${x.map(w).join(sep[0])}]`;
    return `{${Object.entries(x as object).map(([k, val]) => str(k) + sep[1] + w(val)).join(sep[0])}}`;
  };
  return w(v);
}

/** A verbatim JSON fragment (lone surrogate escapes, huge numbers, duplicate keys…). */
class Raw {
  constructor(readonly text: string) {}
}

const rawFragment = fc.constantFrom(
  new Raw('"\\ud800"'), new Raw('"\\udfff x"'), new Raw('"\\ud83d\\ude00"'), new Raw('1e400'), new Raw('-1e400'), new Raw('NaN'), new Raw('Infinity'),
  new Raw('-Infinity'), new Raw('12345678901234567890123'), new Raw('-0.0'), new Raw('1e16'), new Raw('0.00001'), new Raw('1.0'), new Raw('0'),
  new Raw(`1${'0'.repeat(4299)}`), new Raw(`1${'0'.repeat(4300)}`), new Raw(`${'9'.repeat(5000)}.5`), new Raw('"\\u0000"'), new Raw('"\u2028"'),
);

const leaf = fc.oneof(
  { weight: 5, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 2, arbitrary: unicodeText(12) },
  { weight: 1, arbitrary: anyText(6) },
  { weight: 2, arbitrary: rawFragment },
  { weight: 1, arbitrary: fc.double() },
);

const message = fc.record(
  { role: fc.oneof(fc.constantFrom('user', 'assistant', 'system', '', null), leaf), content: fc.oneof(fc.constantFrom('hi', '', null, [{ type: 'text', text: 'a' }]), leaf) },
  { requiredKeys: [] },
);

const inputValue = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('hello', 'hi', '   ', 'Summarize the repo') },
  { weight: 2, arbitrary: unicodeText(20) },
  { weight: 3, arbitrary: fc.array(fc.oneof({ weight: 4, arbitrary: message }, { weight: 1, arbitrary: leaf }), { maxLength: 4 }) },
  { weight: 2, arbitrary: leaf },
  { weight: 1, arbitrary: fc.constantFrom(null, '', [], {}, 0, false, 42, true, { content: 'hi' }) },
);

const runBody = fc.record(
  {
    input: inputValue,
    session_id: fc.oneof(fc.constantFrom('s1', '', null, 0), leaf),
    model: fc.oneof(fc.constantFrom('hermes-agent', null, 'gpt-x'), leaf),
    conversation_history: fc.oneof(fc.constantFrom([], {}, '', 'nope', [{ role: 'user', content: 'a' }, { role: 'assistant' }]), fc.array(message, { maxLength: 3 }), leaf),
    instructions: leaf,
    previous_response_id: fc.oneof(fc.constant('resp_x'), leaf),
    choice: fc.constantFrom('once', 'APPROVE', 'deny', 'maybe', null, 1, true, ' Session '),
    request_id: fc.oneof(fc.constantFrom('REQ', '', 5, null, 'x'.repeat(300)), leaf),
    all: fc.constantFrom(true, 'yes', 'off', 1, 'maybe'),
    message: leaf,
    text: leaf,
    extra: leaf,
  },
  { requiredKeys: [] },
);

const deep = fc.tuple(fc.constantFrom(10, 200, 849, 899, 900, 901, 999, 1001, 1500, 20_000, 200_000), fc.constantFrom('[', '{"a":'), fc.boolean()).map(([n, open, wrap]) => {
  const close = open === '[' ? ']' : '}';
  const nested = open.repeat(n) + (open === '[' ? '' : '1') + close.repeat(n);
  return wrap ? `{"input":"hi","x":${nested}}` : nested;
});

/** Mostly admissible run bodies, with a little noise. */
const plausibleBody = fc
  .record(
    {
      input: fc.oneof({ weight: 5, arbitrary: fc.constantFrom('hello', 'hi', '   ', 'héllo ☃') }, { weight: 1, arbitrary: fc.array(message, { minLength: 1, maxLength: 3 }) }, { weight: 1, arbitrary: inputValue }),
      session_id: fc.oneof(fc.constantFrom('s1', null), leaf),
      model: fc.oneof(fc.constantFrom('hermes-agent', null), leaf),
      extra: leaf,
    },
    { requiredKeys: ['input'] },
  )
  .chain((b) => fc.tuple(fc.constant(b), fc.boolean(), fc.boolean()))
  .map(([b, spaced, escapeAll]) => writeJson(b, { spaced, escapeAll }));

const bodyText = fc.oneof(
  { weight: 10, arbitrary: plausibleBody },
  { weight: 10, arbitrary: fc.tuple(runBody, fc.boolean(), fc.boolean()).map(([b, spaced, escapeAll]) => writeJson(b, { spaced, escapeAll })) },
  { weight: 3, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
  { weight: 2, arbitrary: fc.tuple(leaf, fc.boolean()).map(([v, spaced]) => writeJson(v, { spaced, escapeAll: false })) },
  { weight: 2, arbitrary: fc.constantFrom('', ' ', 'not json', '{', '{"input":"a","input":"b"}', '{"input":"hi",}', "{'input':'hi'}", '{"input":"hi"} x', '[1]', '"x"', 'null', '0', '{"input":[1]}', '{"input":["hi"]}', '{"input":[{"content":"hi"},"x"]}', '{"input":"\\ud800"}', '{"\\udfff":1,"input":"x"}', '{"input":"hi","n":NaN}', '{"input":"hi","n":nan}', '{"input":"x\ty"}', '{"choice":"once"}', '{"input":"hi"}\n', '\n\t{"input":"hi"}\r\n') },
  { weight: 1, arbitrary: deep },
);

const bodyBytes: fc.Arbitrary<Uint8Array | null> = fc.oneof(
  { weight: 12, arbitrary: bodyText.map((t) => new Uint8Array(Buffer.from(t, 'utf8'))) },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 64 }) },
  {
    weight: 3,
    arbitrary: fc.tuple(bodyText, fc.constantFrom('bom', 'bad-utf8', 'truncate', 'overlong', 'surrogate-bytes', 'latin1', 'nul')).map(([t, how]) => {
      const b = Buffer.from(t, 'utf8');
      const mid = b.length >> 1;
      switch (how) {
        case 'bom': return new Uint8Array(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), b]));
        case 'bad-utf8': return new Uint8Array(Buffer.concat([b.subarray(0, mid), Buffer.from([0xff, 0xfe]), b.subarray(mid)]));
        case 'truncate': return new Uint8Array(b.subarray(0, mid));
        case 'overlong': return new Uint8Array(Buffer.concat([b.subarray(0, mid), Buffer.from([0xc0, 0xaf]), b.subarray(mid)]));
        case 'surrogate-bytes': return new Uint8Array(Buffer.concat([Buffer.from('{"input":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]));
        case 'latin1': return new Uint8Array(Buffer.from(t.replace(/"hi"/, '"h\u00e9"'), 'latin1'));
        default: return new Uint8Array(Buffer.concat([b, Buffer.from([0])]));
      }
    }),
  },
  { weight: 2, arbitrary: fc.constant(null) },
);

const segment = fc.oneof(
  fc.constantFrom('v1', 'runs', 'events', 'stop', 'x', '', '%2F', '%00', '%zz', '%', '..', '.', 'run_doesnotexist', '{run_id}', '%7Brun_id%7D', 'health', '%E2%98%83', '%ff'),
  fc.stringMatching(/^[A-Za-z0-9._~%-]{1,12}$/),
);

function encodeSome(id: string, how: number): string {
  if (how === 0) return id;
  if (how === 1) return id.replace(/^r/, '%72');
  if (how === 2) return encodeURIComponent(id).replace(/_/g, '%5F');
  return id.toUpperCase();
}

function pathArb(world: World) {
  const runId = fc.oneof(
    { weight: 5, arbitrary: fc.nat().map((i) => (world.all.length ? world.all[i % world.all.length]! : 'run_doesnotexist')) },
    { weight: 2, arbitrary: hex32.map((h) => `run_${h}`) },
    { weight: 1, arbitrary: fc.constantFrom('run_doesnotexist', 'run_', ' ', '%20', 'run_%2Fx', 'run_é') },
    { weight: 1, arbitrary: segment },
  );
  const withId = fc.tuple(runId, fc.integer({ min: 0, max: 4 }), fc.constantFrom('', '/events', '/approval', '/steer', '/stop', '/stop', '/approval', '/cancel', '/', '/stop/'));
  const main = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('/v1/runs', '/v1/runs', '/v1/runs', '/v1/runs/', '/health', '/v1/health', '/v1/capabilities', '/', '/v1', '/api/sessions', '/v1/runs//stop', '//v1/runs', '/V1/runs', '/v1/runs%2F', '/__admin') },
    { weight: 6, arbitrary: withId.map(([id, how, tail]) => `/v1/runs/${encodeSome(id, how % 4)}${tail}`) },
    { weight: 1, arbitrary: fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => `/${s.join('/')}`) },
  );
  const prefix = fc.constantFrom('', '', '', '', '', '/p/default', '/p/alice', '/p/bob', '/p/nobody', '/p/', '/p/%61lice');
  const query = fc.constantFrom('', '', '', '', '?x=1', '?', '?input=hi&a=%zz');
  return fc.tuple(prefix, main, query).map(([p, m, q]) => `${p}${m}${q}`);
}

/** Requests aimed at a real route with the right method and (mostly) the right key, so handlers run. */
function targetedArb(world: World): fc.Arbitrary<FuzzRequest> {
  const id = fc.oneof(
    { weight: 6, arbitrary: fc.nat().map((i) => (world.all.length ? world.all[i % world.all.length]! : 'run_doesnotexist')) },
    { weight: 1, arbitrary: hex32.map((h) => `run_${h}`) },
  );
  const aimed = fc.oneof(
    { weight: 6, arbitrary: fc.constant(['POST', '/v1/runs']) },
    { weight: 2, arbitrary: id.map((r) => ['GET', `/v1/runs/${r}`]) },
    { weight: 2, arbitrary: id.map((r) => ['POST', `/v1/runs/${r}/approval`]) },
    { weight: 1, arbitrary: id.map((r) => ['POST', `/v1/runs/${r}/steer`]) },
    { weight: 1, arbitrary: id.map((r) => ['POST', `/v1/runs/${r}/stop`]) },
    { weight: 1, arbitrary: id.map((r) => ['GET', `/v1/runs/${r}/events`]) },
    { weight: 1, arbitrary: fc.constantFrom(['GET', '/v1/capabilities'], ['GET', '/health'], ['GET', '/v1/health']) },
  );
  return fc
    .record({
      aimed,
      prefix: fc.constantFrom('', '', '', '', '', '', '/p/default', '/p/alice'),
      authorization: fc.oneof({ weight: 8, arbitrary: fc.constant(`Bearer ${K}`) }, { weight: 2, arbitrary: authorization }),
      idem: fc.option(idempotencyKey, { freq: 2 }),
      session: fc.option(sessionKey, { freq: 4 }),
      contentType: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: contentType }),
      origin: fc.oneof({ weight: 12, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: origin }),
      accept: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: accept }),
      body: bodyBytes,
    })
    .map((r) => {
      const auth = r.prefix === '/p/alice' && r.authorization === `Bearer ${K}` ? `Bearer ${ALICE}` : r.authorization;
      const headers: Array<[string, string]> = auth === undefined ? [] : [['Authorization', auth]];
      if (r.idem !== null) headers.push(['Idempotency-Key', r.idem]);
      if (r.session !== null) headers.push(['X-Hermes-Session-Key', r.session]);
      if (r.contentType !== undefined) headers.push(['Content-Type', r.contentType]);
      if (r.origin !== undefined) headers.push(['Origin', r.origin]);
      if (r.accept !== undefined) headers.push(['Accept', r.accept]);
      return { method: r.aimed[0]!, target: r.prefix + r.aimed[1]!, headers, body: r.body };
    });
}

function requestArb(world: World): fc.Arbitrary<FuzzRequest> {
  return fc.oneof({ weight: 3, arbitrary: targetedArb(world) }, { weight: 2, arbitrary: wildArb(world) });
}

/** Anything goes: methods, paths, headers and bodies drawn independently. */
function wildArb(world: World): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: fc.constantFrom('POST', 'POST', 'POST', 'GET', 'GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
      target: pathArb(world),
      authorization,
      idem: fc.option(idempotencyKey, { freq: 2 }),
      session: fc.option(sessionKey, { freq: 3 }),
      contentType,
      origin,
      accept,
      body: bodyBytes,
    })
    .map((r) => {
      const headers: Array<[string, string]> = [];
      if (r.authorization !== undefined) headers.push(['Authorization', r.authorization]);
      if (r.idem !== null) headers.push(['Idempotency-Key', r.idem]);
      if (r.session !== null) headers.push(['X-Hermes-Session-Key', r.session]);
      if (r.contentType !== undefined) headers.push(['Content-Type', r.contentType]);
      if (r.origin !== undefined) headers.push(['Origin', r.origin]);
      if (r.accept !== undefined) headers.push(['Accept', r.accept]);
      return { method: r.method, target: r.target, headers, body: r.body };
    });
}

/** Learns visible run ids from admissions (their ownership scope is the route's profile's). */
function learn(world: World, req: FuzzRequest, ans: Answer): void {
  if (ans.status !== 202) return;
  const r = route(req);
  if (r === 'elsewhere' || r.route !== 'submit') return;
  world.add(r.profile === 'alice' ? 'alice' : 'default', JSON.parse(ans.body.toString('utf8')).run_id);
}

/** A few runs in every state, so real ids hit every branch. */
async function seedRuns(emulator: Emulator, world: World, fetchImpl: (req: Request) => Promise<Response>, base: string): Promise<void> {
  const submit = async (prefix: string, key: string, idem?: string) => {
    const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
    if (idem) headers['Idempotency-Key'] = idem;
    const res = await fetchImpl(new Request(`${base}${prefix}/v1/runs`, { method: 'POST', headers, body: '{"input":"hello"}' }));
    const id = ((await res.json()) as { run_id: string }).run_id;
    world.add(prefix ? 'alice' : 'default', id);
    return id;
  };
  await new Promise((r) => setImmediate(r));
  const { admin } = emulator;
  await submit('', K);
  await submit('', K, 'k1');
  await submit('/p/alice', ALICE, 'k1');
  await new Promise((r) => setImmediate(r));
  const waiting = await submit('', K, 'waiting');
  const waiting2 = await submit('', K);
  const done = await submit('', K, 'done');
  const failed = await submit('', K);
  const stopping = await submit('', K);
  await new Promise((r) => setImmediate(r));
  await admin.approvalRequest(waiting, { command: 'rm -rf /', request_id: 'REQ' });
  await admin.approvalRequest(waiting2, { command: 'ls', allow_permanent: false });
  await admin.complete(done, { output: 'Done.', usage: { input_tokens: 1, output_tokens: 2 } });
  await admin.fail(failed, { error: 'boom' });
  await admin.stopPolicy(stopping, { acknowledge: false });
  await fetchImpl(new Request(`${base}/v1/runs/${stopping}/stop`, { method: 'POST', headers: { Authorization: `Bearer ${K}` } }));
}

async function healthOk(send: (req: FuzzRequest) => Promise<Answer>): Promise<void> {
  const ans = await send({ method: 'GET', target: '/health', headers: [], body: null });
  assert.equal(ans.status, 200);
  assert.equal(ans.body.toString(), '{"status": "ok", "platform": "hermes-agent", "version": "0.21.0"}');
}

// ---------------------------------------------------------------------------------------------------------------

describe(`API fuzz (seed ${SEED}; rerun with FUZZ_SEED=${SEED})`, () => {
  after(() => assert.deepEqual(BUGS.map((b) => (b as Error)?.stack ?? String(b)), [], 'no request met a bug of Hermetic\'s own'));
  for (const transport of ['fetch', 'handle'] as const) {
    it(`in process (${transport}): random and malformed requests never break Hermes's envelopes`, async (t) => {
      const emulator = createEmulator(OPTIONS);
      const world = new World();
      try {
        await seedRuns(emulator, world, emulator.fetch, 'http://hermes.test');
        const send = (req: FuzzRequest) => sendInProcess(emulator, req, transport);
        const statuses = new Map<number, number>();
        await fc.assert(
          fc.asyncProperty(requestArb(world), async (generated) => {
            const req = adaptForTransport(generated, transport);
            const ans = await send(req);
            checkAnswer(req, ans, world, transport);
            learn(world, req, ans);
            statuses.set(ans.status, (statuses.get(ans.status) ?? 0) + 1);
          }),
          { numRuns: transport === 'fetch' ? 2500 : 1500, seed: SEED, endOnFailure: true },
        );
        t.diagnostic(`statuses: ${[...statuses].sort(([a], [b]) => a - b).map(([k, n]) => `${k}×${n}`).join(' ')}`);
        await healthOk(send);
      } finally {
        await emulator.close();
      }
    });
  }

  describe('over a real node:http server', () => {
    let server: ServerHandle;
    before(async () => {
      server = await startServer({ ...OPTIONS, port: 0 });
    });
    after(async () => {
      await server.close();
    });

    it('random and malformed requests over the wire never break Hermes\'s envelopes', async () => {
      const world = new World();
      await seedRuns(server.emulator, world, globalThis.fetch, server.url);
      await fc.assert(
        fc.asyncProperty(requestArb(world), async (generated) => {
          const req = adaptForTransport(generated, 'http');
          const ans = await sendHttp(server, req);
          checkAnswer(req, ans, world, 'http');
          learn(world, req, ans);
        }),
        { numRuns: 300, seed: SEED, endOnFailure: true },
      );
      await healthOk((req) => sendHttp(server, req));
    });

    it('a non-ASCII X-Hermes-Session-Key is echoed on the 202 as its UTF-8 bytes, as aiohttp writes it (§4 step 5)', async () => {
      const key = fc
        .tuple(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }), fc.constantFrom('é', 'Ā', '☃', '😀', 'a'))
        .map(([s, c]) => s + c)
        .filter((s) => pyStrip(s) !== '' && !/[\r\n\0]/.test(s) && codePoints(pyStrip(s)) <= 256);
      await fc.assert(
        fc.asyncProperty(key, async (sessionKey) => {
          const req = adaptForTransport(
            { method: 'POST', target: '/v1/runs', headers: [['Authorization', `Bearer ${K}`], ['X-Hermes-Session-Key', sessionKey]], body: new Uint8Array(Buffer.from('{"input":"hi"}')) },
            'http',
          );
          const ans = await sendHttp(server, req);
          assert.equal(ans.status, 202, ans.body.toString());
          const echoed = Buffer.from(ans.headers['x-hermes-session-key'] ?? '', 'latin1').toString('utf8');
          assert.equal(echoed, pyStrip(header(req, 'x-hermes-session-key')!));
        }),
        { numRuns: 100, seed: SEED, endOnFailure: true },
      );
    });

    it('transport parity: the same header bytes mean the same thing in process (fetch) and over the wire', async () => {
      // Header values travel as UTF-8 bytes both ways: on the wire literally, and in a fetch Request as the ByteString
      // a Fetch caller writes (one char per byte). A: Idempotency-Key with a valid body (the key is checked after the
      // JSON); B: X-Hermes-Session-Key with an invalid body (checked before it, so nothing is echoed). Both stateless
      // enough (seeded ids, frozen clock) that the in-process twin and the server stay in step.
      const payload = fc.oneof(
        fc.record({ idem: idempotencyKey, session: fc.constant(null) }),
        fc.record({ idem: fc.constant(null), session: sessionKey }),
      );
      const mask = (s: string) => s.replace(/run_[0-9a-f]{32}/g, 'run_<R>');
      // A fresh pair, so the server's store holds exactly what the twin's does.
      const server = await startServer({ ...OPTIONS, port: 0 });
      const twin = createEmulator(OPTIONS);
      try {
      await fc.assert(
        fc.asyncProperty(payload, async ({ idem, session }) => {
          const headers: Array<[string, string]> = [['Authorization', `Bearer ${K}`]];
          if (idem !== null) headers.push(['Idempotency-Key', idem]);
          if (session !== null) headers.push(['X-Hermes-Session-Key', session]);
          const body = new Uint8Array(Buffer.from(session === null ? '{"input":"parity"}' : 'not json'));
          const req = adaptForTransport({ method: 'POST', target: '/v1/runs', headers, body }, 'http');
          const overWire = await sendHttp(server, req);
          const wireHeaders = req.headers.map(([k, v]): [string, string] => [k, Buffer.from(v, 'utf8').toString('latin1')]);
          const inProcess = await sendInProcess(twin, { ...req, headers: wireHeaders }, 'fetch');
          assert.equal(
            `${inProcess.status} ${mask(inProcess.body.toString())}`,
            `${overWire.status} ${mask(overWire.body.toString())}`,
            `fetch vs node:http disagree for headers ${JSON.stringify(req.headers)} (bytes as latin-1: ${JSON.stringify(wireHeaders)})`,
          );
        }),
        { numRuns: 200, seed: SEED, endOnFailure: true },
      );
      } finally {
        await server.close();
        await twin.close();
      }
    });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Stateful: a random walk over the run lifecycle, checking the status-object invariants after every step.

const TERMINAL = new Set(['completed', 'failed', 'cancelled', 'interrupted']);
const INSERTION_PREFIX = ['object', 'run_id', 'status', 'updated_at', 'created_at'];
const BODIES = ['{"input":"hello"}', '{"input":"hello","session_id":"s1"}', '{"input":[{"role":"user","content":"hi"}],"model":null}'];

type Command =
  | { kind: 'submit'; key: string | null; body: number; session: boolean }
  | { kind: 'admin'; action: 'start' | 'tool' | 'approval-request' | 'complete' | 'fail' | 'cancel' | 'refuse-stop' | 'refuse-steer'; run: number }
  | { kind: 'api'; action: 'get' | 'stop' | 'approve' | 'deny-all' | 'bad-choice' | 'steer' | 'steer-empty' | 'events'; run: number }
  | { kind: 'clock'; seconds: number }
  | { kind: 'sweep' }
  | { kind: 'restart' }
  | { kind: 'draining'; on: boolean };

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('submit' as const), key: fc.option(fc.constantFrom('k0', 'k1', 'k2', ' k1 '), { freq: 3 }), body: fc.nat(BODIES.length - 1), session: fc.boolean() }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('admin' as const), action: fc.constantFrom('start', 'tool', 'approval-request', 'approval-request', 'complete', 'fail', 'cancel', 'refuse-stop', 'refuse-steer'), run: fc.nat(30) }) },
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('api' as const), action: fc.constantFrom('get', 'get', 'stop', 'approve', 'deny-all', 'bad-choice', 'steer', 'steer-empty', 'events'), run: fc.nat(30) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('clock' as const), seconds: fc.constantFrom(1, 61, 301, 3601, 86_401, 90_000) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'sweep' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('draining' as const), on: fc.boolean() }) },
);

interface RunModel {
  id: string;
  keyed: boolean;
  terminal: string | null;
}

function checkStatusObject(text: string, model: RunModel): void {
  assert.equal(pythonJsonProblem(text), null, text);
  const value = parseJsonText(text);
  const keys = Object.keys(value);
  const hydrated = !same(keys.slice(0, 5), INSERTION_PREFIX);
  if (hydrated) {
    // Durable snapshot: alphabetical, except what the interrupted rewrite appends (error, then last_event).
    let sorted = keys;
    if (value.status === 'interrupted') {
      if (sorted.at(-1) === 'last_event' && sorted.at(-2) === 'error') sorted = sorted.slice(0, -2);
      else if (sorted.at(-1) === 'error') sorted = sorted.slice(0, -1);
    }
    assert.deepEqual(sorted, [...sorted].sort(), `status keys neither insertion-ordered nor alphabetical: ${text}`);
    assert.ok(model.keyed, `only keyed runs come back from the durable store: ${text}`);
  }
  assert.equal(value.object, 'hermes.run');
  assert.equal(value.run_id, model.id);
  if (value.status === 'waiting_for_approval') assert.ok('approval' in value, `waiting_for_approval without approval: ${text}`);
  if ('approval' in value) {
    assert.ok(value.status === 'waiting_for_approval' || (hydrated && value.status === 'interrupted'), `approval outside waiting_for_approval: ${text}`);
  }
  observe(model, value.status);
}

function observe(model: RunModel, status: string): void {
  if (model.terminal !== null) assert.equal(status, model.terminal, `terminal run ${model.id} changed from ${model.terminal} to ${status}`);
  else if (TERMINAL.has(status)) model.terminal = status;
}

describe('stateful random walk', () => {
  let dir = '';
  let walks = 0;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'hermetic-fuzz-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  it('terminal statuses stick, approval iff waiting, key order holds, replays keep their run id', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(commandArb, { minLength: 5, maxLength: 40 }), async (commands) => {
        // A file store: an in-memory one does not survive an emulated restart (as Hermes's fallback store).
        const emulator = createEmulator({ apiKey: K, time: T0, frozen: true, maxConcurrentRuns: 4, db: join(dir, `walk-${walks++}.db`), onInternalError: (e) => void BUGS.push(e) });
        const runs: RunModel[] = [];
        const keys = new Map<string, { body: number; session: boolean; runId: string; at: number }>();
        let now = T0;
        let draining = false;
        const call = async (method: string, path: string, body?: string, extra: Record<string, string> = {}) => {
          const res = await emulator.fetch(new Request(`http://hermes.test${path}`, { method, body, headers: { Authorization: `Bearer ${K}`, ...extra } }));
          if (res.headers.get('content-type') === 'text/event-stream') {
            await res.body?.cancel();
            return { status: res.status, text: '' };
          }
          return { status: res.status, text: await res.text() };
        };
        const tick = () => new Promise((r) => setImmediate(r));
        try {
          for (const cmd of commands) {
            if (cmd.kind === 'submit') {
              const headers: Record<string, string> = {};
              if (cmd.key) headers['Idempotency-Key'] = cmd.key;
              if (cmd.session) headers['X-Hermes-Session-Key'] = 'agent:main';
              const { status, text } = await call('POST', '/v1/runs', BODIES[cmd.body], headers);
              assert.ok([202, 409, 429, 503].includes(status), `submit → ${status} ${text}`);
              assert.equal(pythonJsonProblem(text), null, text);
              if (draining) {
                assert.equal(status, 503, 'draining refuses every submit, replays included');
                continue;
              }
              const stripped = cmd.key?.trim() ?? null;
              const record = stripped ? keys.get(stripped) : undefined;
              const value = JSON.parse(text);
              if (status === 202) {
                const model = runs.find((r) => r.id === value.run_id);
                if (value.replayed) {
                  assert.ok(record, `replay without a prior key: ${text}`);
                  assert.equal(value.run_id, record!.runId, 'a replay returns the original run id');
                  assert.ok(record!.body === cmd.body && record!.session === cmd.session, 'a replay needs the same fingerprint');
                  if (model) observe(model, value.status);
                } else {
                  assert.equal(value.status, 'started');
                  if (record) assert.ok(now - record.at > 86_400, `key ${stripped} admitted a new run while its row must still exist`);
                  assert.ok(!model, 'a new run id');
                  runs.push({ id: value.run_id, keyed: Boolean(stripped), terminal: null });
                  if (stripped) keys.set(stripped, { body: cmd.body, session: cmd.session, runId: value.run_id, at: now });
                }
              } else if (status === 409) {
                assert.ok(record && (record.body !== cmd.body || record.session !== cmd.session), `409 without a conflicting key: ${text}`);
                assert.equal(value.error.code, 'idempotency_key_conflict');
              } else assert.equal(value.error.code, status === 429 ? 'rate_limit_exceeded' : 'gateway_draining');
              await tick();
            } else if (cmd.kind === 'admin') {
              const model = runs[cmd.run % Math.max(runs.length, 1)];
              if (!model) continue;
              const a = emulator.admin;
              try {
                if (cmd.action === 'start') await a.start(model.id);
                else if (cmd.action === 'tool') await a.event(model.id, { event: 'tool.started', tool: 'terminal', preview: 'ls' });
                else if (cmd.action === 'approval-request') await a.approvalRequest(model.id, { command: 'rm -rf build' });
                else if (cmd.action === 'complete') observe(model, (await a.complete(model.id, { output: 'Done.' })).status);
                else if (cmd.action === 'fail') observe(model, (await a.fail(model.id, { error: 'boom' })).status);
                else if (cmd.action === 'cancel') {
                  const r = await a.cancel(model.id, {});
                  if (r.status) observe(model, r.status);
                } else if (cmd.action === 'refuse-stop') await a.stopPolicy(model.id, { acknowledge: false });
                else await a.steerPolicy(model.id, { accept: false });
              } catch (e) {
                const code = (e as { code?: string }).code ?? '';
                assert.match(code, /^HERMETIC_RUN_(UNKNOWN|TERMINAL|NOT_STARTED)$/, String(e));
              }
              await tick();
            } else if (cmd.kind === 'api') {
              const model = runs[cmd.run % Math.max(runs.length, 1)] ?? { id: 'run_doesnotexist', keyed: false, terminal: null };
              const base = `/v1/runs/${model.id}`;
              let res: { status: number; text: string };
              if (cmd.action === 'get') res = await call('GET', base);
              else if (cmd.action === 'stop') res = await call('POST', `${base}/stop`, 'not json');
              else if (cmd.action === 'events') res = await call('GET', `${base}/events`);
              else if (cmd.action === 'steer') res = await call('POST', `${base}/steer`, '{"input":"focus"}');
              else if (cmd.action === 'steer-empty') res = await call('POST', `${base}/steer`, '{}');
              else {
                const body = cmd.action === 'approve' ? '{"choice":"approve"}' : cmd.action === 'deny-all' ? '{"choice":"deny","all":true}' : '{"choice":"maybe"}';
                res = await call('POST', `${base}/approval`, body);
              }
              assert.ok(res.status < 500, `${cmd.action} → ${res.status} ${res.text}`);
              if (res.text) assert.equal(pythonJsonProblem(res.text), null, res.text);
              if (res.status === 200 && (cmd.action === 'get' || cmd.action === 'stop')) {
                const value = JSON.parse(res.text);
                if (cmd.action === 'stop' && !('object' in value)) {
                  assert.equal(res.text, `{"run_id": "${model.id}", "status": "stopping"}`);
                  assert.equal(model.terminal, null, 'stop on a terminal run returns its status object, unchanged');
                } else checkStatusObject(res.text, model);
              }
              if (res.status >= 400) checkEnvelope(res.status, parseJsonText(res.text), res.text);
              if (model.terminal && ['approve', 'deny-all', 'steer', 'steer-empty'].includes(cmd.action) && res.status !== 404) {
                assert.equal(res.status, 409, `${cmd.action} on a ${model.terminal} run: ${res.text}`);
              }
              await tick();
            } else if (cmd.kind === 'clock') {
              now = (await emulator.admin.clock({ advance: cmd.seconds })).now;
            } else if (cmd.kind === 'sweep') await emulator.admin.sweep({});
            else if (cmd.kind === 'restart') {
              await emulator.admin.restart({});
              draining = false;
              // Keyless runs are gone; in-flight keyed runs become interrupted when next read.
              for (const r of runs) if (!r.keyed && r.terminal === null) r.terminal = 'gone';
            } else {
              await emulator.admin.gateway({ draining: cmd.on });
              draining = cmd.on;
            }
          }
          // Final sweep over every run.
          for (const model of runs) {
            const res = await call('GET', `/v1/runs/${model.id}`);
            if (res.status === 200) checkStatusObject(res.text, model);
            else assert.equal(res.text, `{"error": {"message": "Run not found: ${model.id}", "type": "invalid_request_error", "param": null, "code": "run_not_found"}}`);
          }
          assert.equal((await call('GET', '/health')).status, 200);
        } finally {
          await emulator.close();
        }
      }),
      { numRuns: 150, seed: SEED },
    );
  });
});
