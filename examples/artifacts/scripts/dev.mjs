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
import { fileURLToPath } from "node:url";
import { runWranglerDev } from "@cloudflare/computerd/dev";
import { startArtifactsHost } from "./artifacts-host.mjs";

const host = await startArtifactsHost();
const source = process.env.SOURCE_REPO || host.starterUrl;
console.log(`[artifacts] local Artifacts stand-in on ${host.url}; new repositories start from ${source}`);
await runWranglerDev({
  root: fileURLToPath(new URL("..", import.meta.url)),
  vars: { ARTIFACTS_LOCAL_URL: host.url, SOURCE_REPO: source },
  args: ["--local"],
  onStop: () => host.close(),
});
