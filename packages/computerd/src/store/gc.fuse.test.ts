/**
 * Chunk gc on a real computerd with a real FUSE mount: the store's blob
 * bytes follow the live data through a rewrite loop and fall to zero after
 * everything is deleted, and gc running meanwhile loses nothing an open
 * handle on an unlinked file, a pull the Durable Object has not finished or
 * a push it has not applied yet still needs. Every wait is for an outcome
 * (a sweep that started after the change, a byte count); nothing is timed.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { get } from "node:http";
import { join } from "node:path";
import { createWorkspaceClient, type WorkspaceClient } from "@cloudflare/computer-rpc/client";
import type { ChangeEntry, ObjectFrame } from "@cloudflare/dofs/sync";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startDaemon, stopAll, type TestDaemon } from "../../test/daemon.js";
import { waitFor } from "../../test/wait.js";

const MiB = 1024 * 1024;
const CHUNK = 524_288;
let daemon: TestDaemon;
let client: WorkspaceClient;

beforeAll(async () => {
  daemon = await startDaemon({ FUSE_MOUNT: "fuse" });
  client = await createWorkspaceClient({ url: `${daemon.url}/api` });
});

afterAll(async () => {
  await client?.close();
  await stopAll();
});

type Stats = Record<string, number>;

/** A fresh connection per call: a kept-alive one may be closed by the server between polls. */
function stats(): Promise<Stats> {
  return new Promise((resolve, reject) => {
    get({ host: "127.0.0.1", port: daemon.port, path: "/__computerd/stats", agent: false }, (response) => {
      let body = "";
      response.on("data", (data) => (body += data));
      response.on("end", () => resolve(JSON.parse(body) as Stats));
    }).on("error", reject);
  });
}

