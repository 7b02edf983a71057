/**
 * `WorkspaceFsAdapter`: just-bash's `IFileSystem` over a workspace filesystem
 * (the `fs` of a `WorkspaceStub`, reached over Workers RPC from the Dynamic
 * Worker). Most methods are one call; what the workspace has no verb for is
 * put together here:
 *
 * | just-bash          | workspace                                              |
 * | ------------------ | ------------------------------------------------------ |
 * | readFile*, stat, … | readFile (a byte stream), stat, lstat, readdir, …      |
 * | writeFile          | writeFile, keeping the mode of a file it replaces      |
 * | appendFile         | readFile + writeFile                                   |
 * | cp, mv             | a walk of readFile/writeFile/mkdir/symlink (+ rm)      |
 * | realpath           | lstat/readlink per component, 40 hops at most          |
 * | exists             | exists (no throw across RPC)                           |
 * | link               | ENOSYS: the workspace has no hardlinks to offer        |
 * | utimes             | no-op: mtime is the workspace's, set on every write    |
 *
 * `/dev/null` is virtual: it reads empty and swallows writes. Errors keep
 * Node's message shape (`ENOENT: no such file or directory, open '/a'`),
 * which is what just-bash matches on.
 */

import type {
  BufferEncoding,
  ByteString,
  CpOptions,
  FileContent,
  FsStat,
  IFileSystem,
  MkdirOptions,
  RmOptions,
} from "just-bash";
import { fsError } from "../protocol/errors.js";

/** The parts of a workspace `Stat` the adapter reads. */
export interface WorkspaceStatLike {
  inode?: number;
  mode: number;
  mtime: number;
  size: number;
  isFile: boolean;
  isDirectory: boolean;
  isSymbolicLink: boolean;
}

export interface WorkspaceDirEntryLike {
  name: string;
  isFile: boolean;
  isDirectory: boolean;
  isSymbolicLink: boolean;
}

/** A workspace filesystem as the adapter calls it: `WorkspaceStub.fs`, or `workspace.fs` in the same isolate. */
export interface WorkspaceFsLike {
  readFile(path: string): Promise<ReadableStream<Uint8Array> | string>;
  writeFile(path: string, data: string | Uint8Array, options?: { mode?: number }): Promise<void>;
  mkdir(path: string, options?: { recursive?: boolean }): Promise<void>;
  rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void>;
  readdir(path: string): Promise<WorkspaceDirEntryLike[]>;
  stat(path: string): Promise<WorkspaceStatLike>;
  lstat(path: string): Promise<WorkspaceStatLike>;
  readlink(path: string): Promise<string>;
  chmod(path: string, mode: number): Promise<void>;
  symlink(target: string, path: string): Promise<void>;
  exists(path: string): Promise<boolean>;
  statOrNull(path: string): Promise<WorkspaceStatLike | null>;
}

export const DEV_NULL = "/dev/null";
/** Symlink hops `realpath` follows before giving up with ELOOP, as Linux does. */
const MAX_SYMLINK_HOPS = 40;

type Encoding = BufferEncoding | { encoding?: BufferEncoding | null } | null | undefined;

/** Normalizes an absolute path: collapses `//`, `.` and `..` (never above `/`). */
export function normalizePath(path: string): string {
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return `/${parts.join("/")}`;
}

export function resolvePath(base: string, path: string): string {
  return normalizePath(path.startsWith("/") ? path : `${base}/${path}`);
}

function encodingOf(options: Encoding): BufferEncoding {
  if (typeof options === "string") return options;
  return options?.encoding ?? "utf8";
}

const latin1 = (bytes: Uint8Array): string => {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return text;
};

function decode(bytes: Uint8Array, encoding: BufferEncoding): string {
  switch (encoding) {
    case "binary":
    case "latin1":
      return latin1(bytes);
    case "ascii":
      return latin1(bytes.map((byte) => byte & 0x7f));
    case "base64":
      return btoa(latin1(bytes));
    case "hex":
      return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
    default:
      return new TextDecoder().decode(bytes);
  }
}

function encode(content: FileContent, encoding: BufferEncoding): Uint8Array {
  if (typeof content !== "string") return content;
  switch (encoding) {
    case "binary":
    case "latin1":
    case "ascii":
      return Uint8Array.from(content, (char) => char.charCodeAt(0) & 0xff);
    case "base64":
      return Uint8Array.from(atob(content), (char) => char.charCodeAt(0));
    case "hex": {
      const bytes = new Uint8Array(content.length >> 1);
      for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(content.slice(2 * i, 2 * i + 2), 16);
      return bytes;
    }
    default:
      return new TextEncoder().encode(content);
  }
}

