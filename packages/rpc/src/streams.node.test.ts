/**
 * Streams through capnweb over a real WebSocket, both directions, against a
 * real dofs SyncPeer: many small entries, then 64 MiB of 512 KiB blobs
 * with memory sampled while they flow. Set RPC_REPORT=1 to print throughput
 * (slowed by the GCs the memory sampling forces; session.bench.node.test.ts
 * measures it properly).
 */
import { createHash } from "node:crypto";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { type ChangeEntry, type ObjectFrame, type PushRequest, type PushResult, SyncPeer } from "@cloudflare/dofs/sync";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startTestServer, type TestServer } from "../test/harness.node.js";
import { createWorkspaceClient, type WorkspaceClient } from "./client/index.node.js";
import { createWorkspaceServerFor } from "./server/index.js";

const ENTRIES = 10_000;
const OBJECT_SIZE = 512 * 1024;
const OBJECTS = 128; // 64 MiB
/** For what is live (arrayBuffers plus heap, after a full GC) while 64 MiB flow. */
const MEMORY_BOUND = 48 * 1024 * 1024;
/**
 * A slow reader, on purpose: a fixed stall is the point (nothing to wait for),
 * long enough that a sender ignoring backpressure would pile blobs up past MEMORY_BOUND.
 */
const readerStall = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 100));

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

/** A real SyncPeer that also records the entries push read, in arrival order. */
class RecordingPeer extends SyncPeer {
  received: ChangeEntry[] = [];
  override push(request: PushRequest): Promise<PushResult> {
    this.received = [];
    const received = this.received;
    const changes = request.changes.pipeThrough(
      new TransformStream<ChangeEntry, ChangeEntry>({
        transform(entry, controller) {
          received.push(entry);
          controller.enqueue(entry);
        },
      }),
    );
    return super.push({ ...request, changes });
  }
}

function dirEntries(count: number): ChangeEntry[] {
  return Array.from({ length: count }, (_, i) => ({
    kind: "dir" as const,
    rev: 1,
    path: `/workspace/d${String(i).padStart(5, "0")}`,
    mode: 0o755,
    mtime: 1_700_000_000_000 + i,
  }));
}

function streamOf<T>(items: T[]): ReadableStream<T> {
  let next = 0;
  return new ReadableStream<T>({
    pull(controller) {
      const item = items[next++];
      if (item === undefined) controller.close();
      else controller.enqueue(item);
    },
  });
}

/** Blob `i`: 512 KiB of a pattern unique to `i`, made when pulled so the sender holds one at a time. */
function makeObject(i: number): ObjectFrame {
  const bytes = new Uint8Array(OBJECT_SIZE);
  const words = new Uint32Array(bytes.buffer);
  for (let w = 0; w < words.length; w++) words[w] = (w * 2654435761 + i * 40503) >>> 0;
  return { hash: sha256(bytes), bytes };
}

function sha256(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(createHash("sha256").update(bytes).digest());
}

interface MemoryPeaks {
  /** Largest growth of `arrayBuffers` and of the heap seen every 5 ms, garbage included. */
  arrayBuffers: number;
  heapUsed: number;
  /**
   * Largest growth of `arrayBuffers + heapUsed` right after a full GC, every
   * 100 ms. The bound is checked on this: bytes travel as ArrayBuffers, which
   * V8 collects only once external memory has grown by tens of MiB, so raw
   * samples measure garbage and GC timing rather than what is held.
   */
  live: number;
}

function sampleMemory(): { stop(): MemoryPeaks } {
  collectGarbage();
  const start = process.memoryUsage();
  const peaks: MemoryPeaks = { arrayBuffers: 0, heapUsed: 0, live: 0 };
  const sample = () => {
    const now = process.memoryUsage();
    peaks.arrayBuffers = Math.max(peaks.arrayBuffers, now.arrayBuffers - start.arrayBuffers);
    peaks.heapUsed = Math.max(peaks.heapUsed, now.heapUsed - start.heapUsed);
  };
  const sampleLive = () => {
    collectGarbage();
    const now = process.memoryUsage();
    const growth = now.arrayBuffers + now.heapUsed - (start.arrayBuffers + start.heapUsed);
    peaks.live = Math.max(peaks.live, growth);
  };
  const timers = [setInterval(sample, 5), setInterval(sampleLive, 100)];
  return {
    stop() {
      for (const timer of timers) clearInterval(timer);
      sample();
      sampleLive();
      return peaks;
    },
  };
}

