/**
 * The Worker entry must never pull native code: a Durable Object bundles
 * `@cloudflare/dofs` (and `@cloudflare/dofs/sync`), and better-sqlite3 or any
 * `node:` builtin there would break `wrangler deploy` without nodejs_compat.
 */
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

async function bundle(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [new URL(entry, import.meta.url).pathname],
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    // Anything unresolvable on a neutral platform (native modules, node: builtins) fails the build.
    logLevel: "silent",
  });
  return result.outputFiles.map((file) => file.text).join("\n");
}

describe("Worker bundles of dofs", () => {
  it("the root entry and ./sync bundle for a neutral platform, free of better-sqlite3 and node: imports", async () => {
    for (const [entry, name] of [
      ["./index.ts", "WorkspaceFilesystem = class"],
      ["./sync.ts", "SyncPeer = class"],
    ] as const) {
      const code = await bundle(entry);
      expect(code).toContain(name);
      expect(code).not.toMatch(/better-sqlite3|from "node:|require\("node:/);
    }
  });

  it("the ./node entry is the one that needs better-sqlite3 (so the check above can fail)", async () => {
    await expect(bundle("./node.ts")).rejects.toThrow();
  });
});
