/**
 * The userspace shim (`FUSE_MOUNT=shim`, and `auto` without /dev/fuse): the
 * workspace is materialized into a real directory at the mount point and
 * reconciled both ways against a shadow of what both sides last agreed on.
 * - store → disk (`flush`): after every push that applied entries, and at boot;
 * - disk → store (`reconcileNow`): every 250 ms, before every fetchChanges
 *   (so an exec's writes are in the next pull without waiting for a poll),
 *   and before every exec;
 * - a path changed on both sides since the last agreement keeps the store's
 *   version (the store wins ties). Only files and directories are handled.
 */
import { createHash } from "node:crypto";
import {
  chmodSync,
  type Dirent,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  type Stats,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { type Database, isNameTooLong, WorkspaceFilesystem } from "@cloudflare/dofs";
import { readEntry } from "@cloudflare/dofs/sync";
import type { Logger } from "../log/logger.js";
import type { MountDriver } from "./driver.js";

export const SHIM_POLL_MS = 250;

interface Shadow {
  type: "file" | "dir";
  /** The store's rev of the path when both sides last agreed. */
  rev: number;
  mode: number;
  sha1?: string;
  size?: number;
  mtimeMs?: number;
}

export class ShimDriver implements MountDriver {
  readonly mode = "shim" as const;
  readonly #db: Database;
  readonly #fs: WorkspaceFilesystem;
  readonly #root: string;
  readonly #log: Logger;
  readonly #shadow = new Map<string, Shadow>();
  #timer: NodeJS.Timeout | undefined;
  /** One reconcile or flush at a time: they read and write the same shadow. */
  #queue: Promise<void> = Promise.resolve();

  constructor(db: Database, mountPoint: string, log: Logger) {
    this.#db = db;
    this.#fs = new WorkspaceFilesystem(db);
    this.#root = mountPoint;
    this.#log = log;
  }

  async mount(): Promise<void> {
    mkdirSync(this.#root, { recursive: true });
    await this.flush();
    this.#timer = setInterval(() => {
      this.reconcileNow().catch((error) => this.#log.error("shim reconcile failed", error));
    }, SHIM_POLL_MS);
    this.#timer.unref();
    this.#log.info(`shim: ${this.#root} materialized; polling every ${SHIM_POLL_MS} ms`);
  }

  async unmount(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#queue;
  }

  afterApply(): Promise<void> {
    return this.flush();
  }

  beforeFetch(): Promise<void> {
    return this.reconcileNow();
  }

  beforeExec(): Promise<void> {
    return this.reconcileNow();
  }

  stats(): Record<string, number> {
    return { shim_paths: this.#shadow.size };
  }

  /** Nothing beyond dofs' own holds: the shim keeps no handles, and its reads and writes are dofs streams. */
  heldChunks(): void {}

  /** Store → disk. */
  flush(): Promise<void> {
    return this.#serial(async () => {
      const seen = new Set<string>([this.#root]);
      for (const { path } of await this.#fs.find(this.#root)) {
        const entry = readEntry(this.#db, path);
        if (entry === null || (entry.kind !== "file" && entry.kind !== "dir")) continue;
        seen.add(path);
        const known = this.#shadow.get(path);
        if (known !== undefined && known.rev === entry.rev) continue;
        if (entry.kind === "dir") {
          replaceIfNotDir(path);
          mkdirSync(path, { recursive: true });
          chmodSync(path, entry.mode);
          this.#shadow.set(path, { type: "dir", rev: entry.rev, mode: entry.mode });
          continue;
        }
        const bytes = new Uint8Array(await new Response(await this.#fs.readFile(path)).arrayBuffer());
        const disk = lstatOrUndefined(path);
        if (disk?.isDirectory()) rmSync(path, { recursive: true, force: true });
        writeFileSync(path, bytes, { mode: entry.mode });
        chmodSync(path, entry.mode);
        utimesSync(path, new Date(entry.mtime), new Date(entry.mtime));
        const written = statSync(path);
        this.#shadow.set(path, {
          type: "file",
          rev: entry.rev,
          mode: entry.mode,
          sha1: sha1(bytes),
          size: written.size,
          mtimeMs: written.mtimeMs,
        });
      }
      // Gone from the store since the last agreement: gone from disk too.
      for (const path of [...this.#shadow.keys()].sort().reverse()) {
        if (seen.has(path)) continue;
        rmSync(path, { recursive: true, force: true });
        this.#shadow.delete(path);
      }
    });
  }

  /** Disk → store. */
  reconcileNow(): Promise<void> {
    return this.#serial(async () => {
      const seen = new Set<string>([this.#root]);
      for (const [path, dirent] of walk(this.#root)) {
        if (!dirent.isFile() && !dirent.isDirectory()) continue;
        // A path the store refuses (ENAMETOOLONG: made below the mount by a relative path) stays on disk only.
        if (isNameTooLong(path)) continue;
        seen.add(path);
        const known = this.#shadow.get(path);
        const current = readEntry(this.#db, path);
        // The store changed this path since the last agreement: it wins, and flush writes it out.
        const storeChanged = known === undefined ? current !== null : current?.rev !== known.rev;
        const disk = lstatOrUndefined(path);
        if (disk === undefined) continue;
        const mode = disk.mode & 0o7777;
        if (dirent.isDirectory()) {
          if (known?.type === "dir" && known.mode === mode) continue;
          if (storeChanged && current !== null) continue;
          if (current?.kind !== "dir") await this.#fs.mkdir(path, { recursive: true, mode });
          else await this.#fs.chmod(path, mode);
          this.#shadow.set(path, { type: "dir", rev: readEntry(this.#db, path)?.rev ?? 0, mode });
          continue;
        }
        if (
          known?.type === "file" &&
          known.size === disk.size &&
          known.mtimeMs === disk.mtimeMs &&
          known.mode === mode
        ) {
          continue;
        }
        const bytes = readFileSync(path);
        const hash = sha1(bytes);
        if (known?.type === "file" && known.sha1 === hash && known.mode === mode) {
          this.#shadow.set(path, { ...known, size: disk.size, mtimeMs: disk.mtimeMs });
          continue;
        }
        if (storeChanged && current !== null) continue;
        await this.#fs.writeFile(path, bytes, { mode });
        this.#shadow.set(path, {
          type: "file",
          rev: readEntry(this.#db, path)?.rev ?? 0,
          mode,
          sha1: hash,
          size: disk.size,
          mtimeMs: disk.mtimeMs,
        });
      }
      for (const path of [...this.#shadow.keys()].sort().reverse()) {
        if (seen.has(path)) continue;
        const known = this.#shadow.get(path);
        const current = readEntry(this.#db, path);
        this.#shadow.delete(path);
        // Deleted on disk; unless the store changed it meanwhile (then flush brings it back).
        if (current !== null && current.rev === known?.rev) await this.#fs.rm(path, { recursive: true, force: true });
      }
    });
  }

  #serial(body: () => Promise<void>): Promise<void> {
    const next = this.#queue.then(body);
    this.#queue = next.catch(() => {});
    return next;
  }
}

function* walk(dir: string): Generator<[string, Dirent]> {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const dirent of entries) {
    const path = join(dir, dirent.name);
    yield [path, dirent];
    if (dirent.isDirectory()) yield* walk(path);
  }
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function replaceIfNotDir(path: string): void {
  const disk = lstatOrUndefined(path);
  if (disk !== undefined && !disk.isDirectory()) rmSync(path, { force: true });
}

function sha1(bytes: Uint8Array): string {
  return createHash("sha1").update(bytes).digest("hex");
}
