// Bad sync input answered by a Durable Object: a SyncPeer on DO SQLite behind a WebSocketPair in workerd.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { openDurableObjectDatabase } from "@cloudflare/dofs";
import { SyncPeer } from "@cloudflare/dofs/sync";
import { describe } from "vitest";
import { defineBadSyncInput } from "../../test/sync-bad-input.js";
import { createWorkspaceClient } from "../client/index.js";
import { acceptWebSocketSession, createWorkspaceServerFor } from "./index.js";

describe("sync bad input, served from a Durable Object", () => {
  defineBadSyncInput(async (body) => {
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
        await body(client.sync);
      } finally {
        await client.close();
        await session.closed;
      }
    });
  });
});
