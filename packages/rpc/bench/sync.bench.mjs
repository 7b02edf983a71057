// Entry of `pnpm bench:sync`: bundles the TypeScript runner and its two child
// processes (peer and Node driver) with esbuild straight from src/ and test/,
// so no prior build of this package is needed (dofs comes from its dist/),
// then runs the runner. Arguments pick pairs: `node bench/sync.bench.mjs node`
// or `… workerd` (default: both).
import { mkdir } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const bench = fileURLToPath(new URL(".", import.meta.url));
const out = `${bench}.cache/`;
await mkdir(out, { recursive: true });

await build({
  entryPoints: [`${bench}sync.node.ts`, `${bench}sync-peer.node.ts`, `${bench}sync-driver.node.ts`],
  outdir: out,
  outExtension: { ".js": ".mjs" },
  bundle: true,
  format: "esm",
  target: "es2022",
  platform: "node",
  // better-sqlite3 (native), ws, capnweb, miniflare and esbuild load from node_modules at run time.
  packages: "external",
  logLevel: "warning",
  // The build config, not the type-check one: its sibling `paths` point at dofs' sources, whose
  // bundled better-sqlite3 import would then resolve from .cache/ and fail.
  tsconfig: fileURLToPath(new URL("../tsconfig.build.json", import.meta.url)),
});

const { main } = await import(pathToFileURL(`${out}sync.node.mjs`).href);
await main({
  workerEntry: fileURLToPath(new URL("../test/sync-object.worker.ts", import.meta.url)),
  cacheDir: out,
  peerScript: `${out}sync-peer.node.mjs`,
  driverScript: `${out}sync-driver.node.mjs`,
  resultsDir: `${bench}results`,
  only: process.argv.slice(2),
});
