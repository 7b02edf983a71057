/**
 * Two in-process sync peers for dofs' own sync tests: `local` plays the
 * Durable Object (drives push/pull), `remote` is a SyncPeer over a second
 * database. The RPC package runs the same flows over a real WebSocket.
 */
import type { Database } from "../src/database.js";
import { WorkspaceFilesystem } from "../src/filesystem.js";
import type { SyncLocal } from "../src/sync/local.js";
import { SyncPeer, type SyncPeerOptions } from "../src/sync/peer.js";
import type { FoundEntry } from "../src/types.js";

export interface PeerPair {
  local: SyncLocal;
  localFs: WorkspaceFilesystem;
  remoteDb: Database;
  remoteFs: WorkspaceFilesystem;
  remote: SyncPeer;
}

export function pairOf(localDb: Database, remoteDb: Database, options: SyncPeerOptions = {}): PeerPair {
  return {
    local: { db: localDb },
    localFs: new WorkspaceFilesystem(localDb),
    remoteDb,
    remoteFs: new WorkspaceFilesystem(remoteDb),
    remote: new SyncPeer(remoteDb, options),
  };
}

/** Every path below `/` with what a peer must agree on: type, mode, content hash or target. */
export async function snapshotTree(fs: WorkspaceFilesystem): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  // Links are listed as "symlink", which find's public type (the original's) leaves out.
  for (const { path, type } of (await fs.find("/")) as FoundEntry[]) {
    const stat = await fs.lstat(path);
    if (type === "file") {
      const bytes = new Uint8Array(await new Response(await fs.readFile(path)).arrayBuffer());
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
      out[path] =
        `file ${stat.mode.toString(8)} ${Array.from(digest.slice(0, 8), (b) => b.toString(16).padStart(2, "0")).join("")}`;
    } else if (type === "symlink") {
      out[path] = `symlink -> ${await fs.readlink(path)}`;
    } else {
      out[path] = `dir ${stat.mode.toString(8)}`;
    }
  }
  return out;
}
