/**
 * The filesystem as a `WorkspaceClient` and a `WorkspaceFilesystemStub` offer
 * it: the public `WorkspaceFilesystem` verbs plus `exists`, `statOrNull` and
 * `lstatOrNull`. Those answer an expected miss with false/null instead of throwing,
 * because workerd logs every error thrown across Workers RPC as uncaught.
 *
 * Errors that cross Workers RPC arrive as plain `Error`s carrying their own
 * properties (`code`, `syscall`, `path`, `dest`: workerd's error serialization
 * since compatibility date 2026-04-21); the remote client builds the
 * `WorkspaceFsError` back from that shape (dofs' `fromShape`) so callers keep
 * branching on `.code`. The message text is never parsed.
 */
import {
  type Database,
  FS_ERROR_CODES,
  fromShape,
  isFsError,
  type Stat,
  toShape,
  type WorkspaceFilesystem,
  WorkspaceFsError,
} from "@cloudflare/dofs";

/** The verbs of `workspace.fs` that make sense over RPC (not the internal rename/link/gc, nor `db`). */
export type WorkspaceFilesystemVerbs = Pick<
  WorkspaceFilesystem,
  | "readFile"
  | "writeFile"
  | "mkdir"
  | "rm"
  | "readdir"
  | "stat"
  | "lstat"
  | "readlink"
  | "chmod"
  | "symlink"
  | "find"
  | "ls"
  | "grep"
>;

export interface WorkspaceClientFilesystem extends WorkspaceFilesystemVerbs {
  /**
   * The workspace's database, as the original's client types it. Only a client in the Durable
   * Object's own isolate has it; over RPC there is no database to hand out, and reading it throws.
   */
  readonly db: Database;
  /** The clock the filesystem stamps changes with (over RPC: this isolate's, the same Workers clock). */
  readonly now: () => number;
  /** Whether the path exists (links followed). False on ENOENT/ENOTDIR; other errors (EINVAL, ELOOP) throw. */
  exists(path: string): Promise<boolean>;
  /** `stat`, or null when the path does not exist. */
  statOrNull(path: string): Promise<Stat | null>;
  /** `lstat` (a link is not followed), or null when the path does not exist. */
  lstatOrNull(path: string): Promise<Stat | null>;
}

const VERBS = [
  "readFile",
  "writeFile",
  "mkdir",
  "rm",
  "readdir",
  "stat",
  "lstat",
  "readlink",
  "chmod",
  "symlink",
  "find",
  "ls",
  "grep",
] as const satisfies readonly (keyof WorkspaceFilesystemVerbs)[];

/** A miss is ENOENT, or ENOTDIR (a path running through a file): both mean "no such path". */
function isMiss(error: unknown): boolean {
  return isFsError(error, "ENOENT") || isFsError(error, "ENOTDIR");
}

export async function statOrNull(fs: Pick<WorkspaceFilesystem, "stat">, path: string): Promise<Stat | null> {
  try {
    return await fs.stat(path);
  } catch (error) {
    if (isMiss(error)) return null;
    throw error;
  }
}

export async function lstatOrNull(fs: Pick<WorkspaceFilesystem, "lstat">, path: string): Promise<Stat | null> {
  try {
    return await fs.lstat(path);
  } catch (error) {
    if (isMiss(error)) return null;
    throw error;
  }
}

export async function exists(fs: Pick<WorkspaceFilesystem, "stat">, path: string): Promise<boolean> {
  return (await statOrNull(fs, path)) !== null;
}

/** The in-isolate filesystem: the real one, plus the two miss-tolerant helpers. */
export function localFilesystem(fs: WorkspaceFilesystem): WorkspaceClientFilesystem {
  const client = {} as Record<string, unknown>;
  for (const verb of VERBS) client[verb] = fs[verb].bind(fs);
  client.exists = (path: string) => exists(fs, path);
  client.statOrNull = (path: string) => statOrNull(fs, path);
  client.lstatOrNull = (path: string) => lstatOrNull(fs, path);
  client.now = fs.now;
  Object.defineProperty(client, "db", { get: () => fs.db, enumerable: true });
  return client as unknown as WorkspaceClientFilesystem;
}

/** What a remote `WorkspaceFilesystemStub` looks like to the client: each verb returns a promise. */
export type RemoteFilesystem = {
  [K in Exclude<keyof WorkspaceClientFilesystem, "db" | "now">]: (...args: never[]) => Promise<unknown>;
};

/** The RPC filesystem: every call's fs error is rebuilt so `.code` works on this side too. */
export function remoteFilesystem(stub: RemoteFilesystem): WorkspaceClientFilesystem {
  const client = {} as Record<string, unknown>;
  for (const verb of [...VERBS, "exists", "statOrNull", "lstatOrNull"] as const) {
    // Called as `stub[verb](…)` each time: an RPC stub's members are proxies, with no `apply` or `bind` of their own.
    const methods = stub as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    client[verb] = async (...args: unknown[]) => {
      try {
        return await methods[verb]?.(...args);
      } catch (error) {
        throw rebuildFsError(error);
      }
    };
  }
  client.now = () => Date.now();
  Object.defineProperty(client, "db", {
    enumerable: true,
    get: () => {
      throw new TypeError(
        "client.fs.db: the database is only in the Durable Object's own isolate; over RPC use the fs methods",
      );
    },
  });
  return client as unknown as WorkspaceClientFilesystem;
}

/**
 * Builds a `WorkspaceFsError` back from an error that crossed Workers RPC
 * with its fields as own properties: any error whose `code` is a filesystem
 * code, whatever class name it kept. The message stays exactly the original's
 * and the original is the `cause`. Any other error is returned as it is.
 */
export function rebuildFsError(error: unknown): unknown {
  if (error instanceof WorkspaceFsError || !(error instanceof Error)) return error;
  const shape = toShape(error);
  if (shape.code === undefined || !Object.hasOwn(FS_ERROR_CODES, shape.code)) return error;
  const rebuilt = fromShape({ ...shape, name: "WorkspaceFsError" });
  Object.defineProperty(rebuilt, "cause", { value: error, writable: true, configurable: true });
  return rebuilt;
}
