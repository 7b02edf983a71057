/**
 * The sync behaviors (`docs/sync.md`) as one
 * suite over a `connect` seam: dofs runs it against an in-process SyncPeer,
 * `@cloudflare/computer-rpc` against the same peer behind a real capnweb
 * WebSocket. `local` always plays the Durable Object.
 */
import { describe, expect, it } from "vitest";
import { CHUNK_SIZE } from "../src/constants.js";
import type { Database } from "../src/database.js";
import { openNodeDatabase } from "../src/database.node.js";
import { WorkspaceFilesystem } from "../src/filesystem.js";
import { fromHex } from "../src/hex.js";
import { addDirent, insertNode } from "../src/nodes.js";
import { bumpRev, currentRev } from "../src/schema.js";
import { planChanges, readChange } from "../src/sync/coalesce.js";
import { ZERO_CURSOR } from "../src/sync/cursor.js";
import { SYNC_BATCH_ENTRIES, type SyncLocal } from "../src/sync/local.js";
import { SyncPeer, type SyncPeerOptions } from "../src/sync/peer.js";
import { pullOnce } from "../src/sync/pull.js";
import { pushOnce } from "../src/sync/push.js";
import { reconcileWatermarks, tick } from "../src/sync/reconcile.js";
import type { ChangeEntry, ChunkEntry, Cursor, ObjectFrame, SyncRPC } from "../src/sync/types.js";
import { getPullCursor, getPushCursor } from "../src/sync/watermarks.js";
import { snapshotTree } from "./peers.js";
import { patternBytes } from "./util.js";

export interface SyncLink {
  remote: SyncRPC;
  close(): Promise<void>;
}

export type Connect = (peer: SyncPeer) => Promise<SyncLink>;

interface World {
  local: SyncLocal;
  db: Database;
  fs: WorkspaceFilesystem;
  remoteDb: Database;
  remoteFs: WorkspaceFilesystem;
  peer: SyncPeer;
  remote: SyncRPC;
}

async function entriesOf(stream: ReadableStream<ChangeEntry>): Promise<ChangeEntry[]> {
  const out: ChangeEntry[] = [];
  for await (const entry of stream as unknown as AsyncIterable<ChangeEntry>) out.push(entry);
  return out;
}

function streamOf<T>(items: T[]): ReadableStream<T> {
  let i = 0;
  return new ReadableStream<T>({
    pull(c) {
      if (i < items.length) c.enqueue(items[i++] as T);
      else c.close();
    },
  });
}

/** Wraps a remote so a test can see or bend what crosses it. */
function intercept(remote: SyncRPC, overrides: Partial<SyncRPC>): SyncRPC {
  return {
    push: (r) => remote.push(r),
    fetchChanges: (r) => remote.fetchChanges(r),
    watermarks: (o) => remote.watermarks(o),
    readEntry: (p) => remote.readEntry(p),
    hasObjects: (h) => remote.hasObjects(h),
    fetchObjects: (h) => remote.fetchObjects(h),
    pushObjects: (s) => remote.pushObjects(s),
    ...overrides,
  };
}

