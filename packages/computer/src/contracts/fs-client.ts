/**
 * The filesystem as a `WorkspaceClient` and a `WorkspaceFilesystemStub` offer
 * it: the public `WorkspaceFilesystem` verbs plus `exists`, `statOrNull` and
 * `lstatOrNull`. Those answer an expected miss with false/null instead of throwing,
 * because workerd logs every error thrown across Workers RPC as uncaught.
 *
 * Errors that cross RPC arrive as plain `Error`s with the message only; the
 * remote client rebuilds a `WorkspaceFsError` from the message's `CODE: `
 * prefix so callers can keep branching on `.code`.
 */
import {
  type Database,
  FS_ERROR_CODES,
  type FsErrorCode,
  isFsError,
  type Stat,
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

const CODE_PREFIX = /^([A-Z][A-Z0-9_]*): /;
/** `<detail>, <syscall>`, `<detail>, <syscall> '<path>'` or `… '<path>' -> '<dest>'`; syscalls are identifiers. */
const TAIL = /^(.*), ([A-Za-z_][\w.]*)(?: '(.*?)'(?: -> '(.*)')?)?$/s;

/**
 * Turns an error whose message is in Node's shape (`ENOENT: no such file or
 * directory, open '/a'`) back into a `WorkspaceFsError` with `code`, `syscall`
 * and `path`, keeping the message exactly and the original as `cause`. Any
 * other error is returned as it is.
 */
export function rebuildFsError(error: unknown): unknown {
  if (error instanceof WorkspaceFsError || !(error instanceof Error)) return error;
  const code = CODE_PREFIX.exec(error.message)?.[1];
  if (code === undefined || !(code in FS_ERROR_CODES)) return error;
  const rest = error.message.slice(code.length + 2);
  const tail = TAIL.exec(rest);
  const detail = tail ? (tail[1] as string) : rest;
  const rebuilt = new WorkspaceFsError(code as FsErrorCode, tail?.[2], tail?.[3], {
    cause: error,
    detail,
    ...(tail?.[4] === undefined ? {} : { dest: tail[4] }),
  });
  // The parse is best-effort (a detail may itself contain ", x: "); the message must still be the original.
  if (rebuilt.message !== error.message) {
    Object.defineProperty(rebuilt, "message", { value: error.message, writable: true, configurable: true });
  }
  return rebuilt;
}
