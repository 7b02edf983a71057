#!/usr/bin/env node
// `npm run dev` (and the repository's `npm start`): the local container host
// (what `computerd host` runs, here in this process) on 127.0.0.1:45600 — or
// a free port when that one is taken — and `wrangler dev` on 127.0.0.1 at
// $PORT (default 8787) with the host's URL passed as COMPUTER_CONTAINER_HOST,
// the Durable Objects persisted under $PERSIST_TO (default <repo>/.cache/console)
// so a restart keeps the files. Prints the console's URL once it answers.
//
// OPENAI_BASE_URL / OPENAI_API_KEY / OPENAI_MODEL, when set, reach the Worker
// through an env file (wrangler shows such values as hidden; a --var would be
// printed in full). Ctrl-C / SIGTERM stops wrangler, then the host, which
// stops every container it started (and so unmounts their /workspace).
//
// Needs root (FUSE mounts, mount and pid namespaces) and the packages built.
import { spawn } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
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
const example = join(here, "..");
const repo = join(example, "..", "..");
const port = process.env.PORT ?? "8787";
const persistTo = resolve(process.env.PERSIST_TO ?? join(repo, ".cache", "console"));
const MODEL_VARIABLES = ["OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL"];

async function startContainerHost() {
  try {
    return await startHost({ port: DEFAULT_HOST_PORT });
  } catch (error) {
    if (error?.code !== "EADDRINUSE") throw error;
    return startHost({ port: 0 });
  }
}

/** The model settings as a private env file for wrangler, or no arguments when none are set. */
function modelEnvFile() {
  const lines = MODEL_VARIABLES.filter((name) => process.env[name]).map(
    (name) => `${name}=${JSON.stringify(process.env[name])}`,
  );
  if (lines.length === 0) return { args: [], cleanup() {} };
  const dir = join(repo, ".cache", "console-env");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${process.pid}.env`);
  writeFileSync(file, `${lines.join("\n")}\n`, { mode: 0o600 });
  return { args: ["--env-file", file], cleanup: () => rmSync(file, { force: true }) };
}

mkdirSync(persistTo, { recursive: true });
const host = await startContainerHost();
const envFile = modelEnvFile();
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
    "--persist-to",
    persistTo,
    "--var",
    `COMPUTER_CONTAINER_HOST:${host.url}`,
    // No hotkey prompt: Ctrl-C is a plain SIGINT to this script and wrangler alike.
    "--show-interactive-dev-session=false",
    ...envFile.args,
  ],
  {
    cwd: example,
    stdio: "inherit",
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME ?? join(repo, ".cache", "xdg"),
    },
  },
);

const url = `http://127.0.0.1:${port}/`;
void (async () => {
  // wrangler says "Ready" before the first request is served; announce the console once it answers.
  while (child.exitCode === null && child.signalCode === null) {
    try {
      const response = await fetch(`${url}api/model`);
      await response.body?.cancel();
      if (response.ok) {
        console.log(`\n  console ready: ${url}  (files persist in ${persistTo}; Ctrl-C stops everything)\n`);
        return;
      }
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
})();

let stopping = false;
/** The exit code of the signal that asked us to stop, if one did (wrangler itself exits 0 on it). */
let signalled;
async function stop(code) {
  if (stopping) return;
  stopping = true;
  envFile.cleanup();
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
