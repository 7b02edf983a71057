/** Node-only entry: the better-sqlite3 driver. Never imported by Worker bundles. */
export { type NodeDatabase, type NodeDatabaseOptions, openNodeDatabase } from "./database.node.js";
