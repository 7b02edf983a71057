/**
 * An example's Worker under Miniflare, bundled from its `src/index.ts` the way
 * wrangler would (esbuild, the workerd conditions). Needs the packages built
 * (`dist/`), like any consumer of them; `npm test` builds first.
 */
import { builtinModules } from "node:module";
import { join } from "node:path";
import { build, type Plugin } from "esbuild";
import { convertV4MiniflareOptions, Miniflare, type V4MiniflareOptions } from "miniflare";
import { afterAll, beforeAll } from "vitest";

export interface ExampleWorker {
  /** Where Miniflare listens (127.0.0.1, a free port): for clients that need a real socket (WebSocket, a CLI). */
  url: URL;
  request(path: string, init?: RequestInit): Promise<Response>;
  /** `POST /c/<name>/exec` with a JSON body. */
  exec(name: string, body: unknown): Promise<Response>;
  dispose(): Promise<void>;
}

/**
 * Node built-ins the way wrangler's `nodejs_compat` bundling treats them:
 * external under their `node:` name, and a CommonJS `require()` of one (as in
 * `ai`'s dependencies) turned into an import, since workerd has no `require`.
 */
const nodeBuiltins: Plugin = {
  name: "node-builtins",
  setup(build) {
    const names = new Set(builtinModules.filter((name) => !name.startsWith("_")));
    const filter = /^(node:.+|[a-z_]+(\/[a-z_]+)*)$/;
    build.onResolve({ filter }, (args) => {
      const name = args.path.replace(/^node:/, "");
      if (!names.has(name)) return undefined;
      if (args.kind === "require-call") return { path: name, namespace: "node-require" };
      return { path: `node:${name}`, external: true };
    });
    build.onLoad({ filter: /.*/, namespace: "node-require" }, (args) => ({
      contents: `import library from "node:${args.path}"; module.exports = library;`,
      loader: "js",
    }));
  },
};

export async function bundleExample(example: string): Promise<string> {
  const result = await build({
    entryPoints: [join(example, "src", "index.ts")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    // wrangler's conditions ("browser" picks the Web build of packages that ship one for Node and one for browsers).
    conditions: ["workerd", "worker", "browser", "import"],
    external: ["cloudflare:*"],
    plugins: [nodeBuiltins],
    logLevel: "warning",
  });
  return result.outputFiles[0]?.text ?? "";
}

/** The examples' `compatibility_date` (their wrangler.jsonc): not newer than the pinned workerd's. */
export const EXAMPLE_COMPATIBILITY_DATE = "2026-11-17";

/**
 * Miniflare's options in their v4 shape (one Worker, flat bindings): Miniflare 5 takes a
 * config-shaped form and converts this one with `convertV4MiniflareOptions`.
 */
export type ExampleWorkerOptions = Partial<V4MiniflareOptions>;

/** Serves the example with a SQLite Durable Object class `Computer` bound as `COMPUTER`, plus `options`. */
export async function startExampleWorker(example: string, options: ExampleWorkerOptions = {}): Promise<ExampleWorker> {
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      modules: true,
      script: await bundleExample(example),
      compatibilityDate: EXAMPLE_COMPATIBILITY_DATE,
      compatibilityFlags: ["nodejs_compat"],
      durableObjects: { COMPUTER: { className: "Computer", useSQLite: true } },
      ...options,
    } as V4MiniflareOptions),
  );
  const url = await mf.ready;
  const request = (path: string, init?: RequestInit): Promise<Response> =>
    mf.dispatchFetch(`http://example.test${path}`, init as never) as unknown as Promise<Response>;
  return {
    url,
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
  options: ExampleWorkerOptions | (() => ExampleWorkerOptions | Promise<ExampleWorkerOptions>) = {},
): Pick<ExampleWorker, "request" | "exec"> & { url(): URL } {
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
    url: () => started().url,
    request: (path, init) => started().request(path, init),
    exec: (name, body) => started().exec(name, body),
  };
}
