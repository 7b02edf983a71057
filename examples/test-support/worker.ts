/**
 * An example's Worker under Miniflare, bundled from its `src/index.ts` the way
 * wrangler would (esbuild, the workerd conditions). Needs the packages built
 * (`dist/`), like any consumer of them; `npm test` builds first.
 */
import { builtinModules } from "node:module";
import { join } from "node:path";
import { build, type Plugin } from "esbuild";
import { Miniflare, type MiniflareOptions } from "miniflare";
import { afterAll, beforeAll } from "vitest";

export interface ExampleWorker {
  request(path: string, init?: RequestInit): Promise<Response>;
  /** `POST /c/<name>/exec` with a JSON body. */
  exec(name: string, body: unknown): Promise<Response>;
  dispose(): Promise<void>;
}

export async function bundleExample(example: string): Promise<string> {
  const result = await build({
    entryPoints: [join(example, "src", "index.ts")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "import"],
    external: ["cloudflare:workers"],
    plugins: [nodeBuiltins],
    logLevel: "warning",
  });
  return result.outputFiles[0]?.text ?? "";
}

const BUILTIN = new RegExp(`^(node:)?(${builtinModules.map((name) => name.replace(/[/]/g, "\\/")).join("|")})$`);

/**
 * nodejs_compat as wrangler bundles it: Node's built-ins (`node:fs` or plain
 * `fs`) stay imports for workerd to provide, and a CommonJS `require` of one
 * becomes an import too — esbuild would otherwise leave a `require` that
 * throws in an ES module (the AI SDK's dependencies do this).
 */
const nodeBuiltins: Plugin = {
  name: "node-builtins",
  setup(build) {
    build.onResolve({ filter: BUILTIN }, ({ path, kind }) => {
      const name = path.startsWith("node:") ? path : `node:${path}`;
      return kind === "require-call" ? { path: name, namespace: "node-require" } : { path: name, external: true };
    });
    build.onLoad({ filter: /.*/, namespace: "node-require" }, ({ path }) => ({
      contents: `import * as builtin from ${JSON.stringify(path)}; module.exports = builtin.default ?? builtin;`,
      loader: "js",
    }));
  },
};

/** Serves the example with a SQLite Durable Object class `Computer` bound as `COMPUTER`, plus `options`. */
export async function startExampleWorker(
  example: string,
  options: Partial<MiniflareOptions> = {},
): Promise<ExampleWorker> {
  const mf = new Miniflare({
    modules: true,
    script: await bundleExample(example),
    compatibilityDate: "2026-04-26",
    compatibilityFlags: ["nodejs_compat"],
    durableObjects: { COMPUTER: { className: "Computer", useSQLite: true } },
    ...options,
  } as MiniflareOptions);
  await mf.ready;
  const request = (path: string, init?: RequestInit): Promise<Response> =>
    mf.dispatchFetch(`http://example.test${path}`, init as never) as unknown as Promise<Response>;
  return {
    request,
    exec: (name, body) =>
      request(`/c/${name}/exec`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
    dispose: () => mf.dispose(),
  };
}

/**
 * Starts the example's Worker for the calling test file (`beforeAll`) and
 * stops it after (`afterAll`). `options` may be a function, for bindings that
 * exist only once other setup ran (a container host's URL).
 */
export function useExampleWorker(
  example: string,
  options: Partial<MiniflareOptions> | (() => Partial<MiniflareOptions> | Promise<Partial<MiniflareOptions>>) = {},
): Pick<ExampleWorker, "request" | "exec"> {
  let worker: ExampleWorker | undefined;
  beforeAll(async () => {
    worker = await startExampleWorker(example, typeof options === "function" ? await options() : options);
  });
  afterAll(async () => {
    await worker?.dispose();
  });
  const started = (): ExampleWorker => {
    if (!worker) throw new Error("the example's Worker is not started (call inside a test)");
    return worker;
  };
  return {
    request: (path, init) => started().request(path, init),
    exec: (name, body) => started().exec(name, body),
  };
}
