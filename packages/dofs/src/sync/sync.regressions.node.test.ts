/**
 * Minimal reproductions of the sync bugs the convergence and fault fuzzers
 * (sync.convergence / sync.faults) found, kept as regressions. Each names the
 * seed family it came from; the fuzzers themselves check the general case.
 */
import { describe, expect, it } from "vitest";
import { snapshotTree } from "../../test/peers.js";
import { openNodeDatabase } from "../database.node.js";
import { WorkspaceFilesystem } from "../filesystem.js";
import type { SyncLocal } from "./local.js";
import { SyncPeer } from "./peer.js";
import { pullOnce } from "./pull.js";
import { pushBatch, pushOnce } from "./push.js";
import { reconcileWatermarks, tick } from "./reconcile.js";

function pair() {
  const fs = new WorkspaceFilesystem(openNodeDatabase());
  const remoteFs = new WorkspaceFilesystem(openNodeDatabase());
  return { local: { db: fs.db } as SyncLocal, fs, remoteFs, remote: new SyncPeer(remoteFs.db) };
}

/** Pull then push until a round moves nothing (at most four). */
async function settle(local: SyncLocal, remote: SyncPeer): Promise<void> {
  for (let i = 0; i < 4; i++) {
    const { pulled, pushed } = await tick(local, remote);
    if (pulled.applied === 0 && pushed === 0) return;
  }
}

describe("sync regressions found by the fuzzers", () => {
  it("a push from a never-changed DO completes (pushStep used to report 'pending' forever)", async () => {
    const { local, remote } = pair();
    const batch = await pushBatch(local, remote, { maxEntries: 1, maxBytes: 1, maxWallTimeMs: 0 });
    expect(batch.status).toBe("complete");
    expect(await pushOnce(local, remote)).toBe(0);
  });

  it("an entry under a looping symlink does not wedge every pull with ELOOP", async () => {
    const { local, fs, remote, remoteFs } = pair();
    await fs.mkdir("/l");
    await pushOnce(local, remote);
    await pullOnce(local, remote); // the pull cursor is past /l now
    await fs.rm("/l", { recursive: true });
    await fs.symlink("l", "/l"); // loops onto itself
    await remoteFs.writeFile("/l/x", "x");
    await pullOnce(local, remote);
    await settle(local, remote);
    expect(await snapshotTree(fs)).toEqual(await snapshotTree(remoteFs));
  });

  it("an entry under a symlinked parent does not land in (and wipe) the link's target", async () => {
    const { local, fs, remote, remoteFs } = pair();
    await fs.mkdir("/c/b", { recursive: true });
    await fs.writeFile("/c/b/f", "keep");
    await fs.mkdir("/a");
    await pushOnce(local, remote);
    await remoteFs.rm("/a", { recursive: true });
    await remoteFs.symlink(".", "/a"); // the peer's /a is now the root
    await fs.writeFile("/a/c", "x"); // used to land on the peer's /c, replacing that directory without tombstones
    await fs.writeFile("/c/new", "n");
    await pushOnce(local, remote);
    await settle(local, remote);
    expect(await snapshotTree(remoteFs)).toEqual(await snapshotTree(fs));
    expect(await remoteFs.readFile("/c/b/f", "utf8")).toBe("keep");
  });

  it("the echo of a push does not revert a DO write made before the next pull", async () => {
    const { local, fs, remote } = pair();
    await fs.writeFile("/f", "v1");
    await pushOnce(local, remote);
    await fs.writeFile("/f", "v2"); // e.g. while an exec runs, between its push and its pull
    await pullOnce(local, remote);
    expect(await fs.readFile("/f", "utf8")).toBe("v2");
    await fs.rm("/f");
    await pushOnce(local, remote);
    await fs.writeFile("/f", "v3"); // nor does the echo of a delete remove a re-created file
    await pullOnce(local, remote);
    expect(await fs.readFile("/f", "utf8")).toBe("v3");
  });

  it("the echo of a pull does not revert a peer write made before the next push", async () => {
    const { local, remote, remoteFs } = pair();
    await remoteFs.writeFile("/f", "v1");
    await pullOnce(local, remote);
    await remoteFs.writeFile("/f", "v2"); // a background process in the container
    await pushOnce(local, remote);
    expect(await remoteFs.readFile("/f", "utf8")).toBe("v2");
  });

  it("a chmod of a synced file reaches the other side", async () => {
    const { local, fs, remote, remoteFs } = pair();
    await fs.writeFile("/f", "x");
    await pushOnce(local, remote);
    await remoteFs.chmod("/f", 0o755);
    await settle(local, remote);
    expect((await fs.stat("/f")).mode).toBe(0o755);
  });

  it("a chmod arriving for one name of a hardlinked file leaves the other names alone", async () => {
    // Convergence seeds 474, 2652, 3665, 4748, 4876 (of 5000). The receiver's
    // names share an inode, the sender's are independent copies: a mode-only
    // update in place changed the other name too, under the echo rev, so it
    // was never sent back.
    const { local, fs, remote, remoteFs } = pair();
    await remoteFs.writeFile("/a", "x");
    await remoteFs.link("/a", "/b");
    await settle(local, remote);
    await fs.chmod("/a", 0o600);
    await settle(local, remote);
    expect(await snapshotTree(remoteFs)).toEqual(await snapshotTree(fs));
  });

  it("a restarted peer is rebuilt even when it wrote past the DO's pull rev before reconnecting", async () => {
    // reconcileWatermarks detects a restart by revs only: a fresh peer whose
    // own writes carried its rev past the DO's pull rev keeps the old pull
    // cursor, and its changes at or below that rev are never pulled.
    const { local, fs } = pair();
    let remoteFs = new WorkspaceFilesystem(openNodeDatabase());
    let remote = new SyncPeer(remoteFs.db);
    await reconcileWatermarks(local, remote); // every connect reconciles first (`docs/sync.md`)
    await fs.writeFile("/d", "x");
    await pushOnce(local, remote);
    for (let i = 0; i < 5; i++) await remoteFs.writeFile(`/p${i}`, `p${i}`);
    await pullOnce(local, remote);
    remoteFs = new WorkspaceFilesystem(openNodeDatabase()); // the container restarts empty...
    remote = new SyncPeer(remoteFs.db);
    for (let i = 0; i < 10; i++) await remoteFs.writeFile(`/n${i}`, `n${i}`); // ...and writes before the DO reconnects
    await reconcileWatermarks(local, remote);
    await settle(local, remote);
    expect(Object.keys(await snapshotTree(fs))).toEqual(Object.keys(await snapshotTree(remoteFs)));
  });
});
