// The HTTP transport: a real node:http server in front of the emulator's handler, streaming event responses and
// noticing departed clients on the next write, as aiohttp does.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HermeticError, isHermeticError } from '../../shared/errors.js';
import { createEmulator, type Emulator, type EmulatorOptions } from '../index.js';
import { headerFromWire, headerWireText, reasonPhrase, type HttpRequest, type HttpResponse, type StreamSink } from '../http.js';
import { finish } from '../app.js';
import { internalErrorPage, parserRefusalPage } from '../wire/responses.js';
import { MAX_FIELD_SIZE, MAX_HEADERS, MAX_LINE_SIZE, parserRefusal } from './parser-limits.js';

/**
 * node's maxHeaderSize: room for the longest head aiohttp's parser reads before it refuses one (a target of 8190
 * bytes, then 129 headers of a name and a value up to 8190 bytes each); past it node answers 431 itself.
 */
const MAX_HEAD_BYTES = MAX_LINE_SIZE + 64 + (MAX_HEADERS + 1) * (2 * MAX_FIELD_SIZE + 4);

export interface ServerOptions extends EmulatorOptions {
  /** Default 8642, Hermes's own; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Serve an existing emulator instead of creating one from the options. */
  emulator?: Emulator;
  /** Bytes of request bodies held at once (default BODY_BUDGET, 128 MiB): a body past it waits its turn. */
  bodyBudget?: number;
}

export interface ServerHandle {
  readonly url: string;
  readonly port: number;
  readonly host: string;
  readonly emulator: Emulator;
  close(): Promise<void>;
}

/** Request bodies one server holds in memory at once, at most (bytes): a body read past it waits its turn. */
export const BODY_BUDGET = 128 * 1024 * 1024;

/**
 * The bytes of request bodies a server may hold at once. A body reserves, before its first byte is read, what it may
 * come to (its Content-Length, or the route's limit when it has none) and gives it back when its answer is done; one
 * that does not fit waits, first come first served, its socket unread (the kernel's buffers, not ours, hold what the
 * client sent meanwhile). So memory stays bounded whatever many clients send at once, and nothing is refused for it.
 */
export class BodyBudget {
  #free: number;
  readonly #waiting: { bytes: number; go: () => void }[] = [];

  constructor(readonly size = BODY_BUDGET) {
    this.#free = size;
  }

  /** Resolves once `bytes` are reserved; the release function gives them back (once). */
  reserve(bytes: number): Promise<() => void> {
    const want = Math.min(bytes, this.size);
    return new Promise((resolve) => {
      const go = () => {
        this.#free -= want;
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          this.#free += want;
          this.#next();
        });
      };
      if (this.#waiting.length === 0 && want <= this.#free) go();
      else this.#waiting.push({ bytes: want, go });
    });
  }

  #next(): void {
    while (this.#waiting.length > 0 && this.#waiting[0]!.bytes <= this.#free) this.#waiting.shift()!.go();
  }
}

/**
 * aiohttp's request.headers.get(): the first value of a repeated header; node joins most with ", " in req.headers, so
 * the values are read apart (decision 0046). req.headers is built by node for every request anyway; only a value that
 * may be two joined (it holds a comma) is looked up again in headersDistinct, which costs a second pass over the raw
 * headers.
 */
function headerOf(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  if (v === undefined) return undefined;
  if (typeof v === 'string' && !v.includes(',')) return headerFromWire(v);
  return headerFromWire(req.headersDistinct[name]![0]!);
}

