// The reader's face: every read of Hermes's state.db goes through here (read-only, a connection per tick).
export { openStore, readStore, storeFailure, primaryCode, type ReadHow, type ReadOptions, type StoreConnection } from './connection.js';
export { StoreReader, type StoreFacts, type SessionMark, type Row } from './store.js';
export { discoverStores, backendOf, profileOf, type StoreRef, type DiscoverOptions } from './discover.js';
export { introspect, selectList, SESSION_COLUMNS, MESSAGE_COLUMNS } from './columns.js';
