import { defineSyncBehaviors } from "../../test/sync-suite.js";

// The same suite runs over a real capnweb WebSocket in @cloudflare/computer-rpc.
defineSyncBehaviors("sync behaviors (in-process peer)", async (peer) => ({ remote: peer, close: async () => {} }));
