import { describe, expect, it } from "vitest";
import { pairOf, snapshotTree } from "../../test/peers.js";
import { patternBytes } from "../../test/util.js";
import { CHUNK_SIZE } from "../constants.js";
import { openNodeDatabase } from "../database.node.js";
import { pullOnce } from "./pull.js";
import { pushOnce } from "./push.js";
import { tick } from "./reconcile.js";

const fresh = () => pairOf(openNodeDatabase(), openNodeDatabase());

describe("sync between two in-process peers", () => {
  it("pushes a tree, pulls changes back, and settles to empty ticks", async () => {
    const p = fresh();
    await p.localFs.mkdir("/workspace/src", { recursive: true });
    await p.localFs.writeFile("/workspace/src/a.ts", "a");
    await p.localFs.writeFile("/workspace/big", patternBytes(CHUNK_SIZE * 2 + 5));
    await p.localFs.symlink("src/a.ts", "/workspace/link");
    expect(await pushOnce(p.local, p.remote)).toBe(5);
    expect(await snapshotTree(p.remoteFs)).toEqual(await snapshotTree(p.localFs));

    await p.remoteFs.writeFile("/workspace/src/b.ts", "b");
    await p.remoteFs.rm("/workspace/big");
    const pulled = await pullOnce(p.local, p.remote);
    expect(pulled.applied).toBeGreaterThan(0);
    expect(await snapshotTree(p.localFs)).toEqual(await snapshotTree(p.remoteFs));
    await tick(p.local, p.remote);
    const settled = await tick(p.local, p.remote);
    expect(settled).toEqual({ pulled: { applied: 0, skipped: [] }, pushed: 0 });
  });
});
