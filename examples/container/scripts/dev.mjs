#!/usr/bin/env node
// `npm run dev`: the local container host (what `computerd host` runs, here in
// this process) on 127.0.0.1:45600 — or a free port when that one is taken —
// and `wrangler dev` on 127.0.0.1 at $PORT (default 8787) with the host's URL
// passed as the COMPUTER_CONTAINER_HOST variable (dev only; a deploy never
// sees it). Ctrl-C / SIGTERM stops wrangler, then the host, which stops every
// container it started (and so unmounts their /workspace).
//
// Needs root (FUSE mounts, mount and pid namespaces) and the packages built.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_HOST_PORT, startHost } from "@cloudflare/computerd/host";

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

async function startContainerHost() {
  try {
    return await startHost({ port: DEFAULT_HOST_PORT });
  } catch (error) {
    if (error?.code !== "EADDRINUSE") throw error;
    return startHost({ port: 0 });
  }
}

const host = await startContainerHost();
// wrangler's own bin, not npx: a signal from this process then reaches wrangler itself.
const wrangler = createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js");
const child = spawn(
  process.execPath,
  [
    wrangler,
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    port,
    "--inspector-port",
    inspectorPort,
    "--var",
    `COMPUTER_CONTAINER_HOST:${host.url}`,
  ],
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

let stopping = false;
/** The exit code of the signal that asked us to stop, if one did (wrangler itself exits 0 on it). */
let signalled;
async function stop(code) {
  if (stopping) return;
  stopping = true;
  await host.close();
  process.exit(signalled ?? code);
}
for (const [signal, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
]) {
  process.on(signal, () => {
    signalled ??= code;
    // wrangler stops on its own signal; the host is closed once it has exited (below).
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    else void stop(code);
  });
}
child.on("exit", (code) => void stop(code ?? 1));
