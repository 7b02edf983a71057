import { FS_ERROR_CODES, type FsErrorCode, WorkspaceFsError } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { type ChangeEntry, SyncPeer, type SyncRPC } from "@cloudflare/dofs/sync";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { FakeRunner } from "../test/fake-runner.js";
import { startTestServer, type TestServer } from "../test/harness.node.js";
import { createWorkspaceClient, type WorkspaceClient } from "./client/index.node.js";
import { isWireErrorCode, rpcError, WIRE_ERROR_CODES, type WireErrorCode, WorkspaceRpcError } from "./errors.js";
import { createWorkspaceServerFor } from "./server/index.js";

/**
 * A real SyncPeer whose `readEntry("/<CODE>")` throws that code: a wire code as WorkspaceRpcError, else as
 * WorkspaceFsError; `readEntry("/type-error")` throws a TypeError without a code.
 */
class ThrowingPeer extends SyncPeer implements SyncRPC {
  override async readEntry(path: string): Promise<ChangeEntry | null> {
    const code = path.slice(1);
    if (path.startsWith("/fs/")) throw new WorkspaceFsError(path.slice(4) as FsErrorCode, "open", path);
    if (isWireErrorCode(code)) throw rpcError(code, "readEntry", path);
    if (path === "/type-error") throw new TypeError("a plain TypeError");
    return super.readEntry(path);
  }
}

const wireCodes = Object.keys(WIRE_ERROR_CODES) as WireErrorCode[];
const fsCodes = Object.keys(FS_ERROR_CODES) as FsErrorCode[];

describe("wire errors over a real WebSocket", () => {
  let server: TestServer;
  let client: WorkspaceClient;

  beforeAll(async () => {
    const peer = new ThrowingPeer(openNodeDatabase());
    const runner = new FakeRunner();
    server = await startTestServer(() => createWorkspaceServerFor(peer, runner));
    client = await createWorkspaceClient({ url: server.url });
  });

  afterAll(async () => {
    await client.close();
    await server.close();
  });

  test.each(wireCodes)("%s thrown by the server arrives as a WorkspaceRpcError with its code", async (code) => {
    const error = await client.sync.readEntry(`/${code}`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkspaceRpcError);
    expect(error).toMatchObject({ code, path: `/${code}`, syscall: "readEntry", name: "WorkspaceRpcError" });
    expect((error as Error).message).toBe(rpcError(code, "readEntry", `/${code}`).message);
  });

  test.each(fsCodes)("dofs' WorkspaceFsError %s arrives as a WorkspaceFsError with its code", async (code) => {
    const error = await client.sync.readEntry(`/fs/${code}`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkspaceFsError);
    expect(error).toMatchObject({ code, path: `/fs/${code}`, syscall: "open" });
    expect((error as Error).message).toBe(new WorkspaceFsError(code, "open", `/fs/${code}`).message);
  });

  test("EUNKNOWN_HASH from a real SyncPeer, before and inside a stream", async () => {
    const unknown = new Uint8Array(32).fill(7);
    await expect(client.sync.fetchObjects([unknown])).rejects.toMatchObject({ code: "EUNKNOWN_HASH" });
    const frames = new ReadableStream({
      start(controller) {
        controller.enqueue({ hash: unknown, bytes: new Uint8Array([1, 2, 3]) });
        controller.close();
      },
    });
    const error = await client.sync.pushObjects(frames).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkspaceFsError);
    expect(error).toMatchObject({ code: "EUNKNOWN_HASH", syscall: "pushObjects" });
  });

  test("an error that ends a returned stream keeps its code and class", async () => {
    const handle = await client.shell.getExec({ id: "truncated-mid-stream" });
    // capnweb forwards a source error as an abort of the remote writable, which
    // discards events the receiver has not read yet: read until the error.
    const error = await (async () => {
      for await (const _event of handle.events);
    })().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "ELOG_TRUNCATED", path: "truncated-mid-stream" });
    expect(error).toBeInstanceOf(WorkspaceRpcError);
  });

  test("errors without a code keep capnweb's own shape (a TypeError stays a TypeError)", async () => {
    const error = await client.sync.readEntry("/type-error").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TypeError);
    expect(error).not.toHaveProperty("code");
  });

  test("a stack never crosses the wire", async () => {
    const error = (await client.sync.readEntry("/EPROTOCOL").catch((caught: unknown) => caught)) as Error;
    expect(error.stack).not.toContain("ThrowingPeer");
  });
});
