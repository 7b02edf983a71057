#!/usr/bin/env node
// `npm run dev`: wrangler dev on 127.0.0.1 at $PORT (default 8787), quiet and
// with its config kept inside the repository.
import { fileURLToPath } from "node:url";
import { runWranglerDev } from "@cloudflare/computerd/dev";

await runWranglerDev({ root: fileURLToPath(new URL("..", import.meta.url)) });
