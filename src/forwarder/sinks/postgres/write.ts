// A DeltaBatch as SQL (decision 0036): deletes by key, then upserts, each chunked. Rows travel by COPY (`copy`, the
// default: straight into the appended tables, else through a staging table and ON CONFLICT; decision 0043), as one
// array per column through `unnest` (a statement has 2 + columns parameters whatever its row count, far under PostgreSQL's 65,535), or
// as a multi-row VALUES list cut to fit them (`values`, the plain twin the bench compares).
import type { DatasetTable, RecordOf } from '../../dataset/columns.js';
import { PG_TYPE, fleetKey } from './schema.js';
import { quoteName as q } from '../../../shared/sql-name.js';

export type UpsertStrategy = 'copy' | 'unnest' | 'values';
/**
 * One statement; with `copy`, a `COPY … FROM STDIN` and the text-format rows it reads; with `onConflict`, what runs
 * instead when it fails on a key already there (SQLSTATE 23505).
 */
export interface Statement { text: string; values: unknown[]; copy?: () => Iterable<string>; onConflict?: Statement[] }

/** Rows per statement (unnest): bounds a message's size, not its parameters. */
const CHUNK = 5000;
/** PostgreSQL's limit on a statement's parameters. */
export const MAX_PARAMETERS = 65535;

/**
 * A dataset value as PostgreSQL takes it: text cannot hold U+0000, so it becomes U+FFFD (the dataset's own mark for
 * bytes it could not keep); objects are JSON text; booleans 1/0.
 */
export function pgValue(v: unknown): unknown {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v.includes('\u0000') ? v.replace(/\u0000/g, '\uFFFD') : v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('utf8').replace(/\u0000/g, '\uFFFD');
  if (typeof v === 'object') return JSON.stringify(v);
  return v;
}

const arrayType = (t: DatasetTable, name: string) => `${PG_TYPE[t.columns.find((c) => c.name === name)!.type].replace('double precision', 'float8')}[]`;

/**
 * The last row for each key as PostgreSQL will hold it (a batch should hold one; a second would make ON CONFLICT refuse
 * the statement): keys are compared after pgValue, so "a\u0000b" and "a\uFFFDb", one key there, are one here too.
 */
export function lastPerKey(t: DatasetTable, rows: readonly RecordOf[]): readonly RecordOf[] {
  if (rows.length < 2) return rows;
  const keys = t.primaryKey;
  const byKey = new Map<string, RecordOf>();
  for (const r of rows) {
    let k = '';
    for (const c of keys) { const v = pgValue(r[c]); k += `${typeof v}:${String(v)}\u0001`; }
    byKey.set(k, r);
  }
  return byKey.size === rows.length ? rows : [...byKey.values()];
}

/** DELETE … USING unnest(keys) for the machine's rows with these keys. */
export function deleteStatements(schema: string, t: DatasetTable, machineId: string, keys: readonly RecordOf[]): Statement[] {
  const out: Statement[] = [];
  const on = t.primaryKey.map((k) => `d.${q(k)} = k.${q(k)}`).join(' AND ');
  const text = `DELETE FROM ${q(schema)}.${q(t.name)} d USING unnest(${t.primaryKey.map((k, i) => `$${i + 2}::${arrayType(t, k)}`).join(', ')}) AS k(${t.primaryKey.map(q).join(', ')}) WHERE d.machine_id = $1 AND ${on}`;
  for (let i = 0; i < keys.length; i += CHUNK) {
    const chunk = keys.slice(i, i + CHUNK);
    out.push({ text, values: [machineId, ...t.primaryKey.map((k) => chunk.map((r) => pgValue(r[k])))] });
  }
  return out;
}

function conflict(t: DatasetTable): string {
  const key = new Set(fleetKey(t));
  const set = ['hostname', ...t.columns.map((c) => c.name)].filter((c) => !key.has(c)).map((c) => `${q(c)} = EXCLUDED.${q(c)}`);
  return `ON CONFLICT (${fleetKey(t).map(q).join(', ')}) DO UPDATE SET ${set.join(', ')}`;
}

/**
 * The rows written by key, by the strategy's statements (`copy`: copyStatements; else INSERT … ON CONFLICT DO UPDATE, in
 * chunks). `staging`: whether the role may make the connection's staging table (the TEMPORARY right); else what `copy`
 * would stage goes by `unnest`. `piece`: the rows are one of several pieces of the table's rows in one transaction
 * (decision 0086), so the staging table is emptied after them.
 */
