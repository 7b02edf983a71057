/**
 * dofs' sync behavior suite, run against a real SyncPeer behind a capnweb
 * WebSocket on 127.0.0.1 (the in-process run lives in dofs). Every call,
 * stream and error code of the suite crosses the wire.
 */

import { defineSyncBehaviors } from "../../dofs/test/sync-suite.js";
import { startTestServer } from "../test/harness.node.js";
import { createSyncClient } from "./client/index.node.js";
import { createSyncServer } from "./server/index.js";

defineSyncBehaviors("sync behaviors over a capnweb WebSocket", async (peer) => {
  const server = await startTestServer(() => createSyncServer(peer));
  const client = await createSyncClient({ url: server.url });
  return {
    remote: client.sync,
    async close() {
      await client.close();
      await server.close();
    },
  };
});
