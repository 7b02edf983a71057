#!/usr/bin/env node
// `npm run dev`: the local container host (what `computerd host` runs, here in
// this process) on 127.0.0.1:45600 — or a free port when that one is taken —
// and `wrangler dev --local` on 127.0.0.1 at $PORT (default 8787), with:
//   COMPUTER_CONTAINER_HOST  the host's URL (container-shell runs there),
//   WORKERS_AI=off           the AI binding needs a Cloudflare login locally,
//   OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL from this environment, when
//                            set, through a private .env file (wrangler then
//                            shows them as hidden instead of printing the key).
// With no OPENAI_BASE_URL the agent answers with its demo model (scripted, not
// an LLM). Ctrl-C / SIGTERM stops wrangler, then the host, which stops every
// container it started.
//
// Needs root (FUSE mounts, mount and pid namespaces) and the packages built.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_HOST_PORT, startHost } from "@cloudflare/computerd/host";

const here = dirname(fileURLToPath(import.meta.url));
const port = process.env.PORT ?? "8787";
const MODEL_VARIABLES = ["OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL"];

async function startContainerHost() {
  try {
    return await startHost({ port: DEFAULT_HOST_PORT });
  } catch (error) {
    if (error?.code !== "EADDRINUSE") throw error;
    return startHost({ port: 0 });
  }
}

/** A 0600 .env file with the model variables that are set, or undefined when none is. */
function modelEnvFile() {
  const lines = MODEL_VARIABLES.filter((name) => process.env[name]).map(
    (name) => `${name}=${JSON.stringify(process.env[name])}`,
  );
  if (lines.length === 0) return undefined;
  const dir = mkdtempSync(join(tmpdir(), "compare-dev-"));
  writeFileSync(join(dir, "model.env"), `${lines.join("\n")}\n`, { mode: 0o600 });
  return dir;
}

const host = await startContainerHost();
const envDir = modelEnvFile();
if (!process.env.OPENAI_BASE_URL) {
  console.log("[compare] no OPENAI_BASE_URL: both runs use the demo model (scripted, not an LLM)");
}
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
    "--var",
    `COMPUTER_CONTAINER_HOST:${host.url}`,
    "--var",
    "WORKERS_AI:off",
    ...(envDir ? ["--env-file", join(envDir, "model.env")] : []),
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
  if (envDir) rmSync(envDir, { recursive: true, force: true });
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
