/**
 * The driving side of a sync (the Durable Object's role) as a closed set of
 * JSON operations, so the same code runs on a Durable Object's SQLite
 * (`sync-object.worker.ts`, reached through Miniflare) and on better-sqlite3
 * (`../bench/sync-driver.node.ts`, a child process). The side dials the peer
 * with the runtime's `createSyncClient` and runs the rpc driver's steps.
 */
import type { Database, NodeType, WorkspaceFilesystem } from "@cloudflare/dofs";
import type { SyncClient } from "../src/client/index.js";
import { pullOnce, pushOnce, reconcileWatermarks, tick } from "../src/driver/index.js";
import { generatedStream } from "./generated.js";

export type SyncStep = "reconcile" | "push" | "pull" | "tick";

export type SideOp =
  | { op: "mkdir"; path: string }
  | { op: "write"; path: string; text: string }
  /** `bytes` of generated content (see generated.ts), streamed; the bytes at offsets `flips` are inverted. */
  | { op: "writeGenerated"; path: string; bytes: number; seed?: number; flips?: number[] }
  /** `count` files of 1 KiB under `root/d<i % dirs>/`. */
  | { op: "writeSmall"; root: string; count: number; dirs: number }
  | { op: "rename"; from: string; to: string }
  | { op: "rm"; path: string; recursive?: boolean }
  | { op: "tree"; root: string }
  | { op: "summary"; root: string }
  | { op: "connect"; url: string }
  | { op: "sync"; step: SyncStep }
  | { op: "disconnect" };

/** What `sync-object.worker.ts` answers for one operation. */
export interface OpReply {
  result?: unknown;
  error?: { message: string; code?: string };
  /** Differs between two incarnations of the object, so a test can prove a restart happened. */
  incarnation: string;
}

export interface StepResult {
  step: SyncStep;
  /** Entries sent (push), applied (pull), or both halves of a tick. */
  pushed?: number;
  pulled?: number;
  skipped?: number;
  pullReset?: boolean;
  pushReset?: boolean;
}

export interface Summary {
  files: number;
  dirs: number;
  bytes: number;
}

export interface SideState {
  db: Database;
  fs: WorkspaceFilesystem;
  client?: SyncClient;
}

export type Connect = (url: string) => Promise<SyncClient>;

/** Runs one operation; results are plain JSON. Throws the filesystem's errors as they are. */
export async function runSideOp(state: SideState, request: SideOp, connect: Connect): Promise<unknown> {
  const { fs } = state;
  switch (request.op) {
    case "mkdir":
      return fs.mkdir(request.path, { recursive: true });
    case "write":
      await fs.mkdir(parentOf(request.path), { recursive: true });
      return fs.writeFile(request.path, request.text);
    case "writeGenerated":
      await fs.mkdir(parentOf(request.path), { recursive: true });
      return fs.writeFile(request.path, generatedStream(request.bytes, request.seed, request.flips));
    case "writeSmall":
      return writeSmall(fs, request.root, request.count, request.dirs);
    case "rename":
      return fs.rename(request.from, request.to);
    case "rm":
      return fs.rm(request.path, { recursive: request.recursive ?? false, force: false });
    case "tree":
      return snapshotTree(fs, request.root);
    case "summary":
      return summarize(fs, request.root);
    case "connect":
      await state.client?.close();
      state.client = await connect(request.url);
      return null;
    case "disconnect":
      await state.client?.close();
      state.client = undefined;
      return null;
    case "sync":
      return runStep(state, request.step);
  }
}

async function runStep(state: SideState, step: SyncStep): Promise<StepResult> {
  if (!state.client) throw new Error("sync before connect");
  const local = { db: state.db };
  const remote = state.client.sync;
  switch (step) {
    case "reconcile":
      return { step, ...(await reconcileWatermarks(local, remote)) };
    case "push":
      return { step, pushed: await pushOnce(local, remote) };
    case "pull": {
      const { applied, skipped } = await pullOnce(local, remote);
      return { step, pulled: applied, skipped: skipped.length };
    }
    case "tick": {
      const { pulled, pushed } = await tick(local, remote);
      return { step, pulled: pulled.applied, skipped: pulled.skipped.length, pushed };
    }
  }
}

const parentOf = (path: string): string => path.slice(0, path.lastIndexOf("/")) || "/";

/** 1 KiB each, every file different (its index stamped in the first 4 bytes). */
export async function writeSmall(fs: WorkspaceFilesystem, root: string, count: number, dirs: number): Promise<void> {
  for (let d = 0; d < dirs; d++) await fs.mkdir(`${root}/d${d}`, { recursive: true });
  const base = new Uint8Array(1024).fill(0x61);
  for (let i = 0; i < count; i++) {
    const bytes = base.slice();
    new DataView(bytes.buffer).setUint32(0, i);
    await fs.writeFile(`${root}/d${i % dirs}/f${i}.bin`, bytes);
  }
}

/** Every path below `root` with what peers must agree on: type, mode, size and SHA-256 of the content. */
export async function snapshotTree(fs: WorkspaceFilesystem, root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  // Links are listed as "symlink", which find's public type (the original's "file" | "dir") leaves out.
  for (const { path, type } of (await fs.find(root)) as { path: string; type: NodeType }[]) {
    const stat = await fs.lstat(path);
    if (type === "file") {
      const hash = await sha256Stream((await fs.readFile(path)) as ReadableStream<Uint8Array>);
      out[path] = `file ${stat.mode.toString(8)} ${stat.size} ${hash}`;
    } else if (type === "symlink") {
      out[path] = `symlink -> ${await fs.readlink(path)}`;
    } else {
      out[path] = `dir ${stat.mode.toString(8)}`;
    }
  }
  return out;
}

async function summarize(fs: WorkspaceFilesystem, root: string): Promise<Summary> {
  const summary: Summary = { files: 0, dirs: 0, bytes: 0 };
  for (const { path, type } of await fs.find(root)) {
    if (type === "dir") summary.dirs++;
    if (type !== "file") continue;
    summary.files++;
    summary.bytes += (await fs.lstat(path)).size;
  }
  return summary;
}

/** Hex SHA-256 of a whole stream. WebCrypto has no incremental digest, so the bytes are gathered (test sizes only). */
export async function sha256Stream(stream: ReadableStream<Uint8Array>): Promise<string> {
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}
