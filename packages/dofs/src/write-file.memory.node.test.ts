/**
 * Streaming is truly streaming: a 256 MiB file goes in through a
 * ReadableStream and comes back out through one while the memory this
 * process holds grows by a few 512 KiB chunks at most, never by the file.
 * A memory bound, not a timing assertion. Node only: it reads
 * `process.memoryUsage()` and writes a real database file in a tmp dir.
 */
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { expect, it } from "vitest";
import { patternBytes } from "../test/util.js";
import { CHUNK_SIZE } from "./constants.js";
import { openNodeDatabase } from "./database.node.js";
import { WorkspaceFilesystem } from "./filesystem.js";

const MiB = 1 << 20;
const TOTAL = 256 * MiB;
const PIECE = 64 * 1024;
/** A few chunks in flight (window, staged copy, driver buffers) plus garbage not yet collected. */
const BOUND = 48 * MiB;
/**
 * Dropped pieces are freed only when V8 next collects, and how much garbage
 * it lets pile up first is its own heuristic (30–50 MiB measured here, close
 * to BOUND). Collecting every 4 MiB of data keeps that part small, so the
 * samples show what the write and read paths actually hold on to.
 */
const COLLECT_EVERY = 4 * MiB;

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/**
 * Peak growth of ArrayBuffer and JS heap memory over the level when it was
 * created (after a full GC, so earlier garbage cannot hide growth). `sample`
 * is called once per piece with the bytes seen so far.
 */
function memoryPeak(): { sample(bytesSoFar: number): void; growth(): { arrayBuffers: number; heapUsed: number } } {
  gc();
  const before = process.memoryUsage();
  const peak = { arrayBuffers: before.arrayBuffers, heapUsed: before.heapUsed };
  let collectedAt = 0;
  return {
    sample(bytesSoFar) {
      if (bytesSoFar - collectedAt >= COLLECT_EVERY) {
        gc();
        collectedAt = bytesSoFar;
      }
      const now = process.memoryUsage();
      peak.arrayBuffers = Math.max(peak.arrayBuffers, now.arrayBuffers);
      peak.heapUsed = Math.max(peak.heapUsed, now.heapUsed);
    },
    growth: () => ({
      arrayBuffers: peak.arrayBuffers - before.arrayBuffers,
      heapUsed: peak.heapUsed - before.heapUsed,
    }),
  };
}

it("streams 256 MiB in and back out with memory bounded by a few chunks", { timeout: 120_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), "dofs-memory-"));
  const db = openNodeDatabase(join(dir, "fs.sqlite"));
  try {
    const fs = new WorkspaceFilesystem(db);

    // One reused source buffer, copied per piece and stamped with the piece
    // number so no two chunks are equal (dedup would store just one).
    const base = patternBytes(PIECE, 11);
    const written = createHash("sha256");
    const writing = memoryPeak();
    let sent = 0;
    const source = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          writing.sample(sent);
          if (sent === TOTAL) {
            controller.close();
            return;
          }
          const piece = base.slice();
          new DataView(piece.buffer).setUint32(0, sent / PIECE);
          written.update(piece);
          sent += PIECE;
          controller.enqueue(piece);
        },
      },
      { highWaterMark: 0 },
    );
    await fs.writeFile("/big.bin", source);
    writing.sample(sent);

    expect(sent).toBe(TOTAL);
    expect((await fs.stat("/big.bin")).size).toBe(TOTAL);
    expect(db.one("SELECT count(*) AS n FROM vfs_chunks")).toEqual({ n: TOTAL / CHUNK_SIZE });
    const wrote = writing.growth();
    expect(wrote.arrayBuffers, "arrayBuffers growth while writing").toBeLessThan(BOUND);
    expect(wrote.heapUsed, "heapUsed growth while writing").toBeLessThan(BOUND);

    const reading = memoryPeak();
    const read = createHash("sha256");
    let received = 0;
    let largestPiece = 0;
    for await (const piece of (await fs.readFile("/big.bin")) as unknown as AsyncIterable<Uint8Array>) {
      read.update(piece);
      received += piece.byteLength;
      reading.sample(received);
      largestPiece = Math.max(largestPiece, piece.byteLength);
    }
    reading.sample(received);

    expect(received).toBe(TOTAL);
    expect(largestPiece).toBe(CHUNK_SIZE);
    expect(read.digest("hex")).toBe(written.digest("hex"));
    const readGrowth = reading.growth();
    expect(readGrowth.arrayBuffers, "arrayBuffers growth while reading").toBeLessThan(BOUND);
    expect(readGrowth.heapUsed, "heapUsed growth while reading").toBeLessThan(BOUND);
  } finally {
    db.close();
    await rm(dir, { recursive: true, force: true });
  }
});
