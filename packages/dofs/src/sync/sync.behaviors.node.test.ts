import { defineSyncBehaviours } from "../../test/sync-suite.js";

// The same suite runs over a real capnweb WebSocket in @cloudflare/computer-rpc.
defineSyncBehaviours("sync behaviours (in-process peer)", async (peer) => ({ remote: peer, close: async () => {} }));
