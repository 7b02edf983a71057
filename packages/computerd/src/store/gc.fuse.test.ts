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
import type { ChangeEntry, ObjectFrame } from "@cloudflare/computer-rpc";
import { createWorkspaceClient, type WorkspaceClient } from "@cloudflare/computer-rpc/client";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startDaemon, stopAll, type TestDaemon } from "../../test/daemon.js";

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

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until a sweep that started after every change so far has finished; answers the stats then. */
async function swept(): Promise<Stats> {
  const target = (await stats()).vfs_rev as number;
  for (let i = 0; i < 400; i++) {
    const current = await stats();
    if ((current.gc_swept_rev as number) >= target) return current;
    await pause(50);
  }
  throw new Error(`no gc sweep reached rev ${target}`);
}

/** Waits until the store's blob bytes are `bytes` (gc's retry after a holder lets go); answers the stats. */
async function blobBytesReach(bytes: number): Promise<Stats> {
  let current = await stats();
  for (let i = 0; i < 200 && current.blob_bytes !== bytes; i++) {
    await pause(50);
    current = await stats();
  }
  return current;
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
    const frames = await readStream(
      await client.sync.fetchObjects(chunks.map((chunk) => Buffer.from(chunk.hash, "hex"))),
    );
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
      chunks: frames.map((frame, i) => ({
        hash: Buffer.from(frame.hash).toString("hex"),
        size: (pieces[i] as Buffer).length,
      })),
    };
    const result = await client.sync.push({ senderRev: 0, changes: streamOf([entry]) });
    expect(result.applied).toBe(1);
    dropPageCache();
    expect(readFileSync(path).equals(bytes)).toBe(true);
    rmSync(path);
    expect(await blobBytesReach(0)).toMatchObject({ blob_bytes: 0 });
  });
});