function report(what: string, bytes: number, ms: number, memory: MemoryPeaks): void {
  if (!process.env.RPC_REPORT) return;
  const mib = (n: number) => (n / 1024 / 1024).toFixed(1);
  console.info(
    `${what}: ${mib(bytes)} MiB in ${ms.toFixed(0)} ms = ${((bytes / 1024 / 1024) * (1000 / ms)).toFixed(1)} MiB/s; ` +
      `peak growth live ${mib(memory.live)} MiB; ` +
      `arrayBuffers ${mib(memory.arrayBuffers)} MiB, heap ${mib(memory.heapUsed)} MiB`,
  );
}

describe("streams over capnweb", () => {
  let peer: RecordingPeer;
  let server: TestServer;
  let client: WorkspaceClient;

  beforeAll(async () => {
    peer = new RecordingPeer(openNodeDatabase());
    server = await startTestServer(() => createWorkspaceServerFor(peer, undefined));
    client = await createWorkspaceClient({ url: server.url });
  });

  afterAll(async () => {
    await client.close();
    await server.close();
  });

  test(`${ENTRIES} change entries arrive complete and in order, client → server and back`, async () => {
    const sent = dirEntries(ENTRIES);
    const result = await client.sync.push({ senderRev: 0, changes: streamOf(sent) });
    expect(result.applied).toBe(ENTRIES);
    expect(peer.received).toEqual(sent);

    const fetched = await client.sync.fetchChanges({});
    const entries: ChangeEntry[] = [];
    for await (const entry of fetched.stream) entries.push(entry);
    const paths = entries.map((entry) => entry.path).filter((path) => path.startsWith("/workspace/d"));
    expect(paths).toEqual(sent.map((entry) => entry.path));
    expect(entries.at(-1)).toMatchObject({ kind: "dir", path: "/workspace/d09999", mode: 0o755 });
  }, 60_000);

  test("64 MiB of 512 KiB blobs go client → server with bounded memory", async () => {
    let next = 0;
    const frames = new ReadableStream<ObjectFrame>(
      {
        pull(controller) {
          if (next < OBJECTS) controller.enqueue(makeObject(next++));
          else controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    const memory = sampleMemory();
    const started = performance.now();
    await client.sync.pushObjects(frames);
    const ms = performance.now() - started;
    const peak = memory.stop();
    report("pushObjects", OBJECTS * OBJECT_SIZE, ms, peak);
    expect(peak.live).toBeLessThan(MEMORY_BOUND);
    const held = await client.sync.hasObjects([makeObject(0).hash, makeObject(OBJECTS - 1).hash]);
    expect(held).toHaveLength(2);
  }, 120_000);

  test("64 MiB of 512 KiB blobs go server → client with bounded memory, to a reader that pauses", async () => {
    const hashes = Array.from({ length: OBJECTS }, (_, i) => makeObject(i).hash);
    const memory = sampleMemory();
    const started = performance.now();
    const stream = await client.sync.fetchObjects(hashes);
    let count = 0;
    for await (const frame of stream) {
      expect(frame.bytes.byteLength).toBe(OBJECT_SIZE);
      expect(sha256(frame.bytes)).toEqual(hashes[count]);
      // Every 32 blobs the reader stalls: the sender must wait, not buffer.
      if (++count % 32 === 0) await readerStall();
    }
    const ms = performance.now() - started;
    const peak = memory.stop();
    report("fetchObjects", OBJECTS * OBJECT_SIZE, ms, peak);
    expect(count).toBe(OBJECTS);
    expect(peak.live).toBeLessThan(MEMORY_BOUND);
  }, 120_000);
});