export function defineSyncBehaviors(name: string, connect: Connect): void {
  describe(name, () => {
    const open: SyncLink[] = [];
    const world = async (options: SyncPeerOptions = {}): Promise<World> => {
      const db = openNodeDatabase();
      const remoteDb = openNodeDatabase();
      const peer = new SyncPeer(remoteDb, options);
      const link = await connect(peer);
      open.push(link);
      return {
        local: { db },
        db,
        fs: new WorkspaceFilesystem(db),
        remoteDb,
        remoteFs: new WorkspaceFilesystem(remoteDb),
        peer,
        remote: link.remote,
      };
    };
    const closeAll = async () => {
      for (const link of open.splice(0)) await link.close();
    };
    const test = (title: string, body: () => Promise<void>, timeout?: number) =>
      it(
        title,
        async () => {
          try {
            await body();
          } finally {
            await closeAll();
          }
        },
        timeout,
      );

    test("22: five rewrites of one path coalesce to one entry with the latest content", async () => {
      const w = await world();
      for (let i = 1; i <= 5; i++) await w.remoteFs.writeFile("/f", `v${i}`);
      const { stream } = await w.remote.fetchChanges({});
      const entries = await entriesOf(stream);
      expect(entries).toHaveLength(1);
      await pullOnce(w.local, w.remote);
      expect(await w.fs.readFile("/f", "utf8")).toBe("v5");
    });

    test("23: delete+recreate is one live entry; create+delete is one delete", async () => {
      const w = await world();
      await w.remoteFs.writeFile("/a", "1");
      await w.remoteFs.rm("/a");
      await w.remoteFs.writeFile("/a", "2");
      await w.remoteFs.writeFile("/b", "1");
      await w.remoteFs.rm("/b");
      const entries = await entriesOf((await w.remote.fetchChanges({})).stream);
      expect(entries.map((e) => [e.path, e.kind])).toEqual([
        ["/a", "file"],
        ["/b", "delete"],
      ]);
    });

    test("24: order is (rev, path); {R,P} resumes after P; {R,null} skips all of R", async () => {
      const w = await world();
      await w.remoteFs.mkdir("/d");
      for (const n of ["c", "a", "b"]) await w.remoteFs.writeFile(`/d/${n}`, n);
      await w.remoteFs.rename("/d", "/e"); // one rev for /d, /d/*, /e, /e/*
      const all = await entriesOf((await w.remote.fetchChanges({})).stream);
      const rev = all[0]?.rev as number;
      expect(all.every((e) => e.rev === rev)).toBe(true);
      expect(all.map((e) => e.path)).toEqual(["/d", "/d/a", "/d/b", "/d/c", "/e", "/e/a", "/e/b", "/e/c"]);
      const resumed = await entriesOf((await w.remote.fetchChanges({ after: { rev, path: "/d/b" } })).stream);
      expect(resumed.map((e) => e.path)).toEqual(["/d/c", "/e", "/e/a", "/e/b", "/e/c"]);
      expect(await entriesOf((await w.remote.fetchChanges({ after: { rev, path: null } })).stream)).toEqual([]);
    });

    test("25: a hardlinked inode is one entry per name", async () => {
      const w = await world();
      await w.remoteFs.writeFile("/a", "same");
      await w.remoteFs.link("/a", "/b");
      const entries = await entriesOf((await w.remote.fetchChanges({})).stream);
      expect(entries.map((e) => e.path)).toEqual(["/a", "/b"]);
      await pullOnce(w.local, w.remote);
      expect(await w.fs.readFile("/b", "utf8")).toBe("same");
      expect((await w.fs.stat("/a")).inode).not.toBe((await w.fs.stat("/b")).inode);
    });

    test("26: pushOnce sends only missing chunks; a repeat push sends nothing", async () => {
      const w = await world();
      const sent: number[] = [];
      const counting = intercept(w.remote, {
        pushObjects: (objects) => {
          // A plain ReadableStream (not pipeThrough's) so capnweb can carry it.
          const reader = objects.getReader();
          return w.remote.pushObjects(
            new ReadableStream<ObjectFrame>({
              async pull(c) {
                const { done, value } = await reader.read();
                if (done) c.close();
                else {
                  sent.push(value.bytes.byteLength);
                  c.enqueue(value);
                }
              },
            }),
          );
        },
      });
      const big = patternBytes(CHUNK_SIZE * 3, 9);
      await w.remoteFs.writeFile("/already", big.slice(0, CHUNK_SIZE * 2));
      await w.fs.writeFile("/big", big);
      expect(await pushOnce(w.local, counting)).toBe(1);
      expect(sent).toEqual([CHUNK_SIZE]);
      expect(await pushOnce(w.local, counting)).toBe(0);
      expect(sent).toHaveLength(1);
    });

    test("27 / 02-37: a push failing part-way leaves the receiver unchanged", async () => {
      const w = await world();
      await w.remoteFs.writeFile("/keep", "old");
      const rev = currentRev(w.remoteDb);
      const missing = fromHex("ab".repeat(32));
      const entries: ChangeEntry[] = [
        { kind: "dir", rev: 5, path: "/new", mode: 0o755, mtime: 1 },
        { kind: "file", rev: 5, path: "/keep", mode: 0o644, mtime: 1, size: 3, chunks: [{ hash: missing, size: 3 }] },
      ];
      await expect(
        w.remote.push({ senderRev: 5, senderCursor: { rev: 5, path: null }, changes: streamOf(entries) }),
      ).rejects.toMatchObject({ code: "EUNKNOWN_HASH" });
      let sentOne = false;
      const broken = new ReadableStream<ChangeEntry>({
        pull(c) {
          if (!sentOne) {
            sentOne = true;
            c.enqueue(entries[0] as ChangeEntry);
          } else c.error(new Error("socket dropped"));
        },
      });
      await expect(
        w.remote.push({ senderRev: 5, senderCursor: { rev: 5, path: null }, changes: broken }),
      ).rejects.toThrow();
      expect(currentRev(w.remoteDb)).toBe(rev);
      expect(await w.remoteFs.readFile("/keep", "utf8")).toBe("old");
      await expect(w.remoteFs.stat("/new")).rejects.toMatchObject({ code: "ENOENT" });
      expect(getPullCursor(w.remoteDb)).toEqual(ZERO_CURSOR);
    });

    test("28: after pull + echo push, the next tick pulls 0 and pushes 0", async () => {
      const w = await world();
      await w.fs.writeFile("/from-do", "d");
      await pushOnce(w.local, w.remote);
      await w.remoteFs.writeFile("/from-peer", "p");
      await tick(w.local, w.remote);
      expect(await tick(w.local, w.remote)).toEqual({ pulled: { applied: 0, skipped: [] }, pushed: 0 });
      expect(await snapshotTree(w.fs)).toEqual(await snapshotTree(w.remoteFs));
    });

    test("29: an upstream file with the same chunks or a dir with the same mode changes nothing", async () => {
      const w = await world();
      await w.fs.mkdir("/d");
      await w.fs.writeFile("/d/f", "same");
      await pushOnce(w.local, w.remote);
      const rev = currentRev(w.db);
      const dirMtime = (await w.fs.stat("/d")).mtime;
      // The peer rewrites the same bytes and re-modes nothing; then we pull.
      await w.remoteFs.writeFile("/d/f", "same");
      await pullOnce(w.local, w.remote);
      expect(currentRev(w.db)).toBe(rev);
      expect((await w.fs.stat("/d")).mtime).toBe(dirMtime);
    });

    test("30: a file entry with a short middle chunk is EINVAL and the old file survives", async () => {
      const w = await world();
      await w.remoteFs.writeFile("/f", "old");
      await w.remoteFs.writeFile("/blob", patternBytes(CHUNK_SIZE * 2 + 1, 4));
      const held = (await w.remote.readEntry("/blob")) as Extract<ChangeEntry, { kind: "file" }>;
      const short = { ...(held.chunks[0] as ChunkEntry), size: CHUNK_SIZE - 1 };
      const entry: ChangeEntry = {
        kind: "file",
        rev: 9,
        path: "/f",
        mode: 0o644,
        mtime: 1,
        size: held.size - 1,
        chunks: [held.chunks[0], short, held.chunks[2]] as ChunkEntry[],
      };
      await expect(
        w.remote.push({ senderRev: 9, senderCursor: { rev: 9, path: null }, changes: streamOf([entry]) }),
      ).rejects.toMatchObject({ code: "EINVAL" });
      expect(await w.remoteFs.readFile("/f", "utf8")).toBe("old");
    });

    test("31: an upstream file over a local dir replaces the subtree without tombstones", async () => {
      const w = await world();
      await w.fs.mkdir("/x/sub", { recursive: true });
      await w.fs.writeFile("/x/sub/f", "local");
      await w.remoteFs.writeFile("/x", "file now");
      await pullOnce(w.local, w.remote);
      expect(await w.fs.readFile("/x", "utf8")).toBe("file now");
      const tombs = w.db.all<{ path: string }>("SELECT path FROM vfs_changes");
      expect(tombs).toEqual([]);
    });

    test("32: an upstream entry under missing parents creates them", async () => {
      const w = await world();
      const entry: ChangeEntry = { kind: "symlink", rev: 3, path: "/a/b/c/l", target: "../t", mode: 0o777, mtime: 7 };
      await w.remote.push({ senderRev: 3, senderCursor: { rev: 3, path: null }, changes: streamOf([entry]) });
      expect((await w.remoteFs.stat("/a/b/c")).isDirectory).toBe(true);
      expect(await w.remoteFs.readlink("/a/b/c/l")).toBe("../t");
    });

    test("33: a renamed directory is tombstones + live entries at one rev; a cold receiver converges", async () => {
      const w = await world();
      await w.fs.mkdir("/d");
      await w.fs.writeFile("/d/x", "x");
      await w.fs.writeFile("/d/y", "y");
      await pushOnce(w.local, w.remote);
      await w.fs.rename("/d", "/e");
      const rev = currentRev(w.db);
      const plan = planChanges(w.db, getPushCursor(w.db), { rev, path: null });
      expect(plan.map((p) => [p.path, p.rev])).toEqual([
        ["/d", rev],
        ["/d/x", rev],
        ["/d/y", rev],
        ["/e", rev],
        ["/e/x", rev],
        ["/e/y", rev],
      ]);
      expect(plan.map((p) => readChange(w.db, p)?.kind)).toEqual(["delete", "delete", "delete", "dir", "file", "file"]);
      await pushOnce(w.local, w.remote);
      expect(await snapshotTree(w.remoteFs)).toEqual(await snapshotTree(w.fs));
      const cold = await world();
      await cold.fs.mkdir("/d");
      await cold.fs.writeFile("/d/x", "x");
      await cold.fs.rename("/d", "/e");
      await pushOnce(cold.local, cold.remote);
      expect(await snapshotTree(cold.remoteFs)).toEqual(await snapshotTree(cold.fs));
    });

    test("34: ignore hides a path segment, not a substring; the cursor still advances", async () => {
      const w = await world({ ignore: ["node_modules"] });
      await w.remoteFs.mkdir("/a/node_modules", { recursive: true });
      await w.remoteFs.mkdir("/a/node_modules2");
      await w.remoteFs.writeFile("/a/node_modules/b", "hidden");
      await w.remoteFs.writeFile("/a/node_modules2/b", "shown");
      await pullOnce(w.local, w.remote);
      expect(await w.fs.readFile("/a/node_modules2/b", "utf8")).toBe("shown");
      await expect(w.fs.stat("/a/node_modules")).rejects.toMatchObject({ code: "ENOENT" });
      expect(getPullCursor(w.db)).toEqual({ rev: currentRev(w.remoteDb), path: null });
      expect(await pullOnce(w.local, w.remote)).toEqual({ applied: 0, skipped: [] });
    });

    test("35: a pull that dies after batch k resumes at batch k's last entry, inside one rev", async () => {
      const w = await world();
      await w.remoteFs.mkdir("/src");
      for (let i = 0; i < 300; i++) await w.remoteFs.writeFile(`/src/f${String(i).padStart(3, "0")}`, `${i}`);
      await w.remoteFs.rename("/src", "/dst"); // 602 entries at one rev
      const rev = currentRev(w.remoteDb);
      let delivered = 0;
      const flaky = intercept(w.remote, {
        fetchChanges: async (request) => {
          const response = await w.remote.fetchChanges(request);
          const reader = response.stream.getReader();
          const stream = new ReadableStream<ChangeEntry>({
            async pull(c) {
              if (delivered === 300) {
                c.error(new Error("connection lost"));
                return;
              }
              const { done, value } = await reader.read();
              if (done) c.close();
              else {
                delivered += 1;
                c.enqueue(value);
              }
            },
          });
          return { ...response, stream };
        },
      });
      await expect(pullOnce(w.local, flaky)).rejects.toThrow("connection lost");
      const cursor = getPullCursor(w.db);
      expect(cursor.rev).toBe(rev);
      expect(typeof cursor.path).toBe("string");
      const rest = await entriesOf((await w.remote.fetchChanges({ after: cursor })).stream);
      expect(rest).toHaveLength(602 - 256);
      await pullOnce(w.local, w.remote);
      expect(await snapshotTree(w.fs)).toEqual(await snapshotTree(w.remoteFs));
    });

    test("36: an applied cursor below pushRev resets and retries once; a second lie throws", async () => {
      const w = await world();
      await w.fs.writeFile("/a", "a");
      await pushOnce(w.local, w.remote);
      expect(getPushCursor(w.db).rev).toBeGreaterThan(0);
      let calls = 0;
      const liar = intercept(w.remote, {
        fetchChanges: async (request) => {
          const response = await w.remote.fetchChanges(request);
          calls += 1;
          return { ...response, appliedPushCursor: ZERO_CURSOR };
        },
      });
      await pullOnce(w.local, liar);
      expect(calls).toBe(2); // the lie, then the one retry after the reset
      expect(getPushCursor(w.db)).toEqual(ZERO_CURSOR);
      await pushOnce(w.local, w.remote);
      await w.remoteFs.writeFile("/b", "b");
      await pullOnce(w.local, w.remote);
      let lies = 0;
      const worse = intercept(w.remote, {
        fetchChanges: async (request) => {
          const response = await w.remote.fetchChanges(request);
          lies += 1;
          return lies === 1
            ? { ...response, appliedPushCursor: ZERO_CURSOR }
            : { ...response, currentCursor: { rev: 0, path: null } as Cursor, appliedPushCursor: ZERO_CURSOR };
        },
      });
      await pushOnce(w.local, w.remote);
      await expect(pullOnce(w.local, worse)).rejects.toThrow(/diverged/);
      expect(lies).toBe(2);
    });

    test("37: a restarted peer with an empty database is rebuilt from rev 0 after reconnect", async () => {
      const w = await world();
      await w.fs.mkdir("/w/deep", { recursive: true });
      await w.fs.writeFile("/w/deep/f", patternBytes(CHUNK_SIZE + 3));
      await w.fs.symlink("deep/f", "/w/l");
      await pushOnce(w.local, w.remote);
      await w.remoteFs.writeFile("/w/from-peer", "p");
      await pullOnce(w.local, w.remote);
      const restarted = await world();
      const marks = await reconcileWatermarks(w.local, restarted.remote);
      expect(marks).toEqual({ pullReset: true, pushReset: true });
      await pushOnce(w.local, restarted.remote);
      expect(await snapshotTree(restarted.remoteFs)).toEqual(await snapshotTree(w.fs));
    });

    test("38: fetchObjects of an unknown hash is EUNKNOWN_HASH; hasObjects skips damaged blobs", async () => {
      const w = await world();
      // A local peer throws at once, capnweb rejects the call: both are a rejection here.
      const unknown = async () => w.remote.fetchObjects([fromHex("cd".repeat(32))]);
      await expect(unknown()).rejects.toMatchObject({ code: "EUNKNOWN_HASH" });
      await w.remoteFs.writeFile("/f", "0123456789");
      const entry = (await w.remote.readEntry("/f")) as Extract<ChangeEntry, { kind: "file" }>;
      const hash = entry.chunks[0]?.hash as Uint8Array;
      expect(hash.byteLength).toBe(32);
      expect(await w.remote.hasObjects([hash, hash])).toHaveLength(2);
      w.remoteDb.run("UPDATE vfs_blob_bytes SET bytes = substr(bytes, 1, 4)");
      expect(await w.remote.hasObjects([hash])).toEqual([]);
    });

    test("39 / 02-36: senderRev 0 is a local write echoed as {0,null}; a peer's cursor only moves forward", async () => {
      const w = await world();
      const { currentRev: rev } = await w.remote.watermarks();
      const entry: ChangeEntry = { kind: "dir", rev: 0, path: "/outside", mode: 0o700, mtime: 1 };
      const local = await w.remote.push({ senderRev: 0, changes: streamOf([entry]) });
      expect(local.appliedPushCursor).toEqual(ZERO_CURSOR);
      expect(local.rev).toBe(rev + 1);
      expect(local.applied).toBe(1);
      expect((await w.remote.watermarks()).pushRev).toBe(0);
      const ahead = await w.remote.push({
        senderRev: 10,
        senderCursor: { rev: 10, path: "/m" },
        changes: streamOf([]),
      });
      expect(ahead.appliedPushCursor).toEqual({ rev: 10, path: "/m" });
      const behind = await w.remote.push({
        senderRev: 10,
        senderCursor: { rev: 4, path: null },
        changes: streamOf([]),
      });
      expect(behind.appliedPushCursor).toEqual({ rev: 10, path: "/m" });
      expect((await w.remote.watermarks()).fetchCursor).toEqual({ rev: 10, path: "/m" });
    });

    test("a peer push without senderCursor (the reference's driver) moves the fetch cursor to {senderRev, null}", async () => {
      const w = await world();
      const entry: ChangeEntry = { kind: "dir", rev: 7, path: "/d", mode: 0o755, mtime: 0 };
      const pushed = await w.remote.push({ senderRev: 7, changes: streamOf([entry]) });
      expect(pushed.appliedPushCursor).toEqual({ rev: 7, path: null });
      expect((await w.remote.watermarks()).fetchCursor).toEqual({ rev: 7, path: null });
      expect((await w.remoteFs.stat("/d")).isDirectory).toBe(true);
      // Forward only, as with a senderCursor: an older senderRev leaves it where it is.
      const older = await w.remote.push({ senderRev: 3, changes: streamOf([]) });
      expect(older.appliedPushCursor).toEqual({ rev: 7, path: null });
    });

    test("pullOnce disposes the fetch envelope, also when the apply throws", async () => {
      const w = await world();
      await w.remoteFs.writeFile("/ok", "fine");
      let disposed = 0;
      let cancelled = 0;
      const counting = (bogus: boolean): SyncRPC =>
        intercept(w.remote, {
          fetchChanges: async (request) => {
            const result = await w.remote.fetchChanges(request);
            const inner = (result as Partial<Disposable>)[Symbol.dispose];
            let stream = result.stream;
            if (bogus) {
              await result.stream.cancel();
              // Files whose only chunk nobody holds: the apply refuses the first batch ("missing object")
              // while the stream still has more to give.
              let sent = 0;
              stream = new ReadableStream<ChangeEntry>({
                pull(controller) {
                  if (sent === SYNC_BATCH_ENTRIES + 10) controller.close();
                  else
                    controller.enqueue({
                      kind: "file",
                      rev: 1,
                      path: `/bad${sent++}`,
                      mode: 0o644,
                      mtime: 0,
                      size: 3,
                      chunks: [{ hash: fromHex("ab".repeat(32)), size: 3 }],
                    });
                },
                cancel() {
                  cancelled += 1;
                },
              });
            }
            return {
              ...result,
              stream,
              [Symbol.dispose]() {
                disposed += 1;
                inner?.call(result);
              },
            };
          },
        });
      await pullOnce(w.local, w.remote); // a schema on both sides; nothing new after it
      await w.remoteFs.writeFile("/ok", "again");
      const before = getPullCursor(w.db);
      await expect(pullOnce(w.local, counting(true))).rejects.toThrow(/missing/);
      expect(disposed).toBe(1);
      expect(cancelled).toBe(1);
      expect(getPullCursor(w.db)).toEqual(before);
      expect((await w.fs.find("/")).map((e) => e.path)).toEqual(["/ok"]); // nothing of the refused batch
      expect((await pullOnce(w.local, counting(false))).applied).toBe(1);
      expect(disposed).toBe(2);
    });

    test("refused: a peer entry whose name is too long to store is reported beside skipped, not in it", async () => {
      const w = await world();
      await w.remoteFs.mkdir("/d");
      await w.remoteFs.writeFile("/d/ok", "ok");
      // What a store written before the name limits can hold: a 300-byte name.
      const legacy = "x".repeat(300);
      const dir = (await w.remoteFs.stat("/d")).inode;
      const rev = bumpRev(w.remoteDb);
      addDirent(w.remoteDb, dir, legacy, insertNode(w.remoteDb, { type: "dir", mode: 0o755, mtime: 0, rev }));
      const pulled = await pullOnce(w.local, w.remote);
      expect(pulled.skipped).toEqual([]);
      expect(pulled.refused).toEqual([{ path: `/d/${legacy}`, op: "write", reason: "name-too-long" }]);
      expect((await w.fs.readdir("/d")).map((entry) => entry.name)).toEqual(["ok"]);
      // Past the cursor: the next pull brings nothing, and reports nothing.
      expect(await pullOnce(w.local, w.remote)).toEqual({ applied: 0, skipped: [] });
    });

    test("skipped: a peer write under a read-only mount is reported and the DO is unchanged", async () => {
      const w = await world();
      await w.fs.mkdir("/workspace/skills", { recursive: true });
      await w.fs.writeFile("/workspace/skills/a", "ro");
      await pushOnce(w.local, w.remote);
      await pullOnce(w.local, w.remote); // the echo of that push
      const { setMount } = await import("../src/mounts.js");
      setMount(w.db, "/workspace/skills", "r2", "read-only", true);
      await w.remoteFs.writeFile("/workspace/skills/a", "changed in container");
      const pulled = await pullOnce(w.local, w.remote);
      expect(pulled.skipped).toEqual([
        { path: "/workspace/skills/a", mountRoot: "/workspace/skills", op: "write", reason: "read-only" },
      ]);
      expect(await w.fs.readFile("/workspace/skills/a", "utf8")).toBe("ro");
    });
  });
}
