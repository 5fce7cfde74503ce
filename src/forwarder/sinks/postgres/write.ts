// A DeltaBatch as SQL (decision 0036): deletes by key, then upserts, each chunked. Rows travel as one array per
// column through `unnest` (a statement has 2 + columns parameters whatever its row count, far under PostgreSQL's
// 65,535), or as a multi-row VALUES list cut to fit them (`values`, kept as the plain twin the bench compares).
// One JSON parameter read by json_populate_recordset was measured too: slower on the server (decision 0036).
import type { DatasetTable, RecordOf } from '../../dataset/columns.js';
import { PG_TYPE, fleetKey, q } from './schema.js';

export type UpsertStrategy = 'unnest' | 'values';
export interface Statement { text: string; values: unknown[] }

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

/** The last row for each key (a batch should hold one; a second would make ON CONFLICT refuse the statement). */
function lastPerKey(t: DatasetTable, rows: readonly RecordOf[]): readonly RecordOf[] {
  if (rows.length < 2) return rows;
  const keys = t.primaryKey;
  const byKey = new Map<string, RecordOf>();
  for (const r of rows) {
    let k = '';
    for (const c of keys) k += `${typeof r[c]}:${String(r[c])}\u0001`;
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

/** INSERT … ON CONFLICT DO UPDATE for the rows, in chunks. */
export function upsertStatements(schema: string, t: DatasetTable, origin: { machineId: string; hostname: string }, rows: readonly RecordOf[], strategy: UpsertStrategy = 'unnest'): Statement[] {
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
