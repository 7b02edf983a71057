import { stageBlob } from "../blobs.js";
import { cutChunks } from "../chunker.js";
import type { Database } from "../database.js";
import { fsError } from "../errors.js";
import { holdBlobs } from "../gc.js";
import { sha256Hex } from "../hash.js";
import { type ChunkRef, manifestHash, saveManifest } from "../manifest.js";
import { assertWritable } from "../mounts.js";
import { addDirent, dropChunks, insertNode } from "../nodes.js";
import { type Resolution, resolvePath } from "../resolve.js";
import { bumpRev } from "../schema.js";
import type { WriteData } from "../types.js";

const SYSCALL = "open";

/**
 * Creates or replaces a file. Bytes are cut into chunks and staged as they
 * arrive (outside any transaction: a stream can be gigabytes); the node,
 * its chunk list and the rev bump then commit in one transaction, after the
 * path is resolved again, so a concurrent change between the two is seen.
 */
export async function writeFile(
  db: Database,
  path: string,
  data: WriteData,
  mode: number,
  exclusive: boolean,
  now: () => number,
): Promise<void> {
  if (path === "/") throw fsError("EISDIR", SYSCALL, path);
  assertWritable(db, path, SYSCALL);
  // Fail fast, before consuming a stream that can never land. (Bytes in hand
  // need no early check: the commit below checks the same things.)
  if (data instanceof ReadableStream) checkTarget(db, resolveTarget(db, path), path, exclusive);

  const chunks: ChunkRef[] = [];
  // Staged blobs are unreferenced until the commit below: gc must leave them be meanwhile.
  const releases: (() => void)[] = [];
  try {
    for await (const window of cutChunks(data)) {
      const hash = await sha256Hex(window, db);
      releases.push(holdBlobs(db, [hash]));
      stageBlob(db, hash, window, now());
      chunks.push({ hash, size: window.byteLength });
    }
    const manifest = await manifestHash(chunks, db);
    commitFile(db, path, chunks, manifest, mode, exclusive, now);
  } finally {
    for (const release of releases) release();
  }
}

function commitFile(
  db: Database,
  path: string,
  chunks: readonly ChunkRef[],
  manifest: string,
  mode: number,
  exclusive: boolean,
  now: () => number,
): void {
  const size = chunks.reduce((total, chunk) => total + chunk.size, 0);
  db.transaction(() => {
    const at = now();
    const target = resolveTarget(db, path);
    checkTarget(db, target, path, exclusive);
    const rev = bumpRev(db);
    saveManifest(db, manifest, chunks, at);
    let inode: number;
    if (target.kind === "found") {
      inode = target.node.inode;
      dropChunks(db, inode, at);
      db.run(
        "UPDATE vfs_nodes SET mode = ?, mtime = ?, rev = ?, size = ?, manifest_hash = ? WHERE inode = ?",
        mode,
        at,
        rev,
        size,
        manifest,
        inode,
      );
    } else if (target.kind === "missing") {
      inode = insertNode(db, { type: "file", mode, mtime: at, rev, size, manifestHash: manifest });
      addDirent(db, target.parent, target.name, inode);
    } else {
      throw new Error("unreachable: checkTarget rejects blocked paths");
    }
    linkChunks(db, inode, chunks);
  });
}

/** Writes a file's chunk rows; the caller has removed the old ones. */
export function linkChunks(db: Database, inode: number, chunks: readonly ChunkRef[]): void {
  chunks.forEach((chunk, idx) => {
    db.run("INSERT INTO vfs_chunks (inode, idx, hash, size) VALUES (?, ?, ?, ?)", inode, idx, chunk.hash, chunk.size);
  });
}

function resolveTarget(db: Database, path: string): Resolution {
  return resolvePath(db, path, { followFinal: true }, SYSCALL);
}

function checkTarget(db: Database, target: Resolution, path: string, exclusive: boolean): void {
  if (target.kind === "blocked") throw fsError(target.reason === "missing" ? "ENOENT" : "ENOTDIR", SYSCALL, path);
  if (target.kind === "found") {
    if (exclusive) throw fsError("EEXIST", SYSCALL, path);
    if (target.node.type !== "file") throw fsError("EISDIR", SYSCALL, path);
  }
  // Like O_CREAT|O_EXCL, an exclusive create refuses any link at the path, dangling or not.
  if (exclusive && resolvePath(db, path, { followFinal: false }, SYSCALL).kind === "found") {
    throw fsError("EEXIST", SYSCALL, path);
  }
  // A followed link may land somewhere else; that real place must be writable too.
  if (target.path !== path) assertWritable(db, target.path, SYSCALL);
}
