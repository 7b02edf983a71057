/**
 * `@cloudflare/dofs/testing`: storages for tests in Node. `SQLiteTestStorage`
 * plays a Durable Object's storage over better-sqlite3; `RecordingStorage`
 * records the statements any storage runs. Both go to `new Database(storage)`
 * or a `Workspace`'s `storage` option.
 */
export { type RecordedStatement, RecordingStorage } from "./testing/recording-storage.js";
export { SQLiteTestStorage, type TestSqlCursor } from "./testing/sqlite-test-storage.node.js";
