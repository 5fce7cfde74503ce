// Hermes's state.db schema as data: every level's tables, columns, indexes, triggers and FTS, and store creation.
export * from './types.js';
export { TABLES, tableDef, SESSIONS, MESSAGES, SESSION_MODEL_USAGE, SESSION_DAILY_USAGE } from './tables.js';
export { INDEXES, TRIGGERS } from './indexes.js';
export { ftsLayout, type FtsLayout } from './fts.js';
export {
  checkLevel, storedVersion, tablesAt, physicalColumns, declaredColumns, expectedTableInfo, primaryKeyAt,
} from './layout.js';
export { createTableSql, columnSql } from './ddl.js';
export { createStore, migrateStep, promptHash, type CreateStoreOptions, type JournalMode } from './create.js';
export { applicationIdFor, GENERATION_KEY, stampIdentity } from './identity.js';
export { securePrivateFiles } from './private-files.js';
