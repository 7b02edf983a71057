/** Node-only entry: the better-sqlite3 driver. Never imported by Worker bundles. */
export { openNodeDatabase } from "./database.node.js";
