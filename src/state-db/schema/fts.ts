// Optional full-text search tables of state.db: the v1 external-content index, the v10 trigram index, the v11 inline
// layout and the v23 external-content redesign (spec state-db §6, §9.2). A store may be built without any of them.
import type { Level } from './types.js';

export type FtsLayout = 'v1' | 'inline' | 'v23';

/** Layout of a fresh store at `level`; a migrated store keeps the legacy inline layout past v23 (opt-in redesign). */
export function ftsLayout(level: Level, createdAt: Level = level): FtsLayout {
  if (createdAt >= 23) return 'v23';
  return level >= 11 ? 'inline' : 'v1';
}

const guard = (ref: 'new' | 'old') => `(${ref}.id > COALESCE((SELECT CAST(value AS INTEGER) FROM state_meta
                         WHERE key = 'fts_rebuild_high_water'), -1)
   OR ${ref}.id <= COALESCE((SELECT CAST(value AS INTEGER) FROM state_meta
                          WHERE key = 'fts_rebuild_progress'), -1))`;
const ftsContent = (ref: 'new' | 'old') => `CASE WHEN ${ref}.role = 'tool'
         THEN substr(COALESCE(${ref}.content, ''), 1, 8192)
         ELSE ${ref}.content END`;

/** The trigram source filter: v29 drops cron sessions, v30 drops delegate subagents. */
function trigramSessionFilter(level: Level, alias: string): string {
  const p = alias ? `${alias}.` : '';
  if (level >= 30) {
    return ` AND ${p}source NOT IN ('cron', 'subagent') AND json_extract((CASE WHEN json_valid(${p}model_config) THEN ${p}model_config ELSE json_object() END), '$._delegate_from') IS NULL`;
  }
  return level >= 29 ? ` AND ${p}source NOT IN ('cron')` : '';
}

function v23Statements(level: Level): string[] {
  const sess = (ref: 'new' | 'old') =>
    `EXISTS (SELECT 1 FROM sessions\n               WHERE id = ${ref}.session_id${trigramSessionFilter(level, '')})`;
  return [
    `CREATE VIEW IF NOT EXISTS messages_fts_src AS
    SELECT id,
           CASE WHEN role = 'tool'
                THEN substr(COALESCE(content, ''), 1, 8192)
                ELSE content END AS content,
           tool_name, tool_calls
    FROM messages`,
    `CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
    content,
    tool_name,
    tool_calls,
    content='messages_fts_src',
    content_rowid='id'
)`,
    `CREATE TRIGGER IF NOT EXISTS messages_fts_insert AFTER INSERT ON messages
WHEN ${guard('new')}
BEGIN
    INSERT INTO messages_fts(rowid, content, tool_name, tool_calls)
    VALUES (new.id, ${ftsContent('new')}, new.tool_name, new.tool_calls);
END`,
    `CREATE TRIGGER IF NOT EXISTS messages_fts_delete AFTER DELETE ON messages
WHEN ${guard('old')}
BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content, tool_name, tool_calls)
    VALUES ('delete', old.id, ${ftsContent('old')}, old.tool_name, old.tool_calls);
END`,
    `CREATE TRIGGER IF NOT EXISTS messages_fts_update
AFTER UPDATE OF content, tool_name, tool_calls, role ON messages
WHEN (old.content IS NOT new.content
    OR old.tool_name IS NOT new.tool_name
    OR old.tool_calls IS NOT new.tool_calls
    OR old.role IS NOT new.role)
   AND ${guard('old')}
BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content, tool_name, tool_calls)
    VALUES ('delete', old.id, ${ftsContent('old')}, old.tool_name, old.tool_calls);
    INSERT INTO messages_fts(rowid, content, tool_name, tool_calls)
    VALUES (new.id, ${ftsContent('new')}, new.tool_name, new.tool_calls);
END`,
    `CREATE VIEW IF NOT EXISTS messages_fts_trigram_src AS
    SELECT m.id, m.role, m.content, m.tool_name
    FROM messages AS m
    JOIN sessions AS s ON s.id = m.session_id
    WHERE m.role <> 'tool'${trigramSessionFilter(level, 's')}`,
    `CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts_trigram USING fts5(
    content,
    tool_name,
    content='messages_fts_trigram_src',
    content_rowid='id',
    tokenize='trigram'
)`,
    `CREATE TRIGGER IF NOT EXISTS messages_fts_trigram_insert AFTER INSERT ON messages
WHEN new.role <> 'tool'
   AND ${sess('new')}
   AND ${guard('new')}
BEGIN
    INSERT INTO messages_fts_trigram(rowid, content, tool_name)
    VALUES (new.id, new.content, new.tool_name);
END`,
    `CREATE TRIGGER IF NOT EXISTS messages_fts_trigram_delete AFTER DELETE ON messages
WHEN old.role <> 'tool'
   AND ${sess('old')}
   AND ${guard('old')}
BEGIN
    INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, content, tool_name)
    VALUES ('delete', old.id, old.content, old.tool_name);
END`,
    `CREATE TRIGGER IF NOT EXISTS messages_fts_trigram_update
AFTER UPDATE OF content, tool_name, role ON messages
WHEN (old.content IS NOT new.content
    OR old.tool_name IS NOT new.tool_name
    OR old.role IS NOT new.role)
   AND ${guard('old')}
BEGIN
    INSERT INTO messages_fts_trigram(messages_fts_trigram, rowid, content, tool_name)
    SELECT 'delete', old.id, old.content, old.tool_name
    WHERE old.role <> 'tool' AND ${sess('old')};
    INSERT INTO messages_fts_trigram(rowid, content, tool_name)
    SELECT new.id, new.content, new.tool_name
    WHERE new.role <> 'tool' AND ${sess('new')};
END`,
  ];
}

