// Shapes of the schema-as-data: levels, columns, tables, indexes and triggers of Hermes's state.db.

/**
 * A schema level: 1..30 are Hermes's SCHEMA_VERSION values; 31 is v30 plus the post-v30 `session_daily_usage`
 * table (Hermes still stores 30 in `schema_version` there). See docs/decisions/0010-statedb-schema-levels.md.
 */
export type Level = number;
export const FIRST_LEVEL = 1;
export const LATEST_LEVEL = 31;

export interface ColumnDef {
  name: string;
  /** Declared type as `PRAGMA table_info` reports it. */
  type: 'TEXT' | 'INTEGER' | 'REAL' | 'BLOB';
  notNull?: boolean;
  /** Default as `PRAGMA table_info.dflt_value` reports it (an SQL literal), or undefined for none. */
  default?: string;
  /** Inline single-column primary key (`TEXT PRIMARY KEY`, `INTEGER PRIMARY KEY AUTOINCREMENT`). */
  pk?: 'plain' | 'autoincrement';
  /** Inline `REFERENCES ...` clause (without the keyword). */
  references?: string;
  /** Level whose SCHEMA_SQL first declares the column. */
  since: Level;
  /**
   * The column definition the reconciler used when it appended this column to an older store, when that differed
   * from the declaration (spec state-db §5.2: `active` was once added without its default).
   */
  alterAs?: { notNull: boolean; default?: string };
}

export interface TableDef {
  name: string;
  since: Level;
  /** Columns in the declared order of the newest SCHEMA_SQL. */
  columns: ColumnDef[];
  /** Table-level primary key (composite). */
  primaryKey?: string[];
  /** Table-level foreign keys: [column, target] pairs, rendered only when the column exists at creation. */
  foreignKeys?: [string, string][];
  /** The table is rebuilt (drop + recreate + copy) when a store migrates into this level. */
  rebuiltAt?: Level;
  /** Shape the table had before the rebuild: columns dropped, primary key used. */
  beforeRebuild?: { omit: string[]; primaryKey?: string[] };
  /** Trailing SQL comment kept verbatim inside CREATE TABLE (Hermes has one in async_delegations). */
  comment?: string;
}

export interface IndexDef {
  name: string;
  since: Level;
  /** Full CREATE INDEX statement. */
  sql: string;
}

export interface TriggerDef {
  name: string;
  since: Level;
  sql: string;
}

/** A `PRAGMA table_info` row. */
export interface TableInfoRow {
  cid: number;
  name: string;
  type: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
}
