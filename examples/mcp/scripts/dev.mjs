#!/usr/bin/env node
// `npm run dev`: the local container host (what `computerd host` runs, here in
// this process) on 127.0.0.1:45600 — or a free port when that one is taken —
// and `wrangler dev` on 127.0.0.1 at $PORT (default 8787) with the host's URL
// passed as the COMPUTER_CONTAINER_HOST variable (dev only; a deploy never
// sees it). $MCP_TOKEN, when set, becomes the MCP_TOKEN variable
// (`MCP_TOKEN=secret npm run dev`; a `.dev.vars` file works too). Ctrl-C /
// SIGTERM stops wrangler, then the host, which stops every container it
// started (and so unmounts their /workspace).
//
// Needs the packages built; commands on container-shell need root (FUSE mounts, mount and pid namespaces).
import { fileURLToPath } from "node:url";
import { runWranglerDev } from "@cloudflare/computerd/dev";

await runWranglerDev({
  root: fileURLToPath(new URL("..", import.meta.url)),
  containerHost: true,
  secrets: { MCP_TOKEN: process.env.MCP_TOKEN },
});
