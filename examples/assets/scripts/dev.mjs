#!/usr/bin/env node
// `npm run dev`: `wrangler dev --local` on 127.0.0.1 at $PORT (default 8787)
// with the local stand-ins switched on. `--local` because the AI binding is
// remote-only (wrangler would want a Cloudflare login); the vars make the
// Worker draw images with its local model and presign URLs for its own
// `/local-r2/` route with throwaway credentials made for this run (R2 itself,
// the bucket binding, is Miniflare's local simulation).
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { runWranglerDev } from "@cloudflare/computerd/dev";

const port = process.env.PORT ?? "8787";
await runWranglerDev({
  root: fileURLToPath(new URL("..", import.meta.url)),
  port,
  vars: {
    LOCAL_STAND_INS: "1",
    R2_ENDPOINT: `http://127.0.0.1:${port}/local-r2`,
    R2_ACCESS_KEY_ID: `local-${randomBytes(6).toString("hex")}`,
    R2_SECRET_ACCESS_KEY: randomBytes(24).toString("hex"),
  },
  args: ["--local"],
});
