/**
 * A container-only Worker that imports the main entry of @cloudflare/computer
 * must not bundle just-bash or the shell's module groups: they live behind
 * `./backends/worker-shell` and `./shell/<group>` only.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { expect, test } from "vitest";

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

test("the main entry bundles without just-bash", async () => {
  const result = await build({
    stdin: {
      contents: `export { Workspace, WorkspaceServiceProxy, withWorkspace } from "./src/index.ts";`,
      resolveDir: packageRoot,
      loader: "ts",
    },
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    metafile: true,
    external: ["cloudflare:*", "node:*"],
    logLevel: "silent",
  });
  const inputs = Object.keys(result.metafile.inputs);
  expect(inputs.some((path) => path.includes("just-bash"))).toBe(false);
  expect(inputs.some((path) => path.includes("worker-shell"))).toBe(false);
  const text = result.outputFiles.map((file) => file.text).join("");
  expect(text).not.toContain("executionLimits.maxOutputSize");
});
