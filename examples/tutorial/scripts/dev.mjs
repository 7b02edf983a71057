#!/usr/bin/env node
// `npm run dev`: the local container host (what `computerd host` runs, here in
// this process) on 127.0.0.1:45600 — or a free port when that one is taken —
// and `wrangler dev --local` on 127.0.0.1 at $PORT (default 8787), with:
//   COMPUTER_CONTAINER_HOST  the host's URL (container-shell runs there, with
//                            this machine's pandoc and groff),
//   LOCAL_R2_ENDPOINT        http://127.0.0.1:$PORT/_r2: published PDFs get URLs
//                            signed for the Worker's stand-in for R2's S3 API,
//   WORKERS_AI=off           the AI binding needs a Cloudflare login locally,
//   OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL from this environment, when
//                            set, through a private .env file (wrangler then
//                            shows them as hidden instead of printing the key).
// With no OPENAI_BASE_URL the agent answers with its demo model (scripted, not
// an LLM). Ctrl-C / SIGTERM stops wrangler, then the host, which stops every
// container it started.
//
// Needs root (FUSE mounts, mount and pid namespaces), the packages built, and
// pandoc and groff (scripts/setup at the repository root installs them).
import { fileURLToPath } from "node:url";
import { runWranglerDev } from "@cloudflare/computerd/dev";

const MODEL_VARIABLES = ["OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL"];

if (!process.env.OPENAI_BASE_URL) {
  console.log("[tutorial] no OPENAI_BASE_URL: POST /prompt uses the demo model (scripted, not an LLM)");
}
const port = process.env.PORT ?? "8787";
await runWranglerDev({
  root: fileURLToPath(new URL("..", import.meta.url)),
  port,
  containerHost: true,
  vars: { LOCAL_R2_ENDPOINT: `http://127.0.0.1:${port}/_r2`, WORKERS_AI: "off" },
  secrets: Object.fromEntries(MODEL_VARIABLES.map((name) => [name, process.env[name]])),
  args: ["--local"],
});
