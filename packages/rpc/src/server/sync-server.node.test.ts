import { openNodeDatabase } from "@cloudflare/dofs/node";
import { type ChangeEntry, SyncPeer } from "@cloudflare/dofs/sync";
import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { startTestServer, type TestServer } from "../../test/harness.node.js";
import { createSyncClient, type SyncClient } from "../client/index.node.js";
import { createSyncServer } from "./index.js";

let server: TestServer;
let client: SyncClient;

beforeAll(async () => {
  server = await startTestServer(() => createSyncServer(new SyncPeer(openNodeDatabase())));
  client = await createSyncClient({ url: server.url });
});

afterAll(async () => {
  await client.close();
  await server.close();
});

test("a stream argument the peer never read is canceled, so the caller's pipe ends", async () => {
  let canceled: unknown;
  let pulls = 0;
  const changes = new ReadableStream<ChangeEntry>({
    pull(controller) {
      pulls++;
      controller.enqueue({ kind: "delete", rev: 1, path: `/workspace/${pulls}` });
    },
    cancel(reason) {
      canceled = reason;
    },
  });
  // A negative senderRev is refused before anything reads `changes`.
  await expect(client.sync.push({ senderRev: -1, changes })).rejects.toMatchObject({ code: "EPROTOCOL" });
  // The cancel crosses the socket after the rejection: wait for it, with a deadline.
  await vi.waitFor(() => expect(String(canceled)).toContain("push returned before reading the whole stream"), {
    timeout: 5_000,
    interval: 10,
  });
});

test("a request that is not an object fails with EPROTOCOL", async () => {
  await expect(client.sync.push(null as never)).rejects.toMatchObject({ code: "EPROTOCOL", syscall: "push" });
  await expect(client.sync.pushObjects("x" as never)).rejects.toMatchObject({ code: "EPROTOCOL" });
});
