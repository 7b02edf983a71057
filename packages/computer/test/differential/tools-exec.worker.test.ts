/**
 * Differential tests of the AI SDK tools, part two (issue 19 row 12): the
 * schemas the model sees, the tool sets `createAITools` builds, `exec` on
 * a real worker-javascript backend and on a workspace that is only a
 * runtime, `publish` over an assets client of the original's shape, and
 * `WorkspaceFileStore` used directly. Each runs on the published
 * `@cloudflare/computer@0.2.1` (`computer-reference`) and on ours.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { asSchema, type ToolSet } from "ai";
import { Workspace as ReferenceWorkspace } from "computer-reference";
import {
  WorkerJavaScriptBackend as ReferenceBackend,
  type WorkerJavaScriptBackendOptions as ReferenceBackendOptions,
} from "computer-reference/backends/worker-javascript";
import * as reference from "computer-reference/tools";
import { describe, expect, it } from "vitest";
import { WorkerJavaScriptBackend } from "../../src/backends/worker-javascript/index.js";
import * as ours from "../../src/tools/index.js";
import { Workspace } from "../../src/workspace/workspace.worker.js";
import { modelOutputOf, runScript, streamTool } from "../tools/scripted-model.js";
import { referenceStorage } from "./main.worker.js";

type Side = "reference" | "ours";
const sides: Side[] = ["reference", "ours"];

/** Each package's `createAITools`, called with the same options object (the original's shape). */
function createAITools(side: Side, options: Record<string, unknown>): ToolSet {
  return side === "reference"
    ? reference.createAITools(options as unknown as reference.CreateAIToolsOptions)
    : ours.createAITools(options as unknown as ours.CreateAIToolsOptions);
}

function createExecTool(side: Side, options: Record<string, unknown>): ToolSet[string] {
  return side === "reference"
    ? reference.createExecTool(options as unknown as reference.ExecToolOptions)
    : ours.createExecTool(options as unknown as ours.ExecToolOptions);
}

/** Error texts are each package's own words (the header of tools.worker.test.ts). */
function maskErrors(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskErrors);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      key === "error" && typeof item === "string" ? "<error>" : maskErrors(item),
    ]),
  );
}

/** A JSON schema without its `description`s: the structure the model is held to, not our wording. */
function structure(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(structure);
  if (typeof schema !== "object" || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => key !== "description")
      .map(([key, item]) => [key, structure(item)]),
  );
}

/** What `exec` sees of a runtime, scripted: every call answers with the handle `handleFor` builds. */
interface ScriptedRuntime {
  runtime: {
    exec(command: string, options: unknown): Promise<unknown>;
    isCallable(id: string): boolean;
  };
  calls: unknown[];
}

type ScriptedEvent = { name: "stdout" | "stderr"; value: string } | { name: "exit"; code: number; result?: unknown };

function scriptedRuntime(handleFor: (command: string) => unknown): ScriptedRuntime {
  const calls: unknown[] = [];
  return {
    calls,
    runtime: {
      async exec(command, options) {
        calls.push({ command, options: JSON.parse(JSON.stringify(options)) });
        if (command === "throw") throw new Error("no such backend");
        return handleFor(command);
      },
      isCallable: (id) => id === "js",
    },
  };
}

/** A handle that streams `events` (and fails after them when `fail` is set). */
function streaming(events: ScriptedEvent[], fail?: string) {
  return {
    async *[Symbol.asyncIterator]() {
      for (const event of events) yield event;
      if (fail !== undefined) throw new Error(fail);
    },
    async result() {
      throw new Error("read through the iterator");
    },
    async kill() {},
  };
}

/** A handle with no event stream: only `result()`. */
function settled(result: { exitCode: number; stdout: string; stderr: string; value?: unknown }) {
  return { result: async () => result };
}

const BACKENDS = { sh: { description: "A shell." }, js: { description: "JavaScript modules." } };

