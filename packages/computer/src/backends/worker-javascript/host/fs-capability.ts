/**
 * `node:fs/promises` on the host side: each method the Dynamic Worker's fs
 * module can call, with the backend's rules — paths resolve against the
 * execution's cwd and must stay inside the root, I/O never passes through a
 * symlink (readlink, lstat and rm act on a final link itself), and
 * `access: "read"` turns every mutation into EROFS. Errors are dofs'
 * `WorkspaceFsError`s, Node-shaped.
 */
import { fsError, isFsError, type WorkspaceFilesystem, WorkspaceFsError } from "@cloudflare/dofs";
import type { StatShape } from "../protocol/messages.js";
import type { ResolvedOptions } from "./options.js";
import { assertNoSymlinks, isAtOrUnder, outsideRoot, resolvePath } from "./paths.js";

const W_OK = 2;

function asString(value: unknown, name: string): string {
  if (typeof value !== "string") throw new TypeError(`The "${name}" argument must be a string`);
  return value;
}

interface FsOptions {
  flag?: unknown;
  mode?: unknown;
  recursive?: unknown;
  force?: unknown;
}

function optionsObject(value: unknown): FsOptions {
  return typeof value === "object" && value !== null ? (value as FsOptions) : {};
}

function optionalMode(value: unknown): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new TypeError(`The "mode" argument must be a non-negative integer; got ${String(value)}`);
  }
  return value;
}

export class FsCapability {
  readonly #fs: WorkspaceFilesystem;
  readonly #options: ResolvedOptions;
  readonly #cwd: string;

  constructor(fs: WorkspaceFilesystem, options: ResolvedOptions, cwd: string) {
    this.#fs = fs;
    this.#options = options;
    this.#cwd = cwd;
  }

