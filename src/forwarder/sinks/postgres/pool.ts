// One pg.Pool for a PostgreSQL target: bigint and numeric values read back as JavaScript numbers (the dataset's
// counters fit: Number.MAX_SAFE_INTEGER tokens is more than any fleet spends), a connection timeout, and an error
// listener so a connection the server drops while idle (a restart) is discarded instead of ending the process.
import pg from 'pg';
import type { PostgresTarget } from './url.js';

const INT8 = 20;
const NUMERIC = 1700;
const asNumber = (v: string) => Number(v);

const types = {
  getTypeParser(oid: number, format?: string) {
    if (oid === INT8 || oid === NUMERIC) return asNumber;
    return (pg.types.getTypeParser as (oid: number, format?: string) => unknown)(oid, format);
  },
};

export interface PoolOptions {
  max?: number;
  connectTimeoutMs?: number;
  /** Holds each connection from its creation until it has connected (or failed): what is still connecting. */
  connecting?: Set<pg.Client>;
}

/** A client that is in `connecting` from its creation until it has connected, or its connection ended (failed). */
function watchedClient(connecting: Set<pg.Client>): typeof pg.Client {
  return class extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      const client: pg.Client = this;
      connecting.add(client);
      const done = () => void connecting.delete(client);
      this.once('connect', done);
      this.once('end', done);
    }
  };
}

export function createPool(target: PostgresTarget, options: PoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    ...target.config,
    max: options.max ?? 4,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    idleTimeoutMillis: 10_000,
    types: types as never,
    ...(options.connecting ? { Client: watchedClient(options.connecting) } : {}),
  });
  pool.on('error', () => { /* an idle connection died: the pool drops it; the next query opens another */ });
  return pool;
}
