/**
 * The production shape of sync, end to end: a Durable Object in a real
 * workerd (Miniflare, SQLite storage persisted to disk) drives sync with a
 * Node SyncPeer (computerd's role) over a real WebSocket on 127.0.0.1, which
 * the object dials with a fetch upgrade. The tests run in order and share
 * one object and one peer: each step starts from the state the last one left.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { SyncPeer } from "@cloudflare/dofs/sync";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { generatedBytes, generatedStream } from "../test/generated.js";
import { startTestServer, type TestServer } from "../test/harness.node.js";
import { bundleSyncObject, type SyncObjectHost, startSyncObject } from "../test/sync-object.node.js";
import { type SideOp, type StepResult, sha256Stream, snapshotTree } from "../test/sync-ops.js";
import { createSyncServer } from "./server/index.js";

const OBJECT = "workspace";
const ROOT = "/workspace";
/** Three chunks (512 KiB each): multi-chunk, with a short last one. */
const BIG = 1.5 * 1024 * 1024;

interface NodePeer {
  fs: WorkspaceFilesystem;
  server: TestServer;
  close(): Promise<void>;
}

/** computerd's side: a SyncPeer over a fresh in-memory better-sqlite3 database behind a ws server. */
async function startNodePeer(): Promise<NodePeer> {
  const db = openNodeDatabase();
  const peer = new SyncPeer(db);
  const server = await startTestServer(() => createSyncServer(peer));
  return {
    fs: new WorkspaceFilesystem(db),
    server,
    async close() {
      await server.close();
      db.close();
    },
  };
}

let dir: string;
let script: string;
let object: SyncObjectHost;
let node: NodePeer;

const run = <T = unknown>(op: SideOp): Promise<T> => object.run<T>(OBJECT, op);
const step = (name: StepResult["step"]): Promise<StepResult> => run<StepResult>({ op: "sync", step: name });
const objectTree = () => run<Record<string, string>>({ op: "tree", root: ROOT });
const sha256 = (bytes: Uint8Array) => sha256Stream(new Blob([bytes]).stream());

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rpc-do-sync-"));
  script = await bundleSyncObject(dir);
  object = await startSyncObject(script, join(dir, "durable-objects"));
  node = await startNodePeer();
}, 60_000);