function fromNode(req: IncomingMessage, res: ServerResponse, budget: BodyBudget): HttpRequest {
  // aiohttp's parser (`_on_status_complete`) splits an origin-form target at its first '?', then cuts a fragment
  // ('#…') off what follows, or off the path when there is no query; an absolute-form one is parsed as a URL
  // (decision 0070).
  const target = req.url ?? '/';
  let path: string;
  let query: string;
  if (target.startsWith('/')) {
    const q = target.indexOf('?');
    const hash = target.indexOf('#', q < 0 ? 0 : q);
    path = target.slice(0, q >= 0 ? q : hash >= 0 ? hash : undefined);
    query = q < 0 ? '' : target.slice(q + 1, hash >= 0 ? hash : undefined);
  } else {
    const [, before = '', after = ''] = /^([^?#]*)(?:\?([^#]*))?/.exec(target)!;
    path = before.replace(/^[a-z]+:\/\/[^/]*/i, '') || '/';
    query = after;
  }
  return {
    method: req.method ?? 'GET',
    httpVersion: req.httpVersion,
    path,
    query,
    header: (name) => headerOf(req, name),
    headerValues(name) {
      const v = req.headers[name];
      if (v === undefined) return [];
      if (typeof v === 'string' && !v.includes(',')) return [headerFromWire(v)];
      return req.headersDistinct[name]!.map(headerFromWire);
    },
    async readBody(limit) {
      // What the body may come to, reserved before its first byte is read, given back when the answer is done.
      // A request with neither a length nor chunks has no body (HTTP/1.1): it reserves nothing.
      const length = req.headers['content-length'];
      const declared = length === undefined ? (req.headers['transfer-encoding'] === undefined ? 0 : NaN) : Number(length);
      const release = await budget.reserve(Number.isSafeInteger(declared) && declared >= 0 ? Math.min(declared, limit + 1) : limit + 1);
      if (res.writableFinished || res.destroyed) release();
      else {
        res.once('close', release);
        res.once('finish', release);
      }
      return new Promise((resolve) => {
        const chunks: Buffer[] = [];
        let total = 0;
        let settled = false;
        const settle = (value: Uint8Array | 'too-large') => {
          if (!settled) resolve(value);
          settled = true;
        };
        req.on('data', (chunk: Buffer) => {
          if (settled) return;
          total += chunk.length;
          if (total > limit) {
            chunks.length = 0;
            settle('too-large');
          } else chunks.push(chunk);
        });
        req.on('end', () => settle(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
        req.on('error', () => settle(new Uint8Array(0)));
        req.on('close', () => settle(Buffer.concat(chunks)));
      });
    },
  };
}

/** aiohttp's `_default_expect_handler` writes `100 Continue` to an HTTP/1.1 request whose (first) Expect is 100-continue. */
function expectsContinue(req: IncomingMessage): boolean {
  return req.httpVersion === '1.1' && req.headers.expect !== undefined && headerOf(req, 'expect')!.toLowerCase() === '100-continue';
}

/** aiohttp's parser page (HttpResponse.parserPage): an HTTP/1.0 status line, written as it is; the connection closes. */
function writeParserPage(res: ServerResponse, response: HttpResponse): void {
  const head = [`HTTP/1.0 ${response.status} ${reasonPhrase(response.status)}`, ...response.headers.map(([k, v]) => `${k}: ${v}`)].join('\r\n');
  const body = typeof response.body === 'string' ? Buffer.from(response.body, 'utf8') : Buffer.from(response.body ?? new Uint8Array(0));
  const socket = res.socket;
  if (socket && !socket.destroyed) socket.end(Buffer.concat([Buffer.from(`${head}\r\n\r\n`, 'latin1'), body]), () => socket.destroy());
}

/**
 * The Connection header aiohttp's `_prepare_headers` writes when the answer has none: `close` to an HTTP/1.1 request
 * whose connection will not be kept, `keep-alive` to an HTTP/1.0 request whose connection will, nothing otherwise.
 * An event stream to an HTTP/1.0 client has no length and ends with the connection.
 */
function connectionHeader(res: ServerResponse, response: HttpResponse): string | null {
  const version = res.req.httpVersion;
  const keepAlive = res.shouldKeepAlive && !response.close && !(response.stream && version === '1.0');
  if (keepAlive) return version === '1.0' ? 'keep-alive' : null;
  return version === '1.1' ? 'close' : null;
}

function writeNode(res: ServerResponse, response: HttpResponse): void {
  if (response.drop) {
    // A dropped-connection fault: the socket closes with no answer at all.
    res.socket?.destroy();
    return;
  }
  if (response.parserPage) {
    writeParserPage(res, response);
    return;
  }
  // node would add its own Connection (and Keep-Alive) header; aiohttp's rule is applied instead. An answer that
  // closes the connection (a 500 page) says so to HTTP/1.1 only, as aiohttp's force_close() does (decision 0070).
  res.removeHeader('Connection');
  if (response.close) res.shouldKeepAlive = false;
  const headers = response.headers;
  if (!headers.some(([k]) => k.length === 10 && k.toLowerCase() === 'connection')) {
    const connection = connectionHeader(res, response);
    if (connection) headers.push(['Connection', connection]);
  }
  if (response.stream && res.req.httpVersion === '1.1') {
    // aiohttp enables chunking in _prepare_headers, before its Date and Server setdefaults.
    const date = headers.findIndex(([k]) => k === 'Date');
    headers.splice(date < 0 ? headers.length : date, 0, ['Transfer-Encoding', 'chunked']);
  }
  const flat: string[] = [];
  let nonAscii = false;
  for (const [k, v] of response.headers) {
    const wire = headerWireText(v);
    nonAscii ||= wire !== v;
    flat.push(k, wire);
  }
  res.writeHead(response.status, reasonPhrase(response.status), flat);
  if (!response.stream) {
    // Node writes the head in the body's encoding when both go out together; a Buffer body keeps the head latin-1,
    // so a UTF-8 header value (an echoed session key) reaches the wire as the bytes aiohttp would send.
    const body = response.body;
    res.end(nonAscii && typeof body === 'string' ? Buffer.from(body, 'utf8') : body ?? undefined);
    return;
  }
  res.flushHeaders();
  let gone = false;
  res.on('close', () => {
    gone = true;
  });
  const sink: StreamSink = {
    write(chunk) {
      if (gone || res.destroyed) return false;
      res.write(chunk);
      return true;
    },
    drained() {
      if (gone || res.destroyed || !res.writableNeedDrain) return null;
      return new Promise<boolean>((resolve) => {
        const settle = (): void => {
          res.off('drain', settle);
          res.off('close', settle);
          resolve(!gone && !res.destroyed);
        };
        res.on('drain', settle);
        res.on('close', settle);
      });
    },
    end() {
      if (!res.writableEnded) res.end();
    },
    abort() {
      // A fault: what was written goes out, then the connection closes without the chunked body's end.
      gone = true;
      const socket = res.socket;
      if (socket && !socket.destroyed) socket.end(() => socket.destroy());
      else res.destroy();
    },
  };
  response.stream(sink);
}

/** How startServer says a port another process holds (HERMETIC_SERVE_LISTEN), so `hermetic serve` can add its flag. */
const PORT_TAKEN = 'the port is already in use';

/** Whether startServer failed because the port is taken (the library's sentence names no flag; the CLI adds one). */
export const portTaken = (e: unknown): e is HermeticError => isHermeticError(e) && e.code === 'HERMETIC_SERVE_LISTEN' && e.message.endsWith(`: ${PORT_TAKEN}.`);

/**
 * Starts a real HTTP server on host:port (default 127.0.0.1:8642).
 * @example const server = await startServer({ port: 0, apiKey: 'k'.repeat(16) }); await fetch(server.url + '/health');
 */
export async function startServer(options: ServerOptions = {}): Promise<ServerHandle> {
  const { port = 8642, host = '127.0.0.1', emulator: given, bodyBudget, ...emulatorOptions } = options;
  const emulator = given ?? createEmulator(emulatorOptions);
  const budget = new BodyBudget(bodyBudget);
  // Heads up to aiohttp's own limits get through node's parser (whose default is 16 KiB, answered 431), so that
  // parserRefusal answers them as aiohttp does; Host is checked there too (decision 0046).
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    res.sendDate = false;
    const refused = parserRefusal({ url: req.url ?? '/', httpVersion: req.httpVersion, rawHeaders: req.rawHeaders });
    if (refused !== null) {
      writeNode(res, finish(parserRefusalPage(refused), emulator.clock));
      return;
    }
    if (expectsContinue(req)) res.writeContinue();
    emulator
      .handle(fromNode(req, res, budget))
      .then((response) => writeNode(res, response))
      .catch(() => {
        // Never leave a client hanging: a failure before the head is sent is aiohttp's 500 page.
        if (!res.headersSent) writeNode(res, finish(internalErrorPage(false), emulator.clock));
        else res.destroy();
      });
  };
  const server = createServer({ maxHeaderSize: MAX_HEAD_BYTES, requireHostHeader: false }, onRequest);
  // A request with an Expect header: node would answer 100 Continue as soon as the head arrives, or its own bare 417
  // (and then read the body as the next request). aiohttp answers both after its parser and router: the 100 above, the
  // 417 page in api/index.ts (decision 0070).
  server.on('checkContinue', onRequest);
  server.on('checkExpectation', onRequest);
  // aiohttp keeps idle connections 75 s.
  server.keepAliveTimeout = 75_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', (e: NodeJS.ErrnoException) =>
        reject(new HermeticError('HERMETIC_SERVE_LISTEN', `Cannot listen on ${host}:${port}: ${e.code === 'EADDRINUSE' ? PORT_TAKEN : e.message}.`)),
      );
      server.listen(port, host, resolve);
    });
  } catch (e) {
    if (!given) await emulator.close();
    throw e;
  }
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${shownHost}:${address.port}`,
    port: address.port,
    host: address.address,
    emulator,
    close() {
      closing ??= (async () => {
        await emulator.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      })();
      return closing;
    },
  };
}