async function collect(data: ReadableStream<Uint8Array> | string): Promise<Uint8Array> {
  if (typeof data === "string") return new TextEncoder().encode(data);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of data) {
    chunks.push(chunk);
    size += chunk.byteLength;
  }
  if (chunks.length === 1 && chunks[0]) return chunks[0];
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

function toFsStat(stat: WorkspaceStatLike): FsStat {
  const result: FsStat = {
    isFile: stat.isFile,
    isDirectory: stat.isDirectory,
    isSymbolicLink: stat.isSymbolicLink,
    mode: stat.mode,
    size: stat.size,
    mtime: new Date(stat.mtime),
  };
  if (stat.inode !== undefined) result.ino = stat.inode;
  return result;
}

const DEV_NULL_STAT: FsStat = {
  isFile: true,
  isDirectory: false,
  isSymbolicLink: false,
  mode: 0o666,
  size: 0,
  mtime: new Date(0),
};

export class WorkspaceFsAdapter implements IFileSystem {
  readonly #fs: WorkspaceFsLike;

  constructor(fs: WorkspaceFsLike) {
    this.#fs = fs;
  }

  async readFileBuffer(path: string): Promise<Uint8Array> {
    const p = normalizePath(path);
    if (p === DEV_NULL) return new Uint8Array(0);
    return collect(await this.#fs.readFile(p));
  }

  async readFile(path: string, options?: Encoding): Promise<string> {
    return decode(await this.readFileBuffer(path), encodingOf(options));
  }

  /** Bytes as a latin1-shaped string: one char per byte, what just-bash pipes between commands. */
  async readFileBytes(path: string): Promise<ByteString> {
    return latin1(await this.readFileBuffer(path)) as unknown as ByteString;
  }

  async writeFile(path: string, content: FileContent, options?: Encoding): Promise<void> {
    const p = normalizePath(path);
    if (p === DEV_NULL) return;
    await this.#write(p, encode(content, encodingOf(options)));
  }

  async appendFile(path: string, content: FileContent, options?: Encoding): Promise<void> {
    const p = normalizePath(path);
    if (p === DEV_NULL) return;
    const tail = encode(content, encodingOf(options));
    const existing = await this.#fs.statOrNull(p);
    if (existing?.isDirectory) throw fsError("EISDIR", "open", p);
    if (!existing) return this.#write(p, tail);
    const head = await this.readFileBuffer(p);
    const joined = new Uint8Array(head.byteLength + tail.byteLength);
    joined.set(head, 0);
    joined.set(tail, head.byteLength);
    await this.#fs.writeFile(p, joined, { mode: existing.mode });
  }

  async exists(path: string): Promise<boolean> {
    const p = normalizePath(path);
    return p === DEV_NULL || this.#fs.exists(p);
  }

  async stat(path: string): Promise<FsStat> {
    const p = normalizePath(path);
    if (p === DEV_NULL) return { ...DEV_NULL_STAT };
    // statOrNull: just-bash probes PATH with stat, and a miss thrown across RPC is logged as uncaught by workerd.
    const stat = await this.#fs.statOrNull(p);
    if (!stat) throw fsError("ENOENT", "stat", p);
    return toFsStat(stat);
  }

  async lstat(path: string): Promise<FsStat> {
    const p = normalizePath(path);
    if (p === DEV_NULL) return { ...DEV_NULL_STAT };
    return toFsStat(await this.#fs.lstat(p));
  }

  async mkdir(path: string, options?: MkdirOptions): Promise<void> {
    await this.#fs.mkdir(normalizePath(path), { recursive: options?.recursive === true });
  }

  async readdir(path: string): Promise<string[]> {
    return (await this.#fs.readdir(normalizePath(path))).map((entry) => entry.name);
  }

  async readdirWithFileTypes(
    path: string,
  ): Promise<Array<{ name: string; isFile: boolean; isDirectory: boolean; isSymbolicLink: boolean }>> {
    return (await this.#fs.readdir(normalizePath(path))).map(({ name, isFile, isDirectory, isSymbolicLink }) => ({
      name,
      isFile,
      isDirectory,
      isSymbolicLink,
    }));
  }

  async rm(path: string, options?: RmOptions): Promise<void> {
    const p = normalizePath(path);
    if (p === DEV_NULL) return;
    await this.#fs.rm(p, { recursive: options?.recursive === true, force: options?.force === true });
  }

  async cp(src: string, dest: string, options?: CpOptions): Promise<void> {
    const from = normalizePath(src);
    const to = normalizePath(dest);
    const stat = await this.#fs.lstat(from);
    if (stat.isDirectory && options?.recursive !== true) {
      throw fsError("EISDIR", "cp", from, undefined, to);
    }
    if (stat.isDirectory && (to === from || to.startsWith(`${from}/`))) {
      throw fsError("EINVAL", "cp", from, "invalid argument, cannot copy a directory into itself", to);
    }
    await this.#copy(from, to, stat);
  }

  /** No rename verb in the workspace RPC: a copy, then removing the source. */
  async mv(src: string, dest: string): Promise<void> {
    const from = normalizePath(src);
    const to = normalizePath(dest);
    if (from === to) return;
    const stat = await this.#fs.lstat(from);
    if (stat.isDirectory && to.startsWith(`${from}/`)) {
      throw fsError("EINVAL", "rename", from, "invalid argument, cannot move a directory into itself", to);
    }
    const target = await this.#fs.statOrNull(to);
    if (target?.isDirectory && !stat.isDirectory) throw fsError("EISDIR", "rename", from, undefined, to);
    if (target) await this.#fs.rm(to, { recursive: true, force: true });
    await this.#copy(from, to, stat);
    await this.#fs.rm(from, { recursive: true, force: true });
  }

  resolvePath(base: string, path: string): string {
    return resolvePath(base, path);
  }

  /** The workspace is too big to list up front; just-bash globs with readdir when this is empty. */
  getAllPaths(): string[] {
    return [];
  }

  async chmod(path: string, mode: number): Promise<void> {
    await this.#fs.chmod(normalizePath(path), mode);
  }

  async symlink(target: string, linkPath: string): Promise<void> {
    await this.#fs.symlink(target, normalizePath(linkPath));
  }

  async link(existingPath: string, newPath: string): Promise<void> {
    throw fsError("ENOSYS", "link", normalizePath(existingPath), undefined, normalizePath(newPath));
  }

  async readlink(path: string): Promise<string> {
    return this.#fs.readlink(normalizePath(path));
  }

  async realpath(path: string): Promise<string> {
    const input = normalizePath(path);
    if (input === DEV_NULL) return input;
    let pending = input.split("/").filter(Boolean);
    let resolved = "/";
    let hops = 0;
    while (pending.length > 0) {
      const name = pending.shift() as string;
      const next = resolved === "/" ? `/${name}` : `${resolved}/${name}`;
      const stat = await this.#fs.lstat(next);
      if (!stat.isSymbolicLink) {
        resolved = next;
        continue;
      }
      if (++hops > MAX_SYMLINK_HOPS) throw fsError("ELOOP", "realpath", input);
      const target = await this.#fs.readlink(next);
      pending = [...target.split("/").filter(Boolean), ...pending];
      if (target.startsWith("/")) resolved = "/";
    }
    return normalizePath(resolved);
  }

  /** Accepted and ignored: the workspace stamps mtime itself on every write (one RPC saved per `touch`). */
  async utimes(_path: string, _atime: Date, _mtime: Date): Promise<void> {}

  async #write(path: string, bytes: Uint8Array): Promise<void> {
    // The workspace resets the mode to 0644 on every write; keep an executable script executable.
    const existing = await this.#fs.statOrNull(path);
    if (existing?.isDirectory) throw fsError("EISDIR", "open", path);
    await this.#fs.writeFile(path, bytes, existing ? { mode: existing.mode } : undefined);
  }

  async #copy(from: string, to: string, stat: WorkspaceStatLike): Promise<void> {
    if (stat.isSymbolicLink) {
      await this.#fs.symlink(await this.#fs.readlink(from), to);
    } else if (stat.isDirectory) {
      if (!(await this.#fs.exists(to))) await this.#fs.mkdir(to);
      for (const entry of await this.#fs.readdir(from)) {
        const child = `${from}/${entry.name}`;
        await this.#copy(child, `${to}/${entry.name}`, await this.#fs.lstat(child));
      }
      await this.#fs.chmod(to, stat.mode);
    } else {
      await this.#fs.writeFile(to, await this.readFileBuffer(from), { mode: stat.mode });
    }
  }
}