export function upsertStatements(schema: string, t: DatasetTable, origin: { machineId: string; hostname: string }, rows: readonly RecordOf[], strategy: UpsertStrategy = 'copy', staging = true, piece = false): Statement[] {
  if (strategy === 'copy') return copyStatements(schema, t, origin, rows, staging, piece);
  const unique = lastPerKey(t, rows);
  const names = t.columns.map((c) => c.name);
  const head = `INSERT INTO ${q(schema)}.${q(t.name)} (machine_id, hostname, ${names.map(q).join(', ')})`;
  const out: Statement[] = [];
  if (strategy === 'unnest') {
    const text = `${head} SELECT $1, $2, u.* FROM unnest(${names.map((n, i) => `$${i + 3}::${arrayType(t, n)}`).join(', ')}) AS u ${conflict(t)}`;
    for (let i = 0; i < unique.length; i += CHUNK) {
      const chunk = unique.slice(i, i + CHUNK);
      out.push({ text, values: [origin.machineId, origin.hostname, ...names.map((n) => chunk.map((r) => pgValue(r[n])))] });
    }
    return out;
  }
  const perRow = names.length;
  const rowsPer = Math.floor((MAX_PARAMETERS - 2) / perRow);
  for (let i = 0; i < unique.length; i += rowsPer) {
    const chunk = unique.slice(i, i + rowsPer);
    const values: unknown[] = [origin.machineId, origin.hostname];
    const tuples = chunk.map((r) => {
      const base = values.length;
      for (const n of names) values.push(pgValue(r[n]));
      return `($1, $2, ${names.map((_, j) => `$${base + j + 1}`).join(', ')})`;
    });
    out.push({ text: `${head} VALUES ${tuples.join(', ')} ${conflict(t)}`, values });
  }
  return out;
}

/** A value in COPY's text format: `\N` for NULL; backslash, newline, carriage return and tab escaped. */
export function copyField(v: unknown): string {
  const x = pgValue(v);
  if (x === null) return '\\N';
  const s = typeof x === 'string' ? x : String(x);
  return /[\\\n\r\t]/.test(s) ? s.replace(/[\\\n\r\t]/g, (c) => COPY_ESCAPES[c]!) : s;
}
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * The connection's staging table for `t`: like the table, without its key; emptied by the commit (or the rollback) of
 * the batch that filled it, so a batch names each table once (`statements` merges a batch's upserts per table), or
 * after each piece when statement_timeout had them cut (decision 0086).
 */
const stage = (t: DatasetTable) => q(`hermetic_stage_${t.name}`);

/** Rows per piece of a COPY's data: the server takes one piece while the next is encoded. */
const PIECE = 256;
/**
 * Characters after which a piece is sent whatever its rows: large values (tool output of megabytes) stay far from
 * V8's longest string (2^29 − 24 characters, which 256 rows of 2 MB passed) and from holding a batch in memory twice.
 */
const PIECE_CHARS = 1 << 20;

/** The rows as COPY text, in pieces, encoded as the stream asks for them. */
function copyPieces(origin: { machineId: string; hostname: string }, names: readonly string[], rows: readonly RecordOf[]): () => Iterable<string> {
  const head = `${copyField(origin.machineId)}\t${copyField(origin.hostname)}`;
  return function* pieces() {
    let body = '';
    let inPiece = 0;
    for (const r of rows) {
      body += head;
      for (const n of names) body += `\t${copyField(r[n])}`;
      body += '\n';
      if (++inPiece === PIECE || body.length >= PIECE_CHARS) {
        yield body;
        body = '';
        inPiece = 0;
      }
    }
    if (body !== '') yield body;
  };
}

/**
 * The tables whose rows are mostly new when shipped (a transcript grows; usage events are appended): COPY straight
 * into them first. The others (a session's counters, its ledger and tool rows, rebuilt as it goes) mostly update rows
 * already there, and go through the staging table at once, so the server's log holds no refused COPY for each tick.
 */
const APPENDED = new Set(['messages', 'parts', 'usage_events']);

/**
 * Rows by COPY (decision 0043). Into an appended table, straight under a savepoint, as PostgreSQL's own bulk load
 * does; when a row's key is already there (a row changed since it was shipped, a batch replayed after a crash), the
 * savepoint is rolled back and the rows go the other tables' way: COPY into the connection's staging table, then into
 * the table with ON CONFLICT DO UPDATE.
 */
export function copyStatements(schema: string, t: DatasetTable, origin: { machineId: string; hostname: string }, rows: readonly RecordOf[], staging = true, piece = false): Statement[] {
  const unique = lastPerKey(t, rows);
  const names = t.columns.map((c) => c.name);
  const cols = ['machine_id', 'hostname', ...names].map(q).join(', ');
  const table = `${q(schema)}.${q(t.name)}`;
  const copy = copyPieces(origin, names, unique);
  // A role without the TEMPORARY right (a hardened database: REVOKE TEMPORARY … FROM PUBLIC) upserts by unnest.
  const staged: Statement[] = staging ? [
    { text: `CREATE TEMPORARY TABLE IF NOT EXISTS ${stage(t)} (LIKE ${table}) ON COMMIT DELETE ROWS`, values: [] },
    { text: `COPY ${stage(t)} (${cols}) FROM STDIN`, values: [], copy },
    { text: `INSERT INTO ${table} (${cols}) SELECT ${cols} FROM ${stage(t)} ${conflict(t)}`, values: [] },
    ...(piece ? [{ text: `DELETE FROM ${stage(t)}`, values: [] }] : []),
  ] : upsertStatements(schema, t, origin, unique, 'unnest');
  if (!APPENDED.has(t.name)) return staged;
  return [
    { text: 'SAVEPOINT hermetic_copy', values: [] },
    {
      text: `COPY ${table} (${cols}) FROM STDIN`, values: [], copy,
      onConflict: [{ text: 'ROLLBACK TO SAVEPOINT hermetic_copy', values: [] }, ...staged],
    },
    { text: 'RELEASE SAVEPOINT hermetic_copy', values: [] },
  ];
}
