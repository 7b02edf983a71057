// Bad sync input over computerd's transport: `ws` on 127.0.0.1 (the same answers in workerd: sync-checks.worker.test.ts).
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { SyncPeer } from "@cloudflare/dofs/sync";
import { describe } from "vitest";
import { startTestServer } from "../../test/harness.node.js";
import { defineBadSyncInput } from "../../test/sync-bad-input.js";
import { createWorkspaceClient } from "../client/index.node.js";
import { createWorkspaceServerFor } from "./index.js";

describe("sync bad input, served from Node", () => {
  defineBadSyncInput(async (body) => {
    const server = await startTestServer(() => createWorkspaceServerFor(new SyncPeer(openNodeDatabase()), undefined));
    const client = await createWorkspaceClient({ url: server.url });
    try {
      await body(client.sync);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
