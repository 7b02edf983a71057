/**
 * In-repo tests import the sibling packages' sources, never their `dist/`.
 * Consumers resolve `@cloudflare/dofs` & co. through package.json exports to
 * `dist/`, so without this, editing dofs and running `computer:node` would
 * silently test the last build. Each export whose target is
 * `./dist/<path>.js` maps to `./src/<path>.ts` when that file exists;
 * only the libraries below the others (dofs, rpc) are mapped: computer and
 * computerd ship generated bundles and a daemon binary that tests spawn from
 * `dist/`, and an in-process copy from `src/` next to them would be a second
 * version in one run.
 *
 * tsc gets the same mapping from `tsconfig.sources.json` (paths), which
 * `sibling-sources.test.ts` keeps equal to this one.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Plugin } from "vite";

const packagesDir = fileURLToPath(new URL("../packages/", import.meta.url));
/** Folders under packages/ whose exports resolve to sources in tests. */
export const SOURCE_PACKAGES = ["dofs", "rpc"];
/** Type-checked from source too (tsconfig.sources.json) but run from dist/: computerd's daemons are spawned from there. */
export const TYPE_SOURCE_PACKAGES = [...SOURCE_PACKAGES, "computerd"];

type ExportTarget = string | Record<string, string | undefined>;

/**
 * Import specifier (`@cloudflare/dofs/sync`) → absolute source file, for every
 * workspace package. `conditions` are tried before `default`, as the runtime
 * would: a Node project takes `node` targets (rpc's client installs `ws` there).
 */
export function siblingSourceMap(
  dirs: readonly string[] = SOURCE_PACKAGES,
  conditions: readonly string[] = [],
): Map<string, string> {
  const map = new Map<string, string>();
  for (const dir of dirs) {
    const manifestPath = join(packagesDir, dir, "package.json");
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
      name: string;
      exports?: Record<string, ExportTarget>;
    };
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      const built =
        typeof target === "string"
          ? target
          : [...conditions, "default"].map((condition) => target[condition]).find((file) => file !== undefined);
      if (!built?.startsWith("./dist/") || subpath.includes("*")) continue;
      const source = join(packagesDir, dir, built.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts"));
      if (existsSync(source)) map.set(manifest.name + subpath.slice(1), source);
    }
  }
  return map;
}

/** A Vite plugin (vitest uses Vite's resolver, in Node and in the workerd pool) applying the map. */
export function siblingSources(conditions: readonly string[] = []): Plugin {
  const map = siblingSourceMap(SOURCE_PACKAGES, conditions);
  return {
    name: "sibling-sources",
    enforce: "pre",
    resolveId(id) {
      return map.get(id) ?? null;
    },
  };
}
