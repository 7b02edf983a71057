/**
 * Bad sync input, answered by `createSyncServer`'s checks (server/sync-checks.ts):
 * EPROTOCOL with the reason, never a bare TypeError, and the store does not
 * move. One suite over a `connect` seam, so computerd's transport (`ws` in
 * Node, rpc:node) and a Durable Object's (a WebSocketPair in workerd,
 * rpc:workerd) are held to the same answers.
 */
import type { SyncRPC } from "@cloudflare/dofs/sync";
import { expect, test } from "vitest";

/** Runs `body` against the sync stub of a fresh server; closes it after. */
export type WithSync = (body: (sync: SyncRPC) => Promise<void>) => Promise<void>;

type Loose = Record<keyof SyncRPC, (...args: unknown[]) => Promise<unknown>>;

function streamOf(items: unknown[]): ReadableStream<unknown> {
  return new ReadableStream({
    start(controller) {
      for (const item of items) controller.enqueue(item);
      controller.close();
    },
  });
}

export function defineBadSyncInput(withSync: WithSync): void {
  const refuse = async (sync: SyncRPC, call: (loose: Loose) => Promise<unknown>, detail: RegExp) => {
    const before = await sync.watermarks();
    const error = await call(sync as unknown as Loose).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "EPROTOCOL" });
    expect((error as Error).message).toMatch(detail);
    expect((error as Error).name).not.toBe("TypeError");
    expect(await sync.watermarks()).toEqual(before);
  };
  const hash = new Uint8Array(32);

  test("push: request, senderRev, senderCursor, changes and each streamed entry", () =>
    withSync(async (sync) => {
      await refuse(sync, (s) => s.push("x"), /request must be an object/);
      await refuse(sync, (s) => s.push({ changes: streamOf([]) }), /senderRev must be an integer >= 0/);
      await refuse(sync, (s) => s.push({ senderRev: -1, changes: streamOf([]) }), /senderRev/);
      await refuse(sync, (s) => s.push({ senderRev: "1", changes: streamOf([]) }), /senderRev/);
      await refuse(
        sync,
        (s) => s.push({ senderRev: 0, senderCursor: { rev: "a" }, changes: streamOf([]) }),
        /senderCursor/,
      );
      await refuse(sync, (s) => s.push({ senderRev: 0 }), /changes must be a ReadableStream/);
      const file = { kind: "file", rev: 1, path: "/bad-input/ok", mode: 0o644, mtime: 1, size: 0, chunks: [] };
      await refuse(
        sync,
        (s) => s.push({ senderRev: 0, changes: streamOf([file, { kind: "file", rev: 1, path: "/bad-input/x" }]) }),
        /bad mode or mtime/,
      );
      await refuse(sync, (s) => s.push({ senderRev: 0, changes: streamOf([42]) }), /change entry must be an object/);
      await refuse(
        sync,
        (s) => s.push({ senderRev: 0, changes: streamOf([{ ...file, kind: "fifo" }]) }),
        /unknown change entry kind/,
      );
      // A chunk hash is 32 bytes on the wire; the hex text of the old wire is refused.
      const chunked = (hash: unknown) => ({ ...file, size: 3, chunks: [{ hash, size: 3 }] });
      await refuse(sync, (s) => s.push({ senderRev: 0, changes: streamOf([chunked("ab".repeat(32))]) }), /bad chunk/);
      await refuse(
        sync,
        (s) => s.push({ senderRev: 0, changes: streamOf([chunked(new Uint8Array(31))]) }),
        /bad chunk/,
      );
      expect(await sync.readEntry("/bad-input/ok")).toBeNull();
    }));

  test("push: modes past 16 bits, and type bits that contradict the entry's kind", () =>
    withSync(async (sync) => {
      const file = { kind: "file", rev: 1, path: "/bad-mode/f", mode: 0o644, mtime: 1, size: 0, chunks: [] };
      const dir = { kind: "dir", rev: 1, path: "/bad-mode/d", mode: 0o755, mtime: 1 };
      const push = (entry: unknown) => (s: Loose) => s.push({ senderRev: 0, changes: streamOf([entry]) });
      for (const mode of [2 ** 40, 2 ** 16, 0o200000]) {
        await refuse(sync, push({ ...file, mode }), /mode/);
      }
      await refuse(sync, push({ ...file, mode: 0o040644 }), /mode/);
      await refuse(sync, push({ ...dir, mode: 0o100755 }), /mode/);
      await refuse(sync, push({ ...dir, kind: "symlink", target: "x", mode: 0o040777 }), /mode/);
      expect(await sync.readEntry("/bad-mode/f")).toBeNull();
      expect(await sync.readEntry("/bad-mode/d")).toBeNull();
    }));

  test("pushObjects: the stream and each frame", () =>
    withSync(async (sync) => {
      await refuse(sync, (s) => s.pushObjects("x"), /objects must be a ReadableStream/);
      await refuse(sync, (s) => s.pushObjects(streamOf([null])), /each frame needs hash/);
      await refuse(sync, (s) => s.pushObjects(streamOf([{ hash: "ab", bytes: new Uint8Array(1) }])), /hash/);
      await refuse(sync, (s) => s.pushObjects(streamOf([{ hash, bytes: "abc" }])), /each frame needs bytes/);
      expect(await sync.hasObjects([hash])).toEqual([]);
    }));

  test("fetchChanges and watermarks: request shapes, cursors, ignore, settle", () =>
    withSync(async (sync) => {
      await refuse(sync, (s) => s.fetchChanges("x"), /request must be an object/);
      await refuse(sync, (s) => s.fetchChanges({ after: 5 }), /after/);
      await refuse(sync, (s) => s.fetchChanges({ after: { rev: -1, path: null } }), /after/);
      await refuse(sync, (s) => s.fetchChanges({ through: { rev: 1, path: 7 } }), /through/);
      await refuse(sync, (s) => s.fetchChanges({ ignore: "node_modules" }), /ignore must be a list/);
      await refuse(sync, (s) => s.fetchChanges({ ignore: [1] }), /ignore must be a list/);
      await refuse(sync, (s) => s.watermarks("x"), /options must be an object/);
      await refuse(sync, (s) => s.watermarks({ settle: "yes" }), /settle must be a boolean/);
      // Well-formed calls still work.
      const { stream } = await sync.fetchChanges({ ignore: ["node_modules"] });
      await stream.cancel();
    }));

  test("readEntry, hasObjects, fetchObjects: paths and hash lists", () =>
    withSync(async (sync) => {
      await refuse(sync, (s) => s.readEntry(5), /path must be a string/);
      await refuse(sync, (s) => s.readEntry(undefined), /path must be a string/);
      await expect(sync.readEntry("relative")).rejects.toMatchObject({ code: "EINVAL" });
      await refuse(sync, (s) => s.hasObjects("x"), /hashes must be a list/);
      await refuse(sync, (s) => s.hasObjects([new Uint8Array(31)]), /32-byte/);
      await refuse(sync, (s) => s.hasObjects(["ab".repeat(32)]), /32-byte/);
      await refuse(sync, (s) => s.hasObjects(Array.from({ length: 101 }, () => hash)), /at most 100 hashes/);
      await refuse(sync, (s) => s.fetchObjects(undefined), /hashes must be a list/);
      await refuse(sync, (s) => s.fetchObjects([hash, 7]), /32-byte/);
      expect(await sync.hasObjects([hash])).toEqual([]);
    }));
}