/** Polls `read` until `holds` says yes; answers the stats that held, or throws naming `what` past the deadline. */
async function statsWhen(
  read: () => Promise<Stats>,
  holds: (current: Stats) => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<Stats> {
  let current = await read();
  const check = async (): Promise<boolean> => {
    current = await read();
    return holds(current);
  };
  await waitFor(check, what, { timeoutMs, intervalMs: 50 });
  return current;
}

/** Waits until a sweep that started after every change so far has finished; answers the stats then. */
async function swept(): Promise<Stats> {
  const target = (await stats()).vfs_rev as number;
  return statsWhen(stats, (current) => (current.gc_swept_rev as number) >= target, `a gc sweep to reach rev ${target}`);
}

/** Waits until an idle reclaim that started after every change so far has finished; answers the stats then. */
async function reclaimed(): Promise<Stats> {
  const target = (await stats()).vfs_rev as number;
  // A reclaim commits parked files (a new rev): the one after it, with nothing left to commit, is the last.
  const done = (current: Stats): boolean =>
    (current.reclaim_rev as number) >= (current.vfs_rev as number) && (current.reclaim_rev as number) >= target;
  return statsWhen(stats, done, `an idle reclaim to reach rev ${target}`, 30_000);
}

/** Writes `count` files of 1 to 59 KiB (closed without fsync, so they park); answers the bytes written. */
function writeTree(root: string, count: number): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    const dir = join(root, `pkg${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(dir, { recursive: true });
    const bytes = randomBytes((1 + (i % 59)) * 1024);
    const path = join(dir, `f${i}.js`);
    writeFileSync(path, bytes);
    files.set(path, bytes);
  }
  return files;
}

/** Waits until the store's blob bytes are `bytes` (gc's retry after a holder lets go); answers the stats. */
async function blobBytesReach(bytes: number): Promise<Stats> {
  return statsWhen(stats, (current) => current.blob_bytes === bytes, `blob bytes to reach ${bytes}`, 10_000);
}

function rewrite(path: string, bytes: Buffer): void {
  const fd = openSync(path, constants.O_CREAT | constants.O_WRONLY | constants.O_TRUNC, 0o644);
  try {
    writeSync(fd, bytes, 0, bytes.length, 0);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Drops the kernel's clean pages, so the next read of the mount asks computerd. */
function dropPageCache(): void {
  writeFileSync("/proc/sys/vm/drop_caches", "1");
}

function readAll(fd: number, size: number): Buffer {
  const out = Buffer.alloc(size);
  let at = 0;
  while (at < size) {
    const n = readSync(fd, out, at, size - at, at);
    if (n === 0) break;
    at += n;
  }
  return out.subarray(0, at);
}

async function readStream<T>(stream: ReadableStream<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of stream as unknown as AsyncIterable<T>) items.push(item);
  return items;
}

function streamOf<T>(items: readonly T[]): ReadableStream<T> {
  let next = 0;
  return new ReadableStream<T>({
    pull(controller) {
      const item = items[next++];
      if (item === undefined) controller.close();
      else controller.enqueue(item);
    },
  });
}

const sha256 = (bytes: Uint8Array): Buffer => createHash("sha256").update(bytes).digest();

describe("chunk gc on a FUSE mount", () => {
  test("a 30 x 4 MiB rewrite loop with fsync keeps the store within 2x the live data, and deleting empties it", async () => {
    const path = join(daemon.mountPoint, "rewritten");
    const size = 4 * MiB;
    let last = Buffer.alloc(0);
    let most = 0;
    for (let round = 0; round < 30; round++) {
      last = randomBytes(size);
      rewrite(path, last);
      const after = await swept();
      most = Math.max(most, after.blob_bytes as number);
      expect(after.blob_bytes, `round ${round}`).toBeLessThanOrEqual(2 * size);
    }
    expect(most).toBeGreaterThanOrEqual(size);
    dropPageCache();
    expect(readFileSync(path).equals(last)).toBe(true);
    rmSync(path);
    const empty = await swept();
    expect(empty).toMatchObject({ blob_bytes: 0, orphan_bytes: 0, vfs_blobs: 0 });
    expect(empty.gc_bytes_freed).toBeGreaterThanOrEqual(29 * size);
  }, 120_000);

  test("a file unlinked while open keeps its chunks through gc until its last handle closes", async () => {
    const path = join(daemon.mountPoint, "unlinked");
    const bytes = randomBytes(3 * MiB + 1234);
    rewrite(path, bytes);
    const fd = openSync(path, "r");
    try {
      unlinkSync(path);
      // Another change, so a sweep runs with the unlinked file's chunks unreferenced.
      rewrite(join(daemon.mountPoint, "other"), randomBytes(1000));
      rmSync(join(daemon.mountPoint, "other"));
      const during = await swept();
      expect(during.orphan_bytes).toBe(bytes.length);
      expect(during.blob_bytes).toBe(bytes.length);
      dropPageCache();
      expect(readAll(fd, bytes.length + 10).equals(bytes)).toBe(true);
    } finally {
      closeSync(fd);
    }
    expect(await blobBytesReach(0)).toMatchObject({ blob_bytes: 0, vfs_blobs: 0 });
  });

  test("a pull the Durable Object has not acknowledged keeps the chunks it listed, even after a local rewrite", async () => {
    const path = join(daemon.mountPoint, "pulled");
    const first = randomBytes(2 * MiB + 77);
    rewrite(path, first);
    const pull = await client.sync.fetchChanges({});
    const entries = await readStream(pull.stream);
    const entry = entries.find((each) => each.path === path);
    expect(entry?.kind).toBe("file");
    const chunks = entry?.kind === "file" ? entry.chunks : [];
    expect(chunks.length).toBe(5);
    // The command goes on writing before the Durable Object fetches the objects.
    const second = randomBytes(2 * MiB + 77);
    rewrite(path, second);
    const during = await swept();
    expect(during.blob_bytes).toBe(first.length + second.length);
    const frames = await readStream(await client.sync.fetchObjects(chunks.map((chunk) => chunk.hash)));
    expect(Buffer.concat(frames.map((frame) => frame.bytes)).equals(first)).toBe(true);
    for (const frame of frames) expect(sha256(frame.bytes).equals(Buffer.from(frame.hash))).toBe(true);
    // The next pull starts past that entry: acknowledged, so the old chunks may go.
    const next = await client.sync.fetchChanges({ after: pull.currentCursor });
    await next.stream.cancel();
    expect(await blobBytesReach(second.length)).toMatchObject({ blob_bytes: second.length, orphan_bytes: 0 });
    // That pull streamed the rewrite's entry too: its chunks go once a later pull starts past it.
    rmSync(path);
    const last = await client.sync.fetchChanges({ after: next.currentCursor });
    expect((await readStream(last.stream)).map((each) => each.kind)).toEqual(["delete"]);
    expect(await blobBytesReach(0)).toMatchObject({ blob_bytes: 0 });
  });

  test("objects pushed before their push survive gc and the push applies them", async () => {
    const bytes = randomBytes(CHUNK * 2 + 4321);
    const pieces = [0, 1, 2].map((i) => bytes.subarray(i * CHUNK, Math.min(bytes.length, (i + 1) * CHUNK)));
    const frames: ObjectFrame[] = pieces.map((piece) => ({ hash: sha256(piece), bytes: new Uint8Array(piece) }));
    await client.sync.pushObjects(streamOf(frames));
    rewrite(join(daemon.mountPoint, "bump"), randomBytes(100));
    rmSync(join(daemon.mountPoint, "bump"));
    const during = await swept();
    expect(during).toMatchObject({ blob_bytes: bytes.length, orphan_bytes: bytes.length });
    const path = join(daemon.mountPoint, "pushed");
    const entry: ChangeEntry = {
      kind: "file",
      rev: 1,
      path,
      mode: 0o644,
      mtime: Date.now(),
      size: bytes.length,
      chunks: frames.map((frame, i) => ({ hash: frame.hash, size: (pieces[i] as Buffer).length })),
    };
    const result = await client.sync.push({ senderRev: 0, changes: streamOf([entry]) });
    expect(result.applied).toBe(1);
    dropPageCache();
    expect(readFileSync(path).equals(bytes)).toBe(true);
    rmSync(path);
    expect(await blobBytesReach(0)).toMatchObject({ blob_bytes: 0 });
  });

  test("an idle daemon gives memory back: parked files commit, pools empty, dead buffers are collected and trimmed", async () => {
    const before = await reclaimed();
    expect(before).toMatchObject({ reclaim_gc: 1, reclaim_malloc_trim: 1 });
    const baseline = before.rss as number;
    const root = join(daemon.mountPoint, "tree");
    const files = writeTree(root, 2_000);
    const treeBytes = [...files.values()].reduce((sum, bytes) => sum + bytes.length, 0);
    // A large rewrite fills the buffer pool; an open file with dirty bytes stays open through the reclaim.
    rewrite(join(daemon.mountPoint, "big"), randomBytes(16 * MiB));
    const openPath = join(daemon.mountPoint, "open");
    const fd = openSync(openPath, "w+");
    const head = randomBytes(MiB + 17);
    writeSync(fd, head, 0, head.length, 0);
    const busy = await stats();
    expect(busy.mount_parked_bytes).toBeGreaterThanOrEqual(treeBytes);
    expect(busy.mount_idle_buffers).toBeGreaterThan(0);
    expect(busy.rss as number).toBeGreaterThan(baseline + 32 * MiB);

    const idle = await reclaimed();
    // Everything that was parked is in the store now, nothing is held in buffers, and every byte reads back.
    expect(idle).toMatchObject({ mount_parked_bytes: 0, mount_parked_files: 0, mount_idle_buffers: 0 });
    expect(idle.mount_dirty_buffers).toBe(0);
    expect(idle.blob_bytes).toBeGreaterThanOrEqual(treeBytes + 16 * MiB + head.length);
    const tail = randomBytes(1000);
    writeSync(fd, tail, 0, tail.length, head.length);
    closeSync(fd);
    dropPageCache();
    expect(readFileSync(openPath).equals(Buffer.concat([head, tail]))).toBe(true);
    for (const [path, bytes] of [...files].filter((_, i) => i % 97 === 0)) {
      expect(readFileSync(path).equals(bytes), path).toBe(true);
    }

    rmSync(root, { recursive: true });
    rmSync(join(daemon.mountPoint, "big"));
    rmSync(openPath);
    await swept();
    const empty = await reclaimed();
    expect(empty).toMatchObject({ blob_bytes: 0, mount_open_files: 0, mount_parked_bytes: 0, mount_idle_buffers: 0 });
    // Dead chunk buffers are gone, not waiting for a collection that an idle process never triggers
    // (over the baseline: the FUSE-over-io_uring ring holds one request buffer per entry for the mount's life).
    expect(empty.array_buffers as number).toBeLessThan((before.array_buffers as number) + 4 * MiB);
    // Generous: the tree and buffers added well over 60 MB; an idle daemon keeps a fraction of it.
    expect(empty.rss as number, `baseline ${baseline}`).toBeLessThan(baseline + 24 * MiB);
  }, 120_000);
});

/**
 * The kernel driver (COMPUTERD_FUSE_DRIVER=kernel) reports what its handles
 * hold as fuse-napi does: without it gc would fall back to the one-hour
 * window and an overwritten file's old chunks would stay.
 */
describe("chunk gc with the kernel driver", () => {
  let kernel: TestDaemon;
  const kernelStats = (): Promise<Stats> =>
    new Promise((resolve, reject) => {
      get({ host: "127.0.0.1", port: kernel.port, path: "/__computerd/stats", agent: false }, (response) => {
        let body = "";
        response.on("data", (data) => (body += data));
        response.on("end", () => resolve(JSON.parse(body) as Stats));
      }).on("error", reject);
    });
  async function kernelSwept(): Promise<Stats> {
    const target = (await kernelStats()).vfs_rev as number;
    return statsWhen(
      kernelStats,
      (current) => (current.gc_swept_rev as number) >= target,
      `a sweep to reach rev ${target}`,
    );
  }

  beforeAll(async () => {
    kernel = await startDaemon({ FUSE_MOUNT: "fuse", COMPUTERD_FUSE_DRIVER: "kernel" });
  });

  test("overwritten chunks go at once, and a file unlinked while open keeps its chunks until its last close", async () => {
    const path = join(kernel.mountPoint, "rewritten");
    for (let round = 0; round < 3; round++) rewrite(path, randomBytes(2 * MiB));
    const rewritten = await kernelSwept();
    expect(rewritten).toMatchObject({ blob_bytes: 2 * MiB, orphan_bytes: 0 });
    rmSync(path);

    const unlinked = join(kernel.mountPoint, "unlinked");
    const bytes = randomBytes(3 * MiB + 1234);
    rewrite(unlinked, bytes);
    const fd = openSync(unlinked, "r");
    try {
      unlinkSync(unlinked);
      rewrite(join(kernel.mountPoint, "other"), randomBytes(1000));
      rmSync(join(kernel.mountPoint, "other"));
      const during = await kernelSwept();
      expect(during).toMatchObject({ orphan_bytes: bytes.length, blob_bytes: bytes.length });
      dropPageCache();
      expect(readAll(fd, bytes.length + 10).equals(bytes)).toBe(true);
    } finally {
      closeSync(fd);
    }
    const after = await statsWhen(kernelStats, (current) => current.blob_bytes === 0, "blob bytes to reach 0", 10_000);
    expect(after).toMatchObject({ blob_bytes: 0, vfs_blobs: 0 });
  }, 60_000);
});
