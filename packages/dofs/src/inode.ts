/**
 * `@cloudflare/dofs/inode`: inode-level reads and in-place writes for a mount
 * driver (computerd's FUSE mount). Runtime-neutral; the caller brings a
 * synchronous SHA-256.
 */
export {
  type ChildName,
  childAttr,
  childAttrs,
  createFileInode,
  type DirtyChunk,
  type InodeAttr,
  type InodeWrite,
  inodeAttr,
  inodeChunks,
  type KnownChild,
  lookupInode,
  mkdirInode,
  readChunk,
  rmdirChild,
  type SharedChunk,
  setInodeMode,
  setInodeMtime,
  unlinkChild,
  writeInode,
} from "./fs/inode-io.js";
export { type CollectOptions, type CollectResult, collectGarbage, holdBlobs } from "./gc.js";
export { pathOfInode } from "./nodes.js";
