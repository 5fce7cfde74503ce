// A statement's result read from the fleet store a batch at a time (`hermetic query --from`, decision 0074): a
// server-side cursor in the caller's read-only transaction, so a result of any size holds one batch here. A statement
// that cannot be a cursor's (EXPLAIN, SHOW, or a write, which the read-only transaction then refuses) is run whole.
import type pg from 'pg';

/** Rows each FETCH asks for: the line of `hermetic query --json`. */
export const FETCH_ROWS = 1000;

export type Row = Record<string, unknown>;

/** One read of the result from its first row: its columns, then its rows a batch at a time. */
export interface ResultRead {
  readonly columns: string[];
  readonly batches: AsyncIterable<Row[]>;
}

const CURSOR = 'hermetic_query';

/**
 * A reader of `sql`'s result that can read it from the start again (a table measures, then prints), each read in the
 * caller's transaction, so in its snapshot. `fetched` is told each batch's size as it arrives. Each statement is a
 * prepared one: PostgreSQL refuses a text of several. The server's errors are thrown as the driver gives them.
 * @example const read = await statementReader(client, 'SELECT 1 AS one'); for await (const rows of (await read()).batches) use(rows);
 */
export function statementReader(client: pg.PoolClient, sql: string, fetched: (rows: number) => void = () => undefined): () => Promise<ResultRead> {
  let open = false;
  let whole = false;

  /** The statement run whole: one batch (what it cannot stream is small: a plan, a setting). */
  const runWhole = async (): Promise<ResultRead> => {
    const r = await client.query({ name: 'hermetic_statement', text: sql });
    const rows = r.rows as Row[];
    fetched(rows.length);
    return { columns: (r.fields ?? []).map((f) => f.name), batches: (async function* () { yield rows; })() };
  };

  const fetch = async () => {
    const r = await client.query(`FETCH FORWARD ${FETCH_ROWS} FROM ${CURSOR}`);
    fetched(r.rows.length);
    return r;
  };

  const declare = () => client.query({ name: 'hermetic_cursor', text: `DECLARE ${CURSOR} NO SCROLL CURSOR FOR ${sql}` });

  return async () => {
    if (whole) return runWhole();
    if (open) {
      await client.query(`CLOSE ${CURSOR}`);
      await declare();
    } else {
      // The first DECLARE in a savepoint: a statement no cursor can hold is refused there, and then run whole.
      await client.query('SAVEPOINT hermetic_cursor');
      try {
        await declare();
      } catch (e) {
        const code = (e as { code?: unknown }).code;
        if (typeof code !== 'string' || !/^(42|0A)/.test(code)) throw e;
        await client.query('ROLLBACK TO SAVEPOINT hermetic_cursor');
        whole = true;
        return runWhole();
      }
      await client.query('RELEASE SAVEPOINT hermetic_cursor');
    }
    open = true;
    const first = await fetch();
    async function* batches(): AsyncGenerator<Row[]> {
      let r = first;
      for (;;) {
        yield r.rows as Row[];
        if (r.rows.length < FETCH_ROWS) return;
        r = await fetch();
      }
    }
    return { columns: first.fields.map((f) => f.name), batches: batches() };
  };
}
