import { openNodeDatabase } from "@cloudflare/dofs/node";
import { type ChangeEntry, SyncPeer, type SyncRPC } from "@cloudflare/dofs/sync";
import { afterEach, describe, expect, test } from "vitest";
import WebSocket from "ws";
import { startTestServer, type TestServer } from "../../test/harness.node.js";
import { WorkspaceRpcError } from "../errors.js";
import { createSyncServer, createWorkspaceServerFor } from "../server/index.js";
import type { RpcEvent } from "../types.js";
import { createSyncClient, createWorkspaceClient } from "./index.node.js";

/** A real SyncPeer whose fetchChanges stream stalls after 10 entries. */
class StallingPeer extends SyncPeer implements SyncRPC {
  override fetchChanges() {
    let rev = 0;
    const stream = new ReadableStream<ChangeEntry>({
      pull(controller) {
        if (++rev > 10) return new Promise(() => {});
        controller.enqueue({ kind: "delete", rev, path: `/workspace/${rev}` });
      },
    });
    return Promise.resolve({
      currentCursor: { rev: 1, path: null },
      appliedPushCursor: { rev: 0, path: null },
      stream,
    });
  }
}

const servers: TestServer[] = [];
async function serve(main: () => object, options?: Parameters<typeof startTestServer>[1]): Promise<TestServer> {
  const server = await startTestServer(main, options);
  servers.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function neverEnding(): ReadableStream<ChangeEntry> {
  return new ReadableStream({ pull: () => new Promise(() => {}) });
}

describe("createWorkspaceClient", () => {
  test("a call round-trips and onRPCEvent sees it, with the code of a failure", async () => {
    const server = await serve(() => createWorkspaceServerFor(new SyncPeer(openNodeDatabase()), undefined));
    const events: RpcEvent[] = [];
    const client = await createWorkspaceClient({ url: server.url, onRPCEvent: (event) => events.push(event) });
    const marks = await client.sync.watermarks();
    expect(marks).toMatchObject({ pushRev: 0, fetchCursor: { rev: 0, path: null } });
    expect(typeof marks.currentRev).toBe("number");
    await expect(client.sync.fetchObjects([new Uint8Array(32)])).rejects.toMatchObject({ code: "EUNKNOWN_HASH" });
    await expect(client.shell.exec({ source: "true" })).rejects.toMatchObject({ code: "EPROTOCOL" });
    expect(events).toEqual([
      { rpc: "sync.watermarks", durationMs: expect.any(Number), ok: true },
      { rpc: "sync.fetchObjects", durationMs: expect.any(Number), ok: false, code: "EUNKNOWN_HASH" },
      { rpc: "shell.exec", durationMs: expect.any(Number), ok: false, code: "EPROTOCOL" },
    ]);
    await client.close();
  });

  test("close() twice is fine, waits for the socket, and a call after it rejects with ESHUTDOWN", async () => {
    const server = await serve(() => createWorkspaceServerFor(new SyncPeer(openNodeDatabase()), undefined));
    const client = await createWorkspaceClient({ url: server.url });
    await client.sync.watermarks();
    const started = performance.now();
    await Promise.all([client.close(), client.close()]);
    await client.close();
    expect(performance.now() - started).toBeLessThan(1000);
    await expect(client.closed).resolves.toMatchObject({ code: 1000 });
    await expect(server.sessions[0]?.closed).resolves.toMatchObject({ code: 1000 });
    const error = await client.sync.watermarks().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkspaceRpcError);
    expect(error).toMatchObject({ code: "ESHUTDOWN", syscall: "sync.watermarks" });
  });

  test("close() rejects the caller's pending calls with ESHUTDOWN", async () => {
    const server = await serve(() => createWorkspaceServerFor(new StallingPeer(openNodeDatabase()), undefined));
    const client = await createWorkspaceClient({ url: server.url });
    const pending = client.sync.push({ senderRev: 0, changes: neverEnding() }).catch((caught: unknown) => caught);
    await client.sync.watermarks(); // the push has reached the server
    await client.close();
    await expect(pending).resolves.toMatchObject({ code: "ESHUTDOWN" });
  });

  test("a server-side close rejects pending calls and breaks a stream being read (no hang)", async () => {
    const server = await serve(() => createWorkspaceServerFor(new StallingPeer(openNodeDatabase()), undefined));
    const client = await createWorkspaceClient({ url: server.url });
    const pending = client.sync.push({ senderRev: 0, changes: neverEnding() }).catch((caught: unknown) => caught);
    const fetched = await client.sync.fetchChanges({});
    const reader = fetched.stream.getReader();
    await reader.read();
    await server.sessions[0]?.close();
    await expect(pending).resolves.toMatchObject({ code: "ESHUTDOWN" });
    await expect(
      (async () => {
        for (;;) if ((await reader.read()).done) return "ended";
      })(),
    ).rejects.toMatchObject({ code: "ESHUTDOWN" });
    await expect(client.closed).resolves.toMatchObject({ code: 1000 });
    await expect(client.sync.watermarks()).rejects.toMatchObject({ code: "ESHUTDOWN" });
    await client.close();
  });

  test("headers reach the upgrade (a bearer); without them the connect fails with EAUTH", async () => {
    const server = await serve(() => createWorkspaceServerFor(new SyncPeer(openNodeDatabase()), undefined), {
      authorization: "Bearer s3cret",
    });
    await expect(createWorkspaceClient({ url: server.url })).rejects.toMatchObject({ code: "EAUTH" });
    const client = await createWorkspaceClient({ url: server.url, headers: { authorization: "Bearer s3cret" } });
    await client.sync.watermarks();
    expect(server.requests.at(-1)?.headers.authorization).toBe("Bearer s3cret");
    await client.close();
  });

  test("runs on a socket the caller opened, and accepts http:// URLs", async () => {
    const server = await serve(() => createWorkspaceServerFor(new SyncPeer(openNodeDatabase()), undefined));
    const socket = new WebSocket(server.url);
    const onSocket = await createWorkspaceClient({ socket });
    await expect(onSocket.sync.readEntry("/workspace/missing")).resolves.toBeNull();
    await onSocket.close();
    expect(socket.readyState).toBe(WebSocket.CLOSED);
    const overHttp = await createWorkspaceClient({ url: server.url.replace("ws:", "http:") });
    await expect(overHttp.sync.watermarks()).resolves.toMatchObject({ pushRev: 0 });
    await overHttp.close();
  });

  test("an unreachable server rejects the connect with ESHUTDOWN", async () => {
    const server = await serve(() => ({}));
    const url = server.url;
    await server.close();
    servers.length = 0;
    await expect(createWorkspaceClient({ url })).rejects.toMatchObject({ code: "ESHUTDOWN", syscall: "connect" });
  });
});

describe("createSyncClient", () => {
  test("talks to a session whose main is createSyncServer(peer)", async () => {
    const server = await serve(() => createSyncServer(new SyncPeer(openNodeDatabase())));
    const client = await createSyncClient({ url: server.url });
    const changes = new ReadableStream<ChangeEntry>({
      start(controller) {
        controller.enqueue({ kind: "dir", rev: 1, path: "/workspace/a", mode: 0o755, mtime: 1 });
        controller.close();
      },
    });
    await expect(client.sync.push({ senderRev: 0, changes })).resolves.toMatchObject({ applied: 1 });
    await expect(client.sync.readEntry("/workspace/a")).resolves.toMatchObject({ kind: "dir", path: "/workspace/a" });
    await client.close();
    await client.close();
  });
});
