// A deterministic SQL dump of a store (schema then rows in rowid order), for byte-for-byte comparisons.
import type { Db } from '../../shared/sqlite.js';
import { quoteName } from '../../shared/sql-name.js';

function literal(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number') return Number.isInteger(v) && !Object.is(v, -0) ? String(v) : v.toExponential(17);
  if (typeof v === 'bigint') return String(v);
  if (Buffer.isBuffer(v)) return `X'${v.toString('hex')}'`;
  return `'${String(v).replace(/'/g, "''").replace(/\x00/g, "'||char(0)||'")}'`;
}

/** Every schema object's SQL, then every ordinary table's rows (virtual tables' shadow tables included). */
export function dumpSql(db: Db): string {
  const out: string[] = [];
  const objects = db.prepare("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name").all() as
    { type: string; name: string; sql: string }[];
  for (const o of objects) out.push(`${o.sql};`);
  for (const o of objects) {
    if (o.type !== 'table' || /^CREATE VIRTUAL/i.test(o.sql)) continue;
    const withoutRowid = /WITHOUT ROWID\s*$/i.test(o.sql);
    const cols = (db.prepare(`PRAGMA table_info(${quoteName(o.name)})`).all() as { name: string; pk: number }[]);
    const order = withoutRowid ? cols.filter((c) => c.pk > 0).map((c) => quoteName(c.name)).join(', ') : 'rowid';
    const rows = db.prepare(`SELECT * FROM ${quoteName(o.name)} ORDER BY ${order}`).raw().iterate() as Iterable<unknown[]>;
    for (const row of rows) out.push(`INSERT INTO ${quoteName(o.name)} VALUES(${row.map(literal).join(',')});`);
  }
  return out.join('\n') + '\n';
}
