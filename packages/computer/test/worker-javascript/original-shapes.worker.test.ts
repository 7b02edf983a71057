/**
 * Issue 19 row 10: the worker-javascript backend takes the original's option
 * names (its types come from `computer-reference`; none of its code runs
 * here): host modules as `{ "ws:<name>": { call(method, args, context) } }`
 * next to ours, and `maxDirectoryEntries` / `maxExecutionSubscribers` for
 * `maxDirEntries` / `maxSubscribers`.
 */
import { env } from "cloudflare:workers";
import type { WorkerJavaScriptBackendOptions as ReferenceOptions } from "computer-reference/backends/worker-javascript";
import { describe, expect, it } from "vitest";
import {
  WorkerJavaScriptBackend,
  type WorkerLoaderLike,
  type WorkspaceTrustedModule,
} from "../../src/backends/worker-javascript/index.js";
import { inJsWorkspace, run } from "./harness.worker.js";

const loader: WorkerLoaderLike = env.LOADER;

describe("the original's trusted modules", () => {
  it("imports { call } from a ws:* module and reaches the host's call(method, args, context)", async () => {
    const seen: unknown[] = [];
    const kv: ReferenceOptions["trustedModules"] = {
      "ws:kv.v1": {
        async call(method, args, context) {
          seen.push([method, args, context?.signal instanceof AbortSignal, (context?.deadline ?? 0) > 0]);
          if (method === "fail") throw new Error("kv is down");
          return { method, args };
        },
      },
    };
    await inJsWorkspace(
      async ({ workspace }) => {
        const source = `import { call } from "ws:kv.v1";
          export default async () => {
            const got = [await call("get", "a", 2), await call("none")];
            try { await call("fail"); } catch (error) { got.push(error.message); }
            return got;
          }`;
        const result = await run(workspace, source);
        expect(result).toMatchObject({ status: "completed" });
        expect(result.value).toEqual([{ method: "get", args: ["a", 2] }, { method: "none", args: [] }, "kv is down"]);
        expect(seen).toEqual([
          ["get", ["a", 2], true, true],
          ["none", [], true, true],
          ["fail", [], true, true],
        ]);
      },
      { trustedModules: kv as NonNullable<ReferenceOptions["trustedModules"]> },
    );
  });

  it("takes both forms side by side", async () => {
    await inJsWorkspace(
      async ({ workspace }) => {
        const source = `import { call } from "ws:theirs"; import { hello } from "ws:ours";
          export default async () => [await call("hi", 1), await hello({ n: 2 })];`;
        expect((await run(workspace, source)).value).toEqual(["hi 1", "hello 2"]);
      },
      {
        trustedModules: {
          "ws:theirs": {
            call: async (method, args) => `${method} ${String(args[0])}`,
          } satisfies WorkspaceTrustedModule,
          ours: { hello: (input) => `hello ${(input as { n: number }).n}` },
        },
      },
    );
  });

  it("refuses a ws:* name the original refuses, a module without call, and a name given in both forms", () => {
    const make = (trustedModules: ReferenceOptions["trustedModules"] | Record<string, unknown>) => () =>
      new WorkerJavaScriptBackend({ loader, trustedModules } as never);
    expect(make({ "ws:git": { call: async () => null } })).toThrow(/not git or artifacts/);
    expect(make({ "ws:a/b": { call: async () => null } })).toThrow(/must be ws:<name>/);
    expect(make({ "ws:x": {} })).toThrow(/needs call\(method, args, context\)/);
    expect(make({ "ws:x": { call: async () => null }, x: { f: () => 1 } })).toThrow(/given twice/);
  });
});

describe("the original's limit names", () => {
  it("maxDirectoryEntries and maxExecutionSubscribers set maxDirEntries and maxSubscribers", () => {
    const options: ReferenceOptions = { loader, maxDirectoryEntries: 3, maxExecutionSubscribers: 2 };
    const backend = new WorkerJavaScriptBackend(options);
    expect(backend.options).toMatchObject({ maxDirEntries: 3, maxSubscribers: 2 });
    expect(new WorkerJavaScriptBackend({ loader }).options).toMatchObject({ maxDirEntries: 1024, maxSubscribers: 8 });
    expect(() => new WorkerJavaScriptBackend({ loader, maxDirEntries: 3, maxDirectoryEntries: 3 })).toThrow(
      /pass maxDirEntries or maxDirectoryEntries/,
    );
    expect(() => new WorkerJavaScriptBackend({ loader, maxExecutionSubscribers: 0 })).toThrow(
      /maxExecutionSubscribers must be a positive integer/,
    );
  });

  it("maxDirectoryEntries bounds a readdir in the module", async () => {
    await inJsWorkspace(
      async ({ workspace }) => {
        for (const name of ["a", "b", "c"]) await workspace.fs.writeFile(`/workspace/${name}`, name);
        const source = `import { readdir } from "node:fs/promises";
          export default async () => { try { return await readdir("."); } catch (error) { return error.code; } }`;
        expect((await run(workspace, source)).value).toBe("EINVAL");
      },
      { maxDirectoryEntries: 2 },
    );
  });
});
