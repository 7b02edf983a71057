/**
 * Sync wire shapes. They live in dofs because both peers run dofs; the RPC
 * package (`@cloudflare/computer-rpc`) re-exports them as its wire types.
 */

/**
 * A position in one peer's change stream. Ordered by `rev`; within a rev a
 * string path comes before `null`, and `null` means "the whole rev has been
 * offered". Paths compare with JavaScript `<`.
 */
export interface Cursor {
  rev: number;
  path: string | null;
}

/**
 * One chunk of a file entry on the wire: the original's shape. The store
 * keys blobs by lowercase hex (`ChunkRef`); `./wire.ts` converts at the edge.
 */
export interface ChunkEntry {
  /** SHA-256 of the chunk, 32 bytes. */
  hash: Uint8Array;
  size: number;
}

export interface FileChange {
  kind: "file";
  rev: number;
  path: string;
  mode: number;
  mtime: number;
  size: number;
  chunks: ChunkEntry[];
}

export interface DirChange {
  kind: "dir";
  rev: number;
  path: string;
  mode: number;
  mtime: number;
}

export interface SymlinkChange {
  kind: "symlink";
  rev: number;
  path: string;
  target: string;
  mode: number;
  mtime: number;
}

export interface DeleteChange {
  kind: "delete";
  rev: number;
  path: string;
}

/** A path that exists on the sender. */
export type LiveChange = FileChange | DirChange | SymlinkChange;

/** One path at its current state. Entries never carry bytes: chunks travel as blobs (`pushObjects`/`fetchObjects`). */
export type ChangeEntry = LiveChange | DeleteChange;

export interface PushRequest {
  /** The sender's rev the batch was cut at; 0 for an outside writer (a local apply). */
  senderRev: number;
  /** Where the sender's stream stands after this batch; a peer's receiver stores it as its pull cursor. */
  senderCursor?: Cursor;
  changes: ReadableStream<ChangeEntry>;
}

export interface PushResult {
  /** The receiver's rev after the apply. */
  rev: number;
  /** Entries received. */
  applied?: number;
  /** The receiver's pull cursor after the apply (`{0, null}` for an outside writer). */
  appliedPushCursor: Cursor;
  /** Entries under a read-only mount, not applied; absent when there were none. */
  skipped?: SkippedEntry[];
  /** Entries refused for a name too long to store; absent when there were none. */
  refused?: RefusedEntry[];
}

export interface FetchChangesRequest {
  after?: Cursor;
  through?: Cursor;
  /** Replaces the server's ignore list for this call: exact path segments to leave out. */
  ignore?: string[];
}

export interface FetchChangesResult {
  /** The snapshot the stream runs up to: `{currentRev, null}`, or `through` if lower. */
  currentCursor: Cursor;
  /** The server's pull cursor: how much of the caller's stream it has applied. */
  appliedPushCursor: Cursor;
  stream: ReadableStream<ChangeEntry>;
}

export interface Watermarks {
  currentRev: number;
  pushRev: number;
  /** The peer's pull cursor. `fetchCursor` is the wire name (as `fetchChanges` is), kept for compatibility. */
  fetchCursor: Cursor;
  /**
   * The peer's replica id, new whenever its store is (a restarted container).
   * Optional on the wire: a peer without it is judged by its revs alone.
   */
  replica?: string;
}

export interface ObjectFrame {
  /** SHA-256, 32 bytes. */
  hash: Uint8Array;
  bytes: Uint8Array;
}

/**
 * An entry the receiver did not apply because it is at or under a read-only
 * mount root (a delete: above one). It still counts toward the cursor. The
 * original's shape exactly.
 */
export interface SkippedEntry {
  path: string;
  mountRoot: string;
  op: "write" | "delete";
  reason: "read-only";
}

/**
 * A live entry the receiver refused because storing it would leave a name no
 * FUSE listing or process could use: a name over MAX_NAME_BYTES, a path of
 * MAX_PATH_BYTES or more, or a symlink target that long. It still counts
 * toward the cursor. Ours: reported beside `skipped`, never in it, so
 * `skipped` stays the original's read-only skips.
 */
export interface RefusedEntry {
  path: string;
  op: "write";
  reason: "name-too-long";
}

/** What each sync peer serves (`WorkspaceRPC.sync` on the wire). */
export interface SyncRPC {
  push(request: PushRequest): Promise<PushResult>;
  fetchChanges(request: FetchChangesRequest): Promise<FetchChangesResult>;
  watermarks(options?: { settle?: boolean }): Promise<Watermarks>;
  readEntry(path: string): Promise<ChangeEntry | null>;
  /** The subset of `hashes` held in full, in input order, duplicates kept. At most 100 per call. */
  hasObjects(hashes: Uint8Array[]): Promise<Uint8Array[]>;
  /**
   * The blobs of `hashes`, in order. A stream, as the original declares it: a
   * local peer returns it at once (throwing for a bad or unknown hash), and
   * over capnweb the call is a promise of it, so callers `await` either way.
   */
  fetchObjects(hashes: Uint8Array[]): ReadableStream<ObjectFrame>;
  pushObjects(objects: ReadableStream<ObjectFrame>): Promise<void>;
}
