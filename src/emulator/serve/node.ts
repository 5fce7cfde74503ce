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
import { BodyBudget, type BodyLease } from './body-budget.js';

export { BODY_BUDGET, BodyBudget } from './body-budget.js';

/**
 * node's maxHeaderSize: room for the longest head aiohttp's parser reads to its end, so that parserRefusal sees every
 * head aiohttp answers after its last byte (decision 0135). Node counts the target, names and values (not the
 * separators) and refuses a head whose count reaches this with its own 431. aiohttp reads at most 129 headers (it
 * refuses the 129th when the head ends, and stops at the 130th name); the first header's name and value count
 * together, each later value alone, each later name together with the one before it (parser-limits.ts): so a target
 * of 8190 bytes, the first header 8190, 128 values of 8190 and 128 names two of which never pass 8190 together.
 * That is also about what a connection's unfinished head holds in aiohttp (1.6 MB), or here.
 */
export const MAX_HEAD_BYTES = MAX_LINE_SIZE + MAX_FIELD_SIZE + MAX_HEADERS * MAX_FIELD_SIZE + (MAX_HEADERS / 2) * MAX_FIELD_SIZE + 1;

export interface ServerOptions extends EmulatorOptions {
  /** Default 8642, Hermes's own; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Serve an existing emulator instead of creating one from the options. */
  emulator?: Emulator;
  /**
   * Bytes request bodies may hold at once (default BODY_BUDGET, 128 MiB), or a budget to share: a body past it waits
   * for room (decision 0135).
   */
  bodyBudget?: number | BodyBudget;
}

export interface ServerHandle {
  readonly url: string;
  readonly port: number;
  readonly host: string;
  readonly emulator: Emulator;
  close(): Promise<void>;
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

function fromNode(req: IncomingMessage, lease: BodyLease | undefined): HttpRequest {
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
    bodyCharge: lease,
    readBody(limit) {
      return new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        let total = 0;
        let settled = false;
        const settle = (value: Uint8Array | 'too-large') => {
          if (!settled) resolve(value);
          settled = true;
        };
        // A body cut short (its client left, or its stream failed) cannot be read to its end: aiohttp's read() raises
        // (ContentLengthError on the lost connection), which Hermes answers as any bad body; no part of it is parsed.
        // A body that had all arrived and been handed over is read all the same, as aiohttp reads it from its buffer.
        const cut = () => {
          if (settled) return;
          if (req.complete && req.readableLength === 0) settle(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
          else reject(new Error('The client went away before its request body ended.'));
          settled = true;
        };
        // A client that left before the read began (the handler awaited something first): no event will say so again.
        if (req.destroyed) return cut();
        req.on('data', (chunk: Buffer) => {
          if (settled) return;
          total += chunk.length;
          if (total > limit) {
            lease?.give(total - chunk.length);
            chunks.length = 0;
            settle('too-large');
            return;
          }
          chunks.push(chunk);
          if (!lease) return;
          // Counted as received; past the budget, the socket is left unread until there is room (decision 0135).
          lease.take(chunk.length);
          const room = lease.room();
          if (room) {
            req.pause();
            void room.then(() => req.resume());
          }
        });
        req.on('end', () => settle(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
        req.on('error', cut);
        req.on('close', cut);
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
  const budget = bodyBudget instanceof BodyBudget ? bodyBudget : new BodyBudget(bodyBudget);
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
    // A request that may have a body gets a share of the budget, given back when its handler has settled: what it
    // read, decoded and parsed is the handler's until then (decision 0135).
    const lease = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined ? budget.lease() : undefined;
    emulator
      .handle(fromNode(req, lease))
      .then((response) => {
        lease?.end();
        writeNode(res, response);
      })
      .catch(() => {
        lease?.end();
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
