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
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { runWranglerDev } from "@cloudflare/computerd/dev";

const example = fileURLToPath(new URL("..", import.meta.url));
const persistTo = resolve(process.env.PERSIST_TO ?? join(example, "..", "..", ".cache", "console"));
mkdirSync(persistTo, { recursive: true });

const { url, child } = await runWranglerDev({
  root: example,
  containerHost: true,
  secrets: {
    OPENAI_BASE_URL: process.env.OPENAI_BASE_URL,
    OPENAI_API_KEY: process.env.OPENAI_API_KEY,
    OPENAI_MODEL: process.env.OPENAI_MODEL,
  },
  // No hotkey prompt: Ctrl-C is a plain SIGINT to this script and wrangler alike.
  args: ["--persist-to", persistTo, "--show-interactive-dev-session=false"],
});

// wrangler says "Ready" before the first request is served; announce the console once it answers.
while (child.exitCode === null && child.signalCode === null) {
  try {
    const response = await fetch(`${url}api/model`);
    await response.body?.cancel();
    if (response.ok) {
      console.log(`\n  console ready: ${url}  (files persist in ${persistTo}; Ctrl-C stops everything)\n`);
      break;
    }
  } catch {
    // not up yet
  }
  await new Promise((done) => setTimeout(done, 250));
}
