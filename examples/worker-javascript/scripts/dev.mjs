#!/usr/bin/env node
// `npm run dev`: wrangler dev on 127.0.0.1 at $PORT (default 8787), quiet and
// with its config kept inside the repository.
import { spawn } from "node:child_process";
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
// wrangler's own bin, not npx: a signal to this process then reaches wrangler itself.
const wrangler = createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js");
const child = spawn(
  process.execPath,
  [wrangler, "dev", "--ip", "127.0.0.1", "--port", port, "--inspector-port", inspectorPort],
  {
    cwd: join(here, ".."),
    stdio: "inherit",
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME ?? join(here, "..", "..", "..", ".cache", "xdg"),
    },
  },
);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => process.exit(code ?? 1));