describe("differential: the schemas the model sees", () => {
  it("every tool's JSON schema has the same structure (descriptions aside) on both packages", async () => {
    const schemas: Record<Side, Record<string, unknown>> = { reference: {}, ours: {} };
    for (const side of sides) {
      const { runtime } = scriptedRuntime(() => settled({ exitCode: 0, stdout: "", stderr: "" }));
      const tools = createAITools(side, {
        workspace: { fs: {}, runtime, sessionId: "s", assets: { share: async () => "https://x" } },
        shell: { backends: BACKENDS, defaultBackend: "sh" },
      });
      for (const [name, tool] of Object.entries(tools)) {
        schemas[side][name] = structure(await asSchema(tool.inputSchema).jsonSchema);
      }
    }
    expect(Object.keys(schemas.ours).sort()).toEqual(Object.keys(schemas.reference).sort());
    for (const name of Object.keys(schemas.reference)) {
      expect(schemas.ours[name], name).toEqual(schemas.reference[name]);
    }
  });
});

describe("differential: the tool sets createAITools builds", () => {
  const variants: Record<string, Record<string, unknown>> = {
    default: {},
    readonly: { readonly: true },
    "readonly with shell and assets": { readonly: true, shell: { backends: BACKENDS, defaultBackend: "sh" } },
    "with shell": { shell: { backends: BACKENDS, defaultBackend: "sh" } },
    "assets: false": { assets: false },
  };
  for (const [name, options] of Object.entries(variants)) {
    it(name, () => {
      const keys = sides.map((side) => {
        const { runtime } = scriptedRuntime(() => settled({ exitCode: 0, stdout: "", stderr: "" }));
        const workspace = { fs: {}, runtime, sessionId: "s", assets: { share: async () => "https://x" } };
        return Object.keys(createAITools(side, { workspace, ...options })).sort();
      });
      expect(keys[1]).toEqual(keys[0]);
    });
  }

  it("a workspace without assets has no publish; an exec option set without backends is refused alike", () => {
    for (const side of sides) {
      const { runtime } = scriptedRuntime(() => settled({ exitCode: 0, stdout: "", stderr: "" }));
      expect(Object.keys(createAITools(side, { workspace: { fs: {}, runtime } }))).not.toContain("publish");
      expect(
        () => createExecTool(side, { workspace: { runtime }, backends: {}, defaultBackend: "sh" }),
        side,
      ).toThrow();
      expect(
        () => createExecTool(side, { workspace: { runtime }, backends: BACKENDS, defaultBackend: "zsh" }),
        side,
      ).toThrow(/zsh/);
      expect(() => createAITools(side, { workspace: { fs: {} }, assets: true }), side).not.toThrow();
    }
  });
});

/** One exec call through the SDK's stream: every preliminary snapshot and the final output, errors masked. */
async function execOn(side: Side, options: Record<string, unknown>, input: unknown) {
  const tool = createExecTool(side, options);
  const streamed = await streamTool({ exec: tool }, "exec", input);
  return maskErrors({ preliminary: streamed.preliminary, final: streamed.final, errors: streamed.errors.length });
}