/** Pre-v23 layouts: one `content` column, kept by three triggers per index. */
function legacyStatements(layout: 'v1' | 'inline', level: Level): string[] {
  // v1 is Hermes's v2 text (hermes_state.py FTS_SQL, run in decision 0109): its update trigger fires on any column;
  // inline is Hermes's LEGACY_FTS_SQL (hermes_state_common.py), whose trigram index holds every row, tool rows too
  // (tool rows left the trigram index with the v23 redesign). The v10 trigram follows the v1 text [I].
  const text = (ref: string) =>
    layout === 'v1' ? `${ref}.content` : `COALESCE(${ref}.content, '') || ' ' || COALESCE(${ref}.tool_name, '') || ' ' || COALESCE(${ref}.tool_calls, '')`;
  const ext = layout === 'v1' ? ', content=messages, content_rowid=id' : '';
  const out: string[] = [];
  const one = (name: string, tokenize: string) => {
    const del = (ref: string) =>
      layout === 'v1'
        ? `INSERT INTO ${name}(${name}, rowid, content) VALUES('delete', ${ref}.id, ${text(ref)});`
        : `DELETE FROM ${name} WHERE rowid = ${ref}.id;`;
    const ins = (ref: string) => `INSERT INTO ${name}(rowid, content) VALUES (${ref}.id, ${text(ref)});`;
    const update = layout === 'v1' ? 'AFTER UPDATE ON messages' : 'AFTER UPDATE OF content, tool_name, tool_calls, role ON messages';
    out.push(`CREATE VIRTUAL TABLE IF NOT EXISTS ${name} USING fts5(\n    content${ext}${tokenize}\n)`);
    out.push(`CREATE TRIGGER IF NOT EXISTS ${name}_insert AFTER INSERT ON messages BEGIN\n    ${ins('new')}\nEND`);
    out.push(`CREATE TRIGGER IF NOT EXISTS ${name}_delete AFTER DELETE ON messages BEGIN\n    ${del('old')}\nEND`);
    out.push(`CREATE TRIGGER IF NOT EXISTS ${name}_update ${update} BEGIN\n    ${del('old')}\n    ${ins('new')}\nEND`);
  };
  one('messages_fts', '');
  if (level >= 10) one('messages_fts_trigram', ", tokenize='trigram'");
  return out;
}

/** DDL creating the FTS objects of `layout` at `level`. */
export function ftsStatements(layout: FtsLayout, level: Level): string[] {
  return layout === 'v23' ? v23Statements(level) : legacyStatements(layout, level);
}

/** Drops every FTS object (used when a migration changes the layout). */
export function dropFtsStatements(): string[] {
  const names = ['messages_fts', 'messages_fts_trigram'];
  return names.flatMap((n) => [
    `DROP TRIGGER IF EXISTS ${n}_insert`, `DROP TRIGGER IF EXISTS ${n}_delete`, `DROP TRIGGER IF EXISTS ${n}_update`,
    `DROP TABLE IF EXISTS ${n}`, `DROP VIEW IF EXISTS ${n}_src`,
  ]);
}

/** Refills an index after a layout change or migration (external content: 'rebuild'; inline: re-insert). */
export function ftsRebuildStatements(layout: FtsLayout, level: Level): string[] {
  if (layout !== 'inline') {
    const out = [`INSERT INTO messages_fts(messages_fts) VALUES('rebuild')`];
    if (level >= 10) out.push(`INSERT INTO messages_fts_trigram(messages_fts_trigram) VALUES('rebuild')`);
    return out;
  }
  const text = `COALESCE(content, '') || ' ' || COALESCE(tool_name, '') || ' ' || COALESCE(tool_calls, '')`;
  return [
    'DELETE FROM messages_fts', `INSERT INTO messages_fts(rowid, content) SELECT id, ${text} FROM messages`,
    'DELETE FROM messages_fts_trigram',
    `INSERT INTO messages_fts_trigram(rowid, content) SELECT id, ${text} FROM messages WHERE role <> 'tool'`,
  ];
}
