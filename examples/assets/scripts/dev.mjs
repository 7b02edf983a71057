#!/usr/bin/env node
// `npm run dev`: `wrangler dev --local` on 127.0.0.1 at $PORT (default 8787)
// with the local stand-ins switched on. `--local` because the AI binding is
// remote-only (wrangler would want a Cloudflare login); the vars make the
// Worker draw images with its local model and presign URLs for its own
// `/local-r2/` route with throwaway credentials made for this run (R2 itself,
// the bucket binding, is Miniflare's local simulation).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** A port nobody listens on now: wrangler's inspector default, 9229, is taken by any other `wrangler dev`. */
async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port: free } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return String(free);
}
const inspectorPort = process.env.INSPECTOR_PORT ?? (await freePort());

const here = dirname(fileURLToPath(import.meta.url));
const port = process.env.PORT ?? "8787";
const vars = {
  LOCAL_STAND_INS: "1",
  R2_ENDPOINT: `http://127.0.0.1:${port}/local-r2`,
  R2_ACCESS_KEY_ID: `local-${randomBytes(6).toString("hex")}`,
  R2_SECRET_ACCESS_KEY: randomBytes(24).toString("hex"),
};
// wrangler's own bin, not npx: a signal to this process then reaches wrangler itself.
const wrangler = createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js");
const args = ["dev", "--local", "--ip", "127.0.0.1", "--port", port, "--inspector-port", inspectorPort];
for (const [key, value] of Object.entries(vars)) args.push("--var", `${key}:${value}`);
const child = spawn(process.execPath, [wrangler, ...args], {
  cwd: join(here, ".."),
  stdio: "inherit",
  env: {
    ...process.env,
    WRANGLER_SEND_METRICS: "false",
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME ?? join(here, "..", "..", "..", ".cache", "xdg"),
  },
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => process.exit(code ?? 1));