describe("differential: exec over a workspace that is only a runtime", () => {
  const scenarios: Record<
    string,
    {
      events?: ScriptedEvent[];
      fail?: string;
      result?: Parameters<typeof settled>[0];
      input: Record<string, unknown>;
      options?: Record<string, unknown>;
    }
  > = {
    "a streamed run: snapshots at most once per 100 ms of the clock, then the exit code": {
      events: [
        { name: "stdout", value: "a\n" },
        { name: "stderr", value: "warn\n" },
        { name: "stdout", value: "b\n" },
        { name: "stdout", value: "c\n" },
        { name: "exit", code: 3 },
      ],
      input: { command: "make", cwd: "/workspace/src", env: { CI: "1" } },
    },
    "a callable backend's input goes to the runtime and its value comes back as result": {
      events: [{ name: "exit", code: 0, result: { doubled: 4 } }],
      input: { command: "export default (n) => n * 2", backend: "js", input: { n: 2 } },
    },
    "output over maxBytes is cut on a UTF-8 boundary with the count of what was dropped": {
      events: [
        { name: "stdout", value: `a${"é".repeat(20)}` },
        { name: "stdout", value: "tail" },
        { name: "exit", code: 0 },
      ],
      input: { command: "cat big" },
      options: { maxBytes: 10, streamMaxBytes: 16 },
    },
    "a stream that ends without an exit event has exitCode null": {
      events: [{ name: "stdout", value: "partial" }],
      input: { command: "cut short" },
    },
    "a stream that fails is an error output naming command, cwd and backend": {
      events: [{ name: "stdout", value: "x" }],
      fail: "connection lost",
      input: { command: "flaky", cwd: "/tmp" },
    },
    "a handle without a stream is read through result()": {
      result: { exitCode: 1, stdout: `${"o".repeat(12)}`, stderr: "bad", value: [1, 2] },
      input: { command: "settled" },
      options: { maxBytes: 8 },
    },
    "runtime.exec throwing is an error output naming command, cwd and backend": {
      input: { command: "throw", backend: "js" },
    },
    "input to a backend that is not callable is refused before the runtime is called": {
      input: { command: "echo", input: { n: 1 } },
    },
    "a backend not on the list is refused by the schema": {
      input: { command: "echo", backend: "zsh" },
    },
  };
  for (const [name, scenario] of Object.entries(scenarios)) {
    it(name, async () => {
      const runs = [];
      for (const side of sides) {
        let t = 0;
        const scripted = scriptedRuntime(() =>
          scenario.result !== undefined ? settled(scenario.result) : streaming(scenario.events ?? [], scenario.fail),
        );
        const options = {
          workspace: { runtime: scripted.runtime },
          backends: BACKENDS,
          defaultBackend: "sh",
          // 60 ms per reading: events 1 and 3 fall in new 100 ms windows, 2 does not.
          now: () => (t += 60),
          ...scenario.options,
        };
        runs.push({ ...((await execOn(side, options, scenario.input)) as object), calls: scripted.calls });
      }
      expect(runs[1]).toEqual(runs[0]);
    });
  }
});

describe("differential: exec on a real worker-javascript backend", () => {
  async function onBackend(side: Side, input: unknown): Promise<unknown> {
    const stub = env.COMPAT_SCRATCH.get(env.COMPAT_SCRATCH.newUniqueId());
    return runInDurableObject(stub, async (_instance, state) => {
      const loader = { loader: env.LOADER as unknown as ReferenceBackendOptions["loader"] };
      const workspace =
        side === "reference"
          ? new ReferenceWorkspace({
              storage: referenceStorage(state.storage),
              backends: [new ReferenceBackend(loader)],
            })
          : new Workspace({ storage: state.storage, backends: [new WorkerJavaScriptBackend(loader)] });
      await workspace.fs.mkdir("/workspace", { recursive: true });
      await workspace.fs.writeFile("/workspace/n.txt", "21");
      const tools = createAITools(side, {
        workspace,
        shell: {
          backends: { "worker-javascript": { description: "ES modules" }, "worker-shell": { description: "bash" } },
          defaultBackend: "worker-javascript",
        },
      });
      const { result, model } = await runScript(tools, [[{ tool: "exec", input }]]);
      const output = result.steps[0]?.toolResults[0]?.output;
      return maskErrors({ output, model: modelOutputOf(model, 1, "call-0-0") });
    });
  }

  const calls: Record<string, unknown> = {
    "a module's return value, from input and a workspace file": {
      command: `import { readFile } from "node:fs/promises";
        export default async (input) => ({ sum: input.add + Number(await readFile("/workspace/n.txt", "utf8")) });`,
      input: { add: 21 },
    },
    "a module without input": { command: "export default () => [1, 'two', null];" },
    "input to a listed backend the runtime cannot call": { command: "echo", backend: "worker-shell", input: 1 },
    "a listed backend the workspace does not have": { command: "echo hi", backend: "worker-shell" },
  };
  for (const [name, input] of Object.entries(calls)) {
    it(name, async () => {
      const theirs = await onBackend("reference", input);
      expect(await onBackend("ours", input)).toEqual(theirs);
    });
  }
});

