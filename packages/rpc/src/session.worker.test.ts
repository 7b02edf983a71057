/**
 * The same transport inside workerd: capnweb's workers build (its RpcTarget is
 * the one from `cloudflare:workers`) over both ends of a WebSocketPair, serving
 * a real SyncPeer on Durable Object SQLite.
 */

import { runInDurableObject, SELF } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { openDurableObjectDatabase, WorkspaceFsError } from "@cloudflare/dofs";
import { type ChangeEntry, type ObjectFrame, SyncPeer } from "@cloudflare/dofs/sync";
import { expect, test } from "vitest";
import { TEST_BEARER } from "../test/peer-object.worker.js";
import { createWorkspaceClient, type WorkspaceClient } from "./client/index.js";
import { WorkspaceRpcError } from "./errors.js";
import { acceptWebSocketSession, createWorkspaceServerFor } from "./server/index.js";

async function withClient(body: (client: WorkspaceClient) => Promise<void>): Promise<void> {
  const stub = env.PEER.get(env.PEER.newUniqueId());
  await runInDurableObject(stub, async (_instance, state) => {
    const pair = new WebSocketPair();
    const [clientEnd, serverEnd] = [pair[0], pair[1]];
    serverEnd.accept();
    clientEnd.accept();
    const peer = new SyncPeer(openDurableObjectDatabase(state.storage));
    const session = acceptWebSocketSession(serverEnd, createWorkspaceServerFor(peer, undefined));
    const client = await createWorkspaceClient({ socket: clientEnd });
    try {
      await body(client);
    } finally {
      await client.close();
      await session.closed;
    }
  });
}

test("calls, streams both ways and error codes work over a WebSocketPair in workerd", async () => {
  await withClient(async (client) => {
    const sent: ChangeEntry[] = Array.from({ length: 1000 }, (_, i) => ({
      kind: "dir",
      rev: 1,
      path: `/workspace/d${String(i).padStart(4, "0")}`,
      mode: 0o755,
      mtime: i,
    }));
    let next = 0;
    const changes = new ReadableStream<ChangeEntry>({
      pull(controller) {
        const entry = sent[next++];
        if (entry === undefined) controller.close();
        else controller.enqueue(entry);
      },
    });
    await expect(client.sync.push({ senderRev: 0, changes })).resolves.toMatchObject({ applied: 1000 });
    const { stream } = await client.sync.fetchChanges({});
    const paths: string[] = [];
    for await (const entry of stream) if (entry.path.startsWith("/workspace/d")) paths.push(entry.path);
    expect(paths).toEqual(sent.map((entry) => entry.path));

    // Typed as its stream (the original's SyncRPC); over capnweb the call is a promise that rejects.
    const error = await (async () => client.sync.fetchObjects([new Uint8Array(32)]))().catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(WorkspaceFsError);
    expect(error).toMatchObject({ code: "EUNKNOWN_HASH" });
    await expect(client.shell.exec({ source: "true" })).rejects.toMatchObject({ code: "EPROTOCOL" });
  });
});

test("objects of 0 B to 512 KiB cross the WebSocketPair as binary frames, both ways, byte-exact", async () => {
  const sizes = [0, 1, 100 * 1024, 512 * 1024];
  const objects: ObjectFrame[] = await Promise.all(
    sizes.map(async (size, seed) => {
      const bytes = new Uint8Array(size).map((_, i) => (i * 31 + seed) & 0xff);
      return { hash: new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)), bytes };
    }),
  );
  await withClient(async (client) => {
    let next = 0;
    const frames = new ReadableStream<ObjectFrame>({
      pull(controller) {
        const object = objects[next++];
        if (object === undefined) controller.close();
        else controller.enqueue(object);
      },
    });
    await client.sync.pushObjects(frames);
    const hashes = objects.map((object) => object.hash);
    expect(await client.sync.hasObjects(hashes)).toEqual(hashes);
    const received: ObjectFrame[] = [];
    for await (const frame of await client.sync.fetchObjects(hashes)) received.push(frame);
    expect(received.map((frame) => frame.bytes.byteLength)).toEqual(sizes);
    for (const frame of received) {
      expect(Object.getPrototypeOf(frame.bytes)).toBe(Uint8Array.prototype);
      expect(new Uint8Array(await crypto.subtle.digest("SHA-256", frame.bytes))).toEqual(frame.hash);
    }
    expect(received.map((frame) => frame.hash)).toEqual(hashes);
  });
});

test("close() is idempotent and later calls fail with ESHUTDOWN", async () => {
  await withClient(async (client) => {
    await client.sync.watermarks();
    await client.close();
    await client.close();
    const error = await client.sync.watermarks().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkspaceRpcError);
    expect(error).toMatchObject({ code: "ESHUTDOWN" });
  });
});

test("dials through a fetch upgrade (a container port's fetch in production) with a bearer", async () => {
  const send = (url: string, init: { headers: Record<string, string> }) => SELF.fetch(url, init);
  await expect(createWorkspaceClient({ url: "ws://peer/api", fetch: send })).rejects.toMatchObject({ code: "EAUTH" });
  const client = await createWorkspaceClient({
    url: "ws://peer/api",
    fetch: send,
    headers: { authorization: TEST_BEARER },
  });
  await expect(client.sync.watermarks()).resolves.toMatchObject({ pushRev: 0 });
  await expect(client.sync.readEntry("/workspace/missing")).resolves.toBeNull();
  await client.close();
});
