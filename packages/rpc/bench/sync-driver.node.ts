/**
 * The bench's driving side on Node (the Durable Object's role played by a
 * second better-sqlite3 process): workspace `<name>` is the database file
 * `<dir>/driver-<name>.db`; it dials the peer with the Node client (`ws`).
 *
 * `node sync-driver.node.mjs <dir>`; requests come over IPC (see process.node.ts).
 */
import { join } from "node:path";
import { WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { createSyncClient } from "../src/client/index.node.js";
import { runSideOp, type SideOp, type SideState } from "../test/sync-ops.js";
import { MemoryWatch, serveParent } from "./process.node.js";

const dir = process.argv[2] as string;
const workspaces = new Map<string, SideState & { close(): void }>();

function workspace(name: string) {
  let found = workspaces.get(name);
  if (!found) {
    const db = openNodeDatabase(join(dir, `driver-${name}.db`));
    found = { db, fs: new WorkspaceFilesystem(db), close: () => db.close() };
    workspaces.set(name, found);
  }
  return found;
}

const memory = new MemoryWatch();

serveParent(
  {},
  async (request) => {
    switch (request.kind) {
      case "op":
        return runSideOp(workspace(request.name as string), request.op as SideOp, (url) => createSyncClient({ url }));
      case "memory-reset":
        return memory.reset();
      case "memory":
        return memory.read();
      default:
        throw new Error(`unknown request ${request.kind}`);
    }
  },
  async () => {
    for (const state of workspaces.values()) {
      await state.client?.close();
      state.close();
    }
  },
);
