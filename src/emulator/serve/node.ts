// The HTTP transport: a real node:http server in front of the emulator's handler, streaming event responses and
// noticing departed clients on the next write, as aiohttp does.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HermeticError } from '../../shared/errors.js';
import { createEmulator, type Emulator, type EmulatorOptions } from '../index.js';
import { headerFromWire, headerWireText, reasonPhrase, type HttpRequest, type HttpResponse, type StreamSink } from '../http.js';
import { internalErrorPage } from '../wire/responses.js';

export interface ServerOptions extends EmulatorOptions {
  /** Default 8642, Hermes's own; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Serve an existing emulator instead of creating one from the options. */
  emulator?: Emulator;
}

export interface ServerHandle {
  readonly url: string;
  readonly port: number;
  readonly host: string;
  readonly emulator: Emulator;
  close(): Promise<void>;
}

function fromNode(req: IncomingMessage): HttpRequest {
  const target = req.url ?? '/';
  const q = target.indexOf('?');
  let path = q < 0 ? target : target.slice(0, q);
  if (!path.startsWith('/')) path = path.replace(/^[a-z]+:\/\/[^/]*/i, '') || '/';
  return {
    method: req.method ?? 'GET',
    path,
    query: q < 0 ? '' : target.slice(q + 1),
    header(name) {
      const v = req.headers[name];
      if (v === undefined) return undefined;
      return headerFromWire(Array.isArray(v) ? v.join(', ') : v);
    },
    readBody(limit) {
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

function writeNode(res: ServerResponse, response: HttpResponse): void {
  if (response.drop) {
    // A dropped-connection fault: the socket closes with no answer at all.
    res.socket?.destroy();
    return;
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

/**
 * Starts a real HTTP server on host:port (default 127.0.0.1:8642).
 * @example const server = await startServer({ port: 0, apiKey: 'k'.repeat(16) }); await fetch(server.url + '/health');
 */
export async function startServer(options: ServerOptions = {}): Promise<ServerHandle> {
  const { port = 8642, host = '127.0.0.1', emulator: given, ...emulatorOptions } = options;
  const emulator = given ?? createEmulator(emulatorOptions);
  const server = createServer((req, res) => {
    res.sendDate = false;
    emulator
      .handle(fromNode(req))
      .then((response) => writeNode(res, response))
      .catch(() => {
        // Never leave a client hanging: a failure before the head is sent is aiohttp's 500 page.
        if (!res.headersSent) writeNode(res, internalErrorPage(false));
        else res.destroy();
      });
  });
  // aiohttp keeps idle connections 75 s.
  server.keepAliveTimeout = 75_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', (e: NodeJS.ErrnoException) =>
        reject(new HermeticError('HERMETIC_SERVE_LISTEN', `Cannot listen on ${host}:${port}: ${e.code === 'EADDRINUSE' ? 'the port is already in use' : e.message}.`)),
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
