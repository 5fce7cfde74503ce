// Renders CREATE TABLE statements in Hermes's SCHEMA_SQL style from the schema data.
import { declaredColumns, primaryKeyAt } from './layout.js';
import type { ColumnDef, Level, TableDef } from './types.js';

export function columnSql(c: ColumnDef): string {
  let s = `${c.name} ${c.type}`;
  if (c.pk === 'plain') s += ' PRIMARY KEY';
  if (c.pk === 'autoincrement') s += ' PRIMARY KEY AUTOINCREMENT';
  if (c.notNull) s += ' NOT NULL';
  if (c.default !== undefined) s += ` DEFAULT ${c.default}`;
  if (c.references) s += ` REFERENCES ${c.references}`;
  return s;
}

/** The column clause ALTER TABLE ADD COLUMN used when the reconciler appended `c`. */
export function alterColumnSql(c: ColumnDef): string {
  return columnSql({ ...c, references: undefined });
}

/** CREATE TABLE for a table declared fresh at `level`. */
export function createTableSql(table: TableDef, level: Level): string {
  const cols = declaredColumns(table, level);
  const names = new Set(cols.map((c) => c.name));
  const lines = cols.map((c) => `    ${columnSql(c)}`);
  const pk = primaryKeyAt(table, level);
  if (pk) lines.push(`    PRIMARY KEY (${pk.join(', ')})`);
  for (const [column, target] of table.foreignKeys ?? []) {
    if (names.has(column)) lines.push(`    FOREIGN KEY (${column}) REFERENCES ${target}`);
  }
  return `CREATE TABLE IF NOT EXISTS ${table.name} (\n${lines.join(',\n')}\n)`;
}
