/**
 * Issue 19 row 10: the worker-javascript backend takes the original's option
 * names (its types come from `computer-reference`; none of its code runs
 * here): host modules as `{ "ws:<name>": { call(method, args, context) } }`
 * next to ours, and `maxDirectoryEntries` / `maxExecutionSubscribers` for
 * `maxDirEntries` / `maxSubscribers`; and the backend itself as the
 * original's module backend (`protocol: "module"`, `connect(host)`).
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type {
  WorkerJavaScriptBackend as ReferenceBackend,
  WorkerJavaScriptBackendOptions as ReferenceOptions,
} from "computer-reference/backends/worker-javascript";
import { describe, expect, it } from "vitest";
import {
  WorkerJavaScriptBackend,
  type WorkerLoaderLike,
  type WorkspaceTrustedModule,
} from "../../src/backends/worker-javascript/index.js";
import type { WorkspaceModuleBackend, WorkspaceRuntimeEvent } from "../../src/index.js";
import { Workspace } from "../../src/workspace/workspace.worker.js";
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

describe("typing both forms of trustedModules", () => {
  it("infers the parameters of a function of ours named call, and of the original's call", async () => {
    const seen: unknown[] = [];
    // No annotations: the parameter types come from the options (a `ws:` key is the original's form).
    const backend = new WorkerJavaScriptBackend({
      loader,
      trustedModules: {
        ours: {
          call: (input, context) => {
            seen.push([input, context.deadline > 0, context.signal.aborted]);
            return { echoed: input };
          },
        },
        "ws:theirs": { call: async (method, args) => `${method.toUpperCase()} ${args.length}` },
      },
    });
    const stub = env.JS_WORKSPACE.get(env.JS_WORKSPACE.newUniqueId());
    await runInDurableObject(stub, async (_instance, state) => {
      const workspace = new Workspace({ storage: state.storage, backends: [backend] });
      try {
        await workspace.fs.mkdir("/workspace");
        const source = `import { call } from "ws:ours"; import { call as theirs } from "ws:theirs";
          export default async () => [await call({ n: 1 }), await theirs("ping", 1, 2)];`;
        expect((await run(workspace, source)).value).toEqual([{ echoed: { n: 1 } }, "PING 2"]);
        expect(seen).toEqual([[{ n: 1 }, true, false]]);
      } finally {
        await workspace.close();
      }
    });
  });
});

describe("the backend as the original's module backend", () => {
  it("is one by type and by shape: protocol module, callable, connect(host)", () => {
    const backend = new WorkerJavaScriptBackend({ loader });
    const asTheirs: Pick<ReferenceBackend, "protocol" | "type" | "callable" | "id" | "connect"> = backend;
    const asModule: WorkspaceModuleBackend = backend;
    expect([asTheirs.protocol, asTheirs.type, asTheirs.callable, asModule.id]).toEqual([
      "module",
      "worker-javascript",
      true,
      "worker-javascript",
    ]);
  });

  it("runs through workspace.runtime when registered only by its module protocol", async () => {
    const backend = new WorkerJavaScriptBackend({ loader, id: "js-module" });
    const hosts: object[] = [];
    // What a Workspace that knows only the original's protocol sees of it.
    const moduleOnly: WorkspaceModuleBackend = {
      protocol: "module",
      id: backend.id,
      type: backend.type,
      callable: backend.callable,
      connect: (host) => {
        hosts.push(host);
        return backend.connect(host);
      },
    };
    const stub = env.JS_WORKSPACE.get(env.JS_WORKSPACE.newUniqueId());
    await runInDurableObject(stub, async (_instance, state) => {
      const workspace = new Workspace({ storage: state.storage, backends: [moduleOnly] });
      try {
        await workspace.fs.mkdir("/workspace");
        await workspace.fs.writeFile("/workspace/n.txt", "41");
        const source = `import { readFile, writeFile } from "node:fs/promises";
          export default async (input) => {
            console.log("reading");
            const n = Number(await readFile("n.txt", "utf8")) + input.add;
            await writeFile("out.txt", String(n));
            return n;
          }`;
        const handle = await workspace.runtime.exec(source, { id: "m-1", input: { add: 1 }, encoding: "utf8" });
        expect(await handle.result()).toMatchObject({ status: "completed", value: 42, stdout: "reading\n" });
        expect(await workspace.fs.readFile("/workspace/out.txt", "utf8")).toBe("42");
        expect(hosts).toHaveLength(1);
        expect(hosts[0]).toMatchObject({ db: workspace.db, fs: workspace.fs });
        // The journal replays through the module handle, and dispose removes it.
        expect((await (await workspace.runtime.getExec("m-1", { encoding: "utf8" })).result()).value).toBe(42);
        await workspace.runtime.disposeExec("m-1");
        await expect(workspace.runtime.getExec("m-1")).rejects.toMatchObject({ code: "ENOENT" });

        // The handle itself, as code driving the protocol would use it: no id given, events as bytes.
        const handleOf = await backend.connect({ db: workspace.db, fs: workspace.fs });
        const envelope = await handleOf.exec({ source: "export default () => 'ok';" });
        expect(envelope.id).toMatch(/^[0-9a-f-]{36}$/);
        const events: WorkspaceRuntimeEvent[] = [];
        for await (const event of envelope.events) events.push(event);
        expect(events.at(-1)).toMatchObject({ name: "exit", code: 0, result: "ok" });
      } finally {
        await workspace.close();
      }
    });
  });

  it("refuses a host whose database is not a workspace database of this package, and a second workspace", async () => {
    const backend = new WorkerJavaScriptBackend({ loader });
    await expect(backend.connect({ db: {}, fs: {} })).rejects.toThrow(
      /host\.db is not a workspace database of this package/,
    );
    await inJsWorkspace(async ({ workspace, backend: attached }) => {
      await expect(
        attached.connect({
          db: { ...workspace.db, all() {}, one() {}, run() {}, transaction() {}, script() {} },
          fs: {},
        }),
      ).rejects.toThrow(/already serves another workspace/);
    });
  });
});