  /** Resolves, confines and symlink-checks a path (`final`: the last component too). */
  async #path(raw: unknown, syscall: string, final: boolean): Promise<string> {
    const path = resolvePath(this.#cwd, asString(raw, "path"), syscall);
    if (!isAtOrUnder(path, this.#options.root)) throw outsideRoot(syscall, path, this.#options.root);
    await assertNoSymlinks(this.#fs, path, syscall, final);
    return path;
  }

  #writable(syscall: string, path: string): void {
    if (this.#options.access === "read") throw new WorkspaceFsError("EROFS", syscall, path);
  }

  async call(method: string, args: unknown[]): Promise<unknown> {
    switch (method) {
      case "readFile":
        return this.readFile(args[0], args[1]);
      case "writeFile":
        return this.writeFile(args[0], args[1], args[2]);
      case "mkdir":
        return this.mkdir(args[0], args[1]);
      case "rm":
        return this.rm(args[0], args[1]);
      case "chmod":
        return this.chmod(args[0], args[1]);
      case "symlink":
        return this.symlink(args[0], args[1]);
      case "readlink":
        return this.#fs.readlink(await this.#path(args[0], "readlink", false));
      case "readdir":
        return this.readdir(args[0]);
      case "stat":
        return this.#stat(await this.#path(args[0], "stat", true), true);
      case "lstat":
        return this.#stat(await this.#path(args[0], "lstat", false), false);
      case "access":
        return this.access(args[0], args[1]);
      default:
        throw new TypeError(`node:fs/promises has no ${method} here`);
    }
  }

  async readFile(rawPath: unknown, encoding: unknown): Promise<string | Uint8Array> {
    const path = await this.#path(rawPath, "open", true);
    if (encoding !== null && encoding !== undefined && encoding !== "utf8" && encoding !== "utf-8") {
      throw new TypeError(`readFile supports bytes or "utf8"; got encoding ${JSON.stringify(encoding)}`);
    }
    // Node's readFile fails in open(2): a missing file is `open`, not the stat this size check needs.
    const stat = await this.#fs.stat(path).catch((error: unknown) => {
      throw isFsError(error, "ENOENT") ? fsError("ENOENT", "open", path) : error;
    });
    if (stat.isDirectory) throw new WorkspaceFsError("EISDIR", "read", path);
    if (stat.size > this.#options.maxCapabilityBytes) {
      throw new WorkspaceFsError("EINVAL", "read", path, {
        detail: `file is larger than maxCapabilityBytes (${this.#options.maxCapabilityBytes})`,
      });
    }
    if (encoding) return this.#fs.readFile(path, "utf8");
    return this.#fs.readFileBytes(path);
  }

  async writeFile(rawPath: unknown, data: unknown, rawOptions: unknown): Promise<void> {
    const path = await this.#path(rawPath, "open", true);
    this.#writable("open", path);
    const options = optionsObject(rawOptions);
    const flag = options.flag ?? "w";
    if (flag !== "w" && flag !== "wx") {
      throw new WorkspaceFsError("EINVAL", "open", path, {
        detail: `flag ${JSON.stringify(flag)} is not supported (w, wx)`,
      });
    }
    if (typeof data !== "string" && !(data instanceof Uint8Array)) {
      throw new TypeError('The "data" argument must be a string or bytes');
    }
    const mode = optionalMode(options.mode);
    await this.#fs.writeFile(path, data, { exclusive: flag === "wx", ...(mode === undefined ? {} : { mode }) });
  }

  async mkdir(rawPath: unknown, rawOptions: unknown): Promise<void> {
    const path = await this.#path(rawPath, "mkdir", true);
    this.#writable("mkdir", path);
    const options = optionsObject(rawOptions);
    const mode = optionalMode(options.mode);
    await this.#fs.mkdir(path, { recursive: options.recursive === true, ...(mode === undefined ? {} : { mode }) });
  }

  async rm(rawPath: unknown, rawOptions: unknown): Promise<void> {
    const path = await this.#path(rawPath, "rm", false);
    this.#writable("rm", path);
    if (path === this.#options.root)
      throw new WorkspaceFsError("EPERM", "rm", path, { detail: "cannot remove the root" });
    const options = optionsObject(rawOptions);
    await this.#fs.rm(path, { recursive: options.recursive === true, force: options.force === true });
  }

  async chmod(rawPath: unknown, mode: unknown): Promise<void> {
    const path = await this.#path(rawPath, "chmod", true);
    this.#writable("chmod", path);
    await this.#fs.chmod(path, optionalMode(mode) ?? Number.NaN);
  }

  async symlink(target: unknown, rawPath: unknown): Promise<void> {
    const path = await this.#path(rawPath, "symlink", false);
    this.#writable("symlink", path);
    // The target is stored as given; it is never followed by this backend anyway.
    await this.#fs.symlink(asString(target, "target"), path);
  }

  async readdir(rawPath: unknown): Promise<unknown[]> {
    const path = await this.#path(rawPath, "scandir", true);
    const max = this.#options.maxDirEntries;
    const entries = await this.#fs.readdir(path, { limit: max + 1 });
    if (entries.length > max) {
      throw new WorkspaceFsError("EINVAL", "scandir", path, { detail: `more than maxDirEntries (${max}) entries` });
    }
    return entries.map((entry) => ({
      name: entry.name,
      parentPath: entry.parentPath,
      isFile: entry.isFile,
      isDirectory: entry.isDirectory,
      isSymbolicLink: entry.isSymbolicLink,
    }));
  }

  async access(rawPath: unknown, mode: unknown): Promise<void> {
    const path = await this.#path(rawPath, "access", true);
    await this.#fs.stat(path);
    if (typeof mode === "number" && (mode & W_OK) !== 0 && this.#options.access === "read") {
      throw new WorkspaceFsError("EROFS", "access", path);
    }
  }

  async #stat(path: string, follow: boolean): Promise<StatShape> {
    const stat = follow ? await this.#fs.stat(path) : await this.#fs.lstat(path);
    return {
      mode: stat.mode,
      size: stat.size,
      mtimeMs: stat.mtime,
      ino: stat.inode,
      isFile: stat.isFile,
      isDirectory: stat.isDirectory,
      isSymbolicLink: stat.isSymbolicLink,
    };
  }
}
