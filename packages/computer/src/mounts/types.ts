/** The `mounts` option of a Workspace: directories filled from outside (`docs/mounts.md`). */
import type { MountAccess, SQLiteWorkspaceProvider, WorkspaceFilesystem } from "@cloudflare/dofs";

export type MountData = ReadableStream<Uint8Array> | Uint8Array | string;

/** What a mount's `materialize` may do: write files and make directories under its root, nothing else. */
export interface MaterializeContext {
  readonly root: string;
  /** Absolute path under the root; missing parent directories are created. */
  writeFile(path: string, data: MountData, mode?: number): Promise<void>;
  mkdir(path: string, mode?: number): Promise<void>;
}

export interface Mount {
  /** Only `"eager"`: everything is copied in by `ready()`. */
  readonly strategy: "eager";
  /** Recorded with the root, e.g. `"r2"`. Default `"custom"`. */
  readonly kind?: string;
  /** Default `"read-only"`: every write at, under or above the root fails with EROFS. */
  readonly mode?: MountAccess;
  /** Caps on what `materialize` may write; going over rolls the mount back. */
  readonly maxBytes?: number;
  readonly maxEntries?: number;
  materialize(context: MaterializeContext): Promise<void>;
}

/** What every mount declares besides how it is filled. */
export type MountBase = Omit<Mount, "strategy" | "materialize">;
/** The only strategy there is: `Mount`. */
export type EagerMount = Mount;
/** The original's name for what `materialize` is given. */
export type MountWriteAPI = MaterializeContext;

/** What a mount factory is called with (the original's `MountContext`). */
export interface MountFactoryContext {
  /** The Workspace's `sessionId`; `""` when it has none. */
  sessionId: string;
  root: string;
  /** The store's node:fs face (`workspace.provider()`), as in the original. */
  vfs: SQLiteWorkspaceProvider;
  /** The same store as `workspace.fs` (streams, find, grep): ours, besides the original's `vfs`. */
  fs: WorkspaceFilesystem;
}

/** The original's name for a factory's argument. */
export type MountContext = MountFactoryContext;

/** A function called once (when the Workspace is constructed) that makes a mount. */
export type MountFactory = (context: MountContext) => Mount;

/** A mount, or a factory of one. */
export type MountOption = Mount | MountFactory;

/** Keyed by root: absolute, no trailing `/`, none inside another. */
export type MountsOption = Readonly<Record<string, MountOption>>;
