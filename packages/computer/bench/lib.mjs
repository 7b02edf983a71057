/**
 * What the computer benches share: a Worker module bundled for workerd from
 * inline source (so a bench needs no files of its own), a Miniflare around it,
 * and percentiles. Benches report; they never assert.
 */
import { build } from "esbuild";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";

/** The compatibility date of every bench Worker: not newer than the pinned workerd's. */
export const COMPATIBILITY_DATE = "2026-11-17";

/** Bundles `contents` (an ES module importing `@cloudflare/computer…`) the way wrangler would for workerd. */
export async function bundleWorker(contents, resolveDir) {
  const bundled = await build({
    stdin: { contents, resolveDir, loader: "js" },
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "import"],
    external: ["cloudflare:workers", "node:*"],
    logLevel: "warning",
  });
  return bundled.outputFiles[0].text;
}

/** A Miniflare running `contents` with a SQLite-backed Durable Object class `Bench` bound as `BENCH`. */
export async function benchWorker(contents, resolveDir, options = {}) {
  // Miniflare 5 takes a config-shaped form; these are the v4 options it converts.
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      modules: true,
      script: await bundleWorker(contents, resolveDir),
      compatibilityDate: COMPATIBILITY_DATE,
      compatibilityFlags: ["nodejs_compat"],
      durableObjects: { BENCH: { className: "Bench", useSQLite: true } },
      ...options,
    }),
  );
  await mf.ready;
  return mf;
}

/** The p-th percentile (nearest rank) of `times`. */
export function percentile(times, p) {
  const sorted = [...times].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function p50p95(times) {
  return { p50: percentile(times, 50), p95: percentile(times, 95) };
}