afterAll(async () => {
  await object?.dispose();
  await node?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("a Durable Object in workerd syncing with a Node peer over a WebSocket on 127.0.0.1", () => {
  test("push: what the object writes lands in the Node peer, a 1.5 MiB file byte-exact", async () => {
    await run({ op: "mkdir", path: `${ROOT}/src` });
    await run({ op: "write", path: `${ROOT}/src/a.txt`, text: "hello from the object\n" });
    await run({ op: "write", path: `${ROOT}/README.md`, text: "# workspace\n" });
    await run({ op: "writeGenerated", path: `${ROOT}/big.bin`, bytes: BIG, seed: 3 });

    await run({ op: "connect", url: node.server.url });
    await expect(step("reconcile")).resolves.toEqual({ step: "reconcile", pullReset: false, pushReset: false });
    const pushed = await step("push");
    expect(pushed.pushed).toBeGreaterThanOrEqual(5);

    await expect(node.fs.readFile(`${ROOT}/src/a.txt`, "utf8")).resolves.toBe("hello from the object\n");
    const onNode = await sha256Stream((await node.fs.readFile(`${ROOT}/big.bin`)) as ReadableStream<Uint8Array>);
    expect(onNode).toBe(await sha256(generatedBytes(BIG, 3)));
    expect(await snapshotTree(node.fs, ROOT)).toEqual(await objectTree());
  });

  test("pull: what the Node peer writes lands in the object", async () => {
    await node.fs.mkdir(`${ROOT}/from-node`, { recursive: true });
    await node.fs.writeFile(`${ROOT}/from-node/note.txt`, "hello from computerd\n");
    await node.fs.writeFile(`${ROOT}/from-node/big.bin`, generatedStream(BIG, 4));

    // Exactly the peer's own writes: what the object pushed is not echoed back.
    await expect(step("pull")).resolves.toEqual({ step: "pull", pulled: 3, skipped: 0 });
    const tree = await objectTree();
    expect(tree[`${ROOT}/from-node/big.bin`]).toBe(`file 644 ${BIG} ${await sha256(generatedBytes(BIG, 4))}`);
    expect(tree).toEqual(await snapshotTree(node.fs, ROOT));
  });

  test("renames and deletes propagate both ways, and a final tick moves nothing", async () => {
    await run({ op: "rename", from: `${ROOT}/src/a.txt`, to: `${ROOT}/src/b.txt` });
    await run({ op: "rm", path: `${ROOT}/README.md` });
    expect((await step("push")).pushed).toBeGreaterThanOrEqual(3);
    await expect(node.fs.readFile(`${ROOT}/src/b.txt`, "utf8")).resolves.toBe("hello from the object\n");
    await expect(node.fs.stat(`${ROOT}/src/a.txt`)).rejects.toMatchObject({ code: "ENOENT" });
    await expect(node.fs.stat(`${ROOT}/README.md`)).rejects.toMatchObject({ code: "ENOENT" });

    await node.fs.rename(`${ROOT}/from-node/note.txt`, `${ROOT}/src/note.txt`);
    await node.fs.rm(`${ROOT}/from-node`, { recursive: true });
    expect((await step("pull")).pulled).toBeGreaterThanOrEqual(3);
    const tree = await objectTree();
    expect(tree[`${ROOT}/src/note.txt`]).toMatch(/^file 644 21 /);
    expect(Object.keys(tree).filter((path) => path.startsWith(`${ROOT}/from-node`))).toEqual([]);
    expect(tree).toEqual(await snapshotTree(node.fs, ROOT));

    // Neither side echoes what it just received, so one tick finds nothing to move.
    await expect(step("tick")).resolves.toEqual({ step: "tick", pulled: 0, skipped: 0, pushed: 0 });
    expect(await objectTree()).toEqual(await snapshotTree(node.fs, ROOT));
  });

  test("after a restart the object's watermarks survive: the next push and pull move nothing", async () => {
    const before = await object.reply(OBJECT, { op: "summary", root: ROOT });
    const tree = await objectTree();
    await object.dispose();
    object = await startSyncObject(script, join(dir, "durable-objects"));

    const after = await object.reply(OBJECT, { op: "summary", root: ROOT });
    expect(after.incarnation).not.toBe(before.incarnation);
    expect(await objectTree()).toEqual(tree);
    await run({ op: "connect", url: node.server.url });
    await expect(step("reconcile")).resolves.toEqual({ step: "reconcile", pullReset: false, pushReset: false });
    await expect(step("push")).resolves.toEqual({ step: "push", pushed: 0 });
    await expect(step("pull")).resolves.toEqual({ step: "pull", pulled: 0, skipped: 0 });
  }, 30_000);

  test("a container restart (a new, empty peer) is rebuilt from the object after reconcileWatermarks", async () => {
    const tree = await objectTree();
    await run({ op: "disconnect" });
    await node.close();
    node = await startNodePeer();

    await run({ op: "connect", url: node.server.url });
    await expect(step("reconcile")).resolves.toEqual({ step: "reconcile", pullReset: true, pushReset: true });
    // From rev 0: every live path plus the tombstones of the deletes and renames above.
    expect((await step("push")).pushed).toBeGreaterThan(Object.keys(tree).length);
    expect(await snapshotTree(node.fs, ROOT)).toEqual(tree);
    const sha = await sha256Stream((await node.fs.readFile(`${ROOT}/big.bin`)) as ReadableStream<Uint8Array>);
    expect(sha).toBe(await sha256(generatedBytes(BIG, 3)));
    await expect(step("tick")).resolves.toEqual({ step: "tick", pulled: 0, skipped: 0, pushed: 0 });
    expect(await objectTree()).toEqual(tree);
    await run({ op: "disconnect" });
  });
});
