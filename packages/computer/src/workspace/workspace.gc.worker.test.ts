/**
 * Chunk gc on the Durable Object: after a sync step, blobs orphaned more
 * than the spec's hour ago are freed, younger ones stay, live ones always
 * stay. The clock is injected; nothing sleeps.
 */
import { describe, expect, it } from "vitest";
import { inWorkspace } from "../../test/workspace-harness.worker.js";

const MiB = 1024 * 1024;
const MINUTE = 60_000;

function bytesOf(size: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let state = seed;
  for (let i = 0; i < size; i++) {
    state = (state * 1_103_515_245 + 12_345) >>> 0;
    bytes[i] = state >>> 24;
  }
  return bytes;
}

/** Chunk bytes the Durable Object's own store holds (the fake shell backend's store lives in prefixed tables). */
function storedBytes(storage: DurableObjectStorage): number {
  return storage.sql.exec<{ b: number | null }>("SELECT sum(length(bytes)) AS b FROM vfs_blob_bytes").one().b ?? 0;
}

describe("chunk gc on the Durable Object", () => {
  it("frees what deletes and overwrites orphaned once the window has passed, after a sync", async () => {
    let clock = Date.UTC(2026, 0, 1);
    await inWorkspace(
      async ({ workspace, storage }) => {
        const kept = bytesOf(MiB + 5, 1);
        const deleted = bytesOf(2 * MiB, 2);
        const overwritten = bytesOf(MiB, 3);
        await workspace.fs.mkdir("/workspace", { recursive: true });
        await workspace.fs.writeFile("/workspace/kept", kept);
        await workspace.fs.writeFile("/workspace/deleted", deleted);
        await workspace.fs.writeFile("/workspace/overwritten", overwritten);
        await workspace.push();
        const full = kept.length + deleted.length + overwritten.length;
        expect(storedBytes(storage)).toBe(full);

        clock += 5 * MINUTE;
        await workspace.fs.rm("/workspace/deleted");
        await workspace.fs.writeFile("/workspace/overwritten", "small now");
        await workspace.push();
        // Orphaned just now: inside the window, so they stay.
        expect(storedBytes(storage)).toBe(full + "small now".length);

        clock += 59 * MINUTE;
        await workspace.pull();
        expect(storedBytes(storage)).toBe(full + "small now".length);

        clock += 2 * MINUTE;
        await workspace.pull();
        expect(storedBytes(storage)).toBe(kept.length + "small now".length);
        const read = new Uint8Array(await new Response(await workspace.fs.readFile("/workspace/kept")).arrayBuffer());
        // Element by element: toEqual on a 1 MiB array takes seconds.
        expect(read.length === kept.length && read.every((byte, i) => byte === kept[i])).toBe(true);
        expect(await workspace.fs.readFile("/workspace/overwritten", "utf8")).toBe("small now");
      },
      { now: () => clock },
    );
  }, 30_000);

  it("a command's delete pulled back is reclaimed by a later sync, such as the alarm's retry", async () => {
    let clock = Date.UTC(2026, 0, 1);
    await inWorkspace(
      async ({ workspace, storage }) => {
        await workspace.fs.mkdir("/workspace", { recursive: true });
        const big = bytesOf(3 * MiB, 4);
        await workspace.fs.writeFile("/workspace/big", big);
        const run = await workspace.runtime.exec("rm /workspace/big");
        expect((await run.result()).exitCode).toBe(0);
        await expect(workspace.fs.stat("/workspace/big")).rejects.toMatchObject({ code: "ENOENT" });
        expect(storedBytes(storage)).toBe(big.length);
        clock += 61 * MINUTE;
        expect((await workspace.retryPendingSync()).status).toBe("idle");
        expect(storedBytes(storage)).toBe(0);
      },
      { now: () => clock },
    );
  }, 30_000);
});
