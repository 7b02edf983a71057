#!/usr/bin/env node
// `npm run dev`: the local Artifacts host (scripts/artifacts-host.mjs, the
// stand-in for Cloudflare Artifacts, with a starter source repository) on a
// free port of 127.0.0.1, then `wrangler dev --local` on 127.0.0.1 at $PORT
// (default 8787) with --var ARTIFACTS_LOCAL_URL (the host) and SOURCE_REPO
// ($SOURCE_REPO, else the host's starter). `--local` because the Artifacts
// binding is remote-only: without it wrangler would want a Cloudflare login.
// Ctrl-C / SIGTERM stops wrangler, then the host (its repositories are
// temporary and go with it).
//
// Needs git (with `git http-backend`) and the packages built.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startArtifactsHost } from "./artifacts-host.mjs";

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

const host = await startArtifactsHost();
const source = process.env.SOURCE_REPO || host.starterUrl;
console.log(`[artifacts] local Artifacts stand-in on ${host.url}; new repositories start from ${source}`);

// wrangler's own bin, not npx: a signal from this process then reaches wrangler itself.
const wrangler = createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js");
const child = spawn(
  process.execPath,
  [
    wrangler,
    "dev",
    "--local",
    "--ip",
    "127.0.0.1",
    "--port",
    port,
    "--inspector-port",
    inspectorPort,
    "--var",
    `ARTIFACTS_LOCAL_URL:${host.url}`,
    "--var",
    `SOURCE_REPO:${source}`,
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