describe("differential: publish over an assets client of the original's shape", () => {
  async function publishOn(side: Side, sessionId: string, input: unknown, fail = false) {
    const shares: unknown[] = [];
    const assets = {
      async share(path: string, options: unknown) {
        shares.push({ path, options });
        if (fail) throw new Error("bucket unavailable");
        return `https://assets.test${path}`;
      },
    };
    const tools = createAITools(side, { workspace: { fs: {}, sessionId, assets } });
    const { result } = await runScript(tools, [[{ tool: "publish", input }]]);
    const step = result.steps[0];
    const output = step?.toolResults[0]?.output ?? {
      refused: step?.content.some((part) => part.type === "tool-error"),
    };
    return maskErrors({ output, shares });
  }

  const cases: [string, string, unknown, boolean?][] = [
    ["with a session id: prefix agent-<id>, one hour by default", "s1", { path: "/workspace/out.png" }],
    ["without a session id: no prefix; expiresAfterMs given", "", { path: "/workspace/out.png", expiresAfterMs: 5000 }],
    ["a failed share is { ok: false, error }", "s1", { path: "/workspace/out.png" }, true],
    ["an empty path and a fractional expiry are refused by the schema", "s1", { path: "" }],
    ["a fractional expiry is refused by the schema", "s1", { path: "/a", expiresAfterMs: 1.5 }],
  ];
  for (const [name, sessionId, input, fail] of cases) {
    it(name, async () => {
      const theirs = await publishOn("reference", sessionId, input, fail);
      expect(await publishOn("ours", sessionId, input, fail)).toEqual(theirs);
    });
  }

  it("createPublishTool without assets throws on both", () => {
    expect(() => reference.createPublishTool({ workspace: { sessionId: "s" } })).toThrow();
    expect(() => ours.createPublishTool({ workspace: { sessionId: "s" } })).toThrow(/assets/);
  });
});

describe("differential: WorkspaceFileStore used directly", () => {
  async function storeOn(side: Side): Promise<unknown[]> {
    const stub = env.COMPAT_SCRATCH.get(env.COMPAT_SCRATCH.newUniqueId());
    return runInDurableObject(stub, async (_instance, state) => {
      const workspace =
        side === "reference"
          ? (new ReferenceWorkspace({ storage: referenceStorage(state.storage) }) as unknown as Workspace)
          : new Workspace({ storage: state.storage });
      const store =
        side === "reference"
          ? new reference.WorkspaceFileStore(workspace as unknown as reference.WorkspaceLike)
          : new ours.WorkspaceFileStore(workspace);
      const text = (bytes: Uint8Array | null) => (bytes === null ? null : new TextDecoder().decode(bytes));
      const chunks = async (offset?: number, length?: number) => {
        const parts: string[] = [];
        for await (const chunk of store.readChunks("/w/a.txt", offset, length)) parts.push(text(chunk) as string);
        return parts.join("");
      };
      const settle = async (run: () => Promise<unknown>) => {
        try {
          return { ok: await run() };
        } catch {
          return { threw: true };
        }
      };
      await workspace.fs.mkdir("/w/dir", { recursive: true });
      return [
        store.lockIdentity === workspace.fs,
        await settle(() => store.write("/w/deep/er/a.txt", new TextEncoder().encode("x"), { mode: 0o100755 })),
        (await workspace.fs.stat("/w/deep/er/a.txt")).mode & 0o777,
        await settle(() => store.write("/w/a.txt", new TextEncoder().encode("hello world"))),
        await settle(async () => {
          const stat = await store.stat("/w/a.txt");
          return stat && { size: stat.size, mode: stat.mode, mtime: typeof stat.mtime };
        }),
        await settle(() => store.stat("/w/dir")),
        await settle(() => store.stat("/w/missing")),
        await settle(async () => text(await store.readAll("/w/a.txt"))),
        await settle(() => store.readAll("/w/missing")),
        await settle(() => chunks()),
        await settle(() => chunks(6)),
        await settle(() => chunks(6, 3)),
        await settle(() => chunks(50)),
        await settle(() => chunks(-1)),
        await settle(async () => {
          for await (const _ of store.readChunks("/w/missing")) return "read";
          return "empty";
        }),
        await settle(() => store.remove("/w/missing", { force: true })),
        await settle(() => store.remove("/w/dir")),
        await settle(() => workspace.fs.readdir("/w").then((entries) => entries.map((entry) => entry.name).sort())),
      ];
    });
  }

  it("stat, readAll, readChunks, write and remove answer alike", async () => {
    const theirs = await storeOn("reference");
    expect(await storeOn("ours")).toEqual(theirs);
  });
});
