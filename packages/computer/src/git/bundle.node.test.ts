/**
 * isomorphic-git stays out of every bundle but `./git`'s: a Worker that
 * imports `@cloudflare/computer` (or `./artifacts`) must not carry it.
 * Workers-only modules are left external; everything else is bundled.
 */
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

async function bundle(entry: string): Promise<string> {
  const result = await build({
    entryPoints: [new URL(entry, import.meta.url).pathname],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    conditions: ["workerd", "worker", "browser"],
    external: ["cloudflare:*", "node:*"],
    logLevel: "silent",
  });
  return result.outputFiles.map((file) => file.text).join("\n");
}

// Strings that only isomorphic-git's own code contains.
const ISOMORPHIC_GIT = /GitWalkerRepo|GitPackIndex|isomorphic-git/;

describe("bundles", () => {
  it("the main entry and ./artifacts do not contain isomorphic-git", async () => {
    for (const entry of ["../index.ts", "../artifacts/index.ts"]) {
      expect(await bundle(entry)).not.toMatch(ISOMORPHIC_GIT);
    }
  });

  it("./git does (so the check above can fail)", async () => {
    expect(await bundle("./index.ts")).toMatch(ISOMORPHIC_GIT);
  });
});
