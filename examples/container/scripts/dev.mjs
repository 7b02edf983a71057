#!/usr/bin/env node
// `npm run dev`: the local container host (what `computerd host` runs, here in
// this process) on 127.0.0.1:45600 — or a free port when that one is taken —
// and `wrangler dev` on 127.0.0.1 at $PORT (default 8787) with the host's URL
// passed as the COMPUTER_CONTAINER_HOST variable (dev only; a deploy never
// sees it). Ctrl-C / SIGTERM stops wrangler, then the host, which stops every
// container it started (and so unmounts their /workspace).
//
// Needs root (FUSE mounts, mount and pid namespaces) and the packages built.
import { fileURLToPath } from "node:url";
import { runWranglerDev } from "@cloudflare/computerd/dev";

await runWranglerDev({ root: fileURLToPath(new URL("..", import.meta.url)), containerHost: true });
