// Entry of `pnpm bench`: bundles the TypeScript runner (Node) and the bench
// Durable Object (workerd) with esbuild straight from src/, so no prior build
// is needed, then runs the runner. Arguments pick drivers:
// `node bench/run.mjs node-file workerd` (default: all).
import { mkdir } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const bench = fileURLToPath(new URL(".", import.meta.url));
const out = `${bench}.cache/`;
await mkdir(out, { recursive: true });

const common = { bundle: true, format: "esm", target: "es2022", logLevel: "warning" };
await Promise.all([
  build({
    ...common,
    entryPoints: [`${bench}run.node.ts`],
    outfile: `${out}run.node.mjs`,
    platform: "node",
    // better-sqlite3 (native), miniflare and esbuild load from node_modules at run time.
    packages: "external",
  }),
  build({
    ...common,
    entryPoints: [`${bench}bench-object.worker.ts`],
    outfile: `${out}bench-object.worker.mjs`,
    platform: "neutral",
    external: ["cloudflare:*"],
  }),
]);

const { main } = await import(pathToFileURL(`${out}run.node.mjs`).href);
await main({
  workerScript: `${out}bench-object.worker.mjs`,
  resultsDir: `${bench}results`,
  only: process.argv.slice(2),
});
