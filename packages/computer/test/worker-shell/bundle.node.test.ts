/**
 * A container-only Worker that imports the main entry of @cloudflare/computer
 * must not bundle just-bash or the shell's module groups: they live behind
 * `./backends/worker-shell` and `./shell/<group>` only. Behind
 * `./backends/worker-shell`, just-bash comes with `ShellWorker` alone.
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

/**
 * What bundling `contents` from the package root takes in: the modules that reach the output, and
 * whether it imports just-bash (kept external; the sandbox bundles come from source, so no dist/ is needed).
 */
async function bundled(contents: string): Promise<{ inputs: string[]; justBash: boolean }> {
  const result = await build({
    stdin: { contents, resolveDir: packageRoot, loader: "ts" },
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    metafile: true,
    external: ["cloudflare:*", "node:*", "just-bash"],
    plugins: [
      {
        name: "sandbox-from-source",
        setup(builder) {
          builder.onResolve({ filter: /^#sandbox\/worker-shell\// }, (args) => ({ path: args.path, external: true }));
          builder.onResolve({ filter: /^#sandbox\/shell-worker$/ }, () => ({
            path: join(packageRoot, "src", "backends", "worker-shell", "sandbox", "shell.ts"),
          }));
        },
      },
    ],
    logLevel: "error",
  });
  const [output] = Object.values(result.metafile.outputs);
  return {
    inputs: Object.entries(output?.inputs ?? {})
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path),
    justBash: output?.imports.some((imported) => imported.path === "just-bash") ?? false,
  };
}

test("the worker-shell backend bundles without just-bash; ShellWorker brings it", async () => {
  const backend = await bundled(`export { WorkerShellBackend } from "./src/backends/worker-shell/index.ts";`);
  expect(backend.justBash).toBe(false);
  expect(backend.inputs.some((path) => path.endsWith("sandbox/shell.ts"))).toBe(false);
  const shell = await bundled(`export { ShellWorker } from "./src/backends/worker-shell/index.ts";`);
  expect(shell.justBash).toBe(true);
  expect(shell.inputs.some((path) => path.endsWith("sandbox/shell.ts"))).toBe(true);
});
