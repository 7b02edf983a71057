/**
 * Host modules (`ws:*`) as 0.8.0 shapes `modules`: an object of functions or
 * a factory, run in the Durable Object, called from code in a real Dynamic
 * Worker through the public API (`workspace.runtime.exec`). Also the checks
 * the constructor makes, the Node built-ins, and the prebuilt modules
 * (`./modules/git`, `./modules/tools`, `./modules/assets`,
 * `./modules/container`) end to end.
 */
import { describe, expect, it } from "vitest";
import { WorkerJavaScriptBackend, type WorkerLoaderLike } from "../../src/backends/worker-javascript/index.js";
import { createGitClient } from "../../src/git/index.js";
import { createAssetsModule } from "../../src/modules/assets.js";
import { createContainerModule } from "../../src/modules/container.js";
import { createGitModule } from "../../src/modules/git.js";
import { createToolBindings, type ToolBinding } from "../../src/modules/tools.js";
import type { WorkspaceModuleCallContext, WorkspaceModuleHost } from "../../src/modules/types.js";
import type { WorkspaceRuntimeValue } from "../../src/runtime/types.js";
import { FakeShellBackend } from "../fake-shell/backend.js";
import { inJsWorkspace, run } from "./harness.worker.js";

const loader = { load: () => ({ getEntrypoint: () => ({}) }) } as WorkerLoaderLike;

describe("host modules: an object of functions", () => {
  it("runs in the Durable Object with every argument and a call context, undefined coming back as null", async () => {
    const seen: { args: readonly WorkspaceRuntimeValue[]; context: WorkspaceModuleCallContext }[] = [];
    const modules = {
      "ws:math": {
        add: (args: readonly WorkspaceRuntimeValue[], context: WorkspaceModuleCallContext) => {
          seen.push({ args, context });
          return (args[0] as number) + (args[1] as number);
        },
        nothing: () => undefined,
      },
    };
    await inJsWorkspace(
      async ({ workspace }) => {
        const source = `import { add, nothing } from "ws:math";
          import * as math from "ws:math";
          export default async () => [await add(2, 3), await math.add(1, 1), await nothing()];`;
        const result = await run(workspace, source, { id: "run-1" });
        expect(result).toMatchObject({ status: "completed", value: [5, 2, null] });
        expect(seen.map((call) => call.args)).toEqual([
          [2, 3],
          [1, 1],
        ]);
        const [first, second] = seen.map((call) => call.context);
        expect(first?.callId).toBe("run-1:1");
        expect(second?.callId).toBe("run-1:2");
        expect(first?.access).toBe("read-write");
        expect(first?.signal).toBeInstanceOf(AbortSignal);
        expect(first?.deadline).toBeGreaterThan(Date.now() - 60_000);
      },
      { modules },
    );
  });

  it("rejects in the isolate with the host's message when a function throws or returns what JSON cannot hold", async () => {
    const modules = {
      "ws:svc": {
        fail: () => {
          throw new Error("kv is down");
        },
        date: () => new Date(0),
        interrupt: (_args: readonly WorkspaceRuntimeValue[], context: WorkspaceModuleCallContext) =>
          context.interrupt({ ask: "ok?" }),
      },
    };
    await inJsWorkspace(
      async ({ workspace }) => {
        const source = `import { fail, date, interrupt } from "ws:svc";
          const message = (p) => p.then(() => "resolved", (e) => e.message);
          export default async () => [await message(fail()), await message(date()), await message(interrupt())];`;
        const result = await run(workspace, source);
        const [failed, date, interrupted] = result.value as string[];
        expect(failed).toBe("kv is down");
        expect(date).toContain("Host module values must contain only plain objects");
        expect(interrupted).toContain('onInterrupt: "replay"');
      },
      { modules },
    );
  });

  it("confines resolvePath to the root and refuses a path through a symlink", async () => {
    const modules = {
      "ws:paths": {
        resolve: async (args: readonly WorkspaceRuntimeValue[], context: WorkspaceModuleCallContext) => {
          try {
            return await context.resolvePath(args[0] as string, { allowMissing: args[1] === true });
          } catch (error) {
            return `${(error as { code?: string }).code}`;
          }
        },
      },
    };
    await inJsWorkspace(
      async ({ workspace }) => {
        await workspace.fs.mkdir("/workspace/app", { recursive: true });
        await workspace.fs.symlink("/etc", "/workspace/link");
        const source = `import { resolve } from "ws:paths";
          export default async () => [
            await resolve("app"), await resolve("/workspace/app"), await resolve("new.txt", true),
            await resolve("new.txt"), await resolve("../etc", true), await resolve("link/x", true),
          ];`;
        const result = await run(workspace, source);
        expect(result.value).toEqual([
          "/workspace/app",
          "/workspace/app",
          "/workspace/new.txt",
          "ENOENT",
          "EACCES",
          "ELOOP",
        ]);
      },
      { modules },
    );
  });
});

describe("host modules: factories", () => {
  it("builds once per connect from the Workspace's services, and the description names every module", async () => {
    let built = 0;
    let host: WorkspaceModuleHost | undefined;
    const factory = Object.assign(
      (given: WorkspaceModuleHost) => {
        built += 1;
        host = given;
        return { exec: () => typeof given.runtime.exec };
      },
      { description: "looks at the Workspace's runtime." },
    );
    await inJsWorkspace(
      async ({ workspace, backend }) => {
        const source = 'import { exec } from "ws:count"; export default () => exec();';
        expect((await run(workspace, source)).value).toBe("function");
        expect((await run(workspace, source)).value).toBe("function");
        expect(built).toBe(1);
        expect(host?.runtime).toBe(workspace.runtime);
        expect(() => host?.git).toThrow(/git is not configured/);
        expect(backend.description).toContain("- `ws:count`: looks at the Workspace's runtime.");
        expect(backend.description).toContain("- `lib`: a bundled library.");
        expect(backend.description).toContain("- `ws:plain`: exports `a`, `b`.");
        expect(backend.description).toContain("`node:path`");
        expect(backend.description).toContain("export default async function (input)");
        // ws:git and ws:artifacts follow 0.8 once a host module is given: not installed.
        expect(backend.description).not.toContain("`ws:git`");
      },
      { modules: { "ws:count": factory, lib: "export default 1;", "ws:plain": { a: () => 1, b: () => 2 } } },
    );
  });

  it("fails the run when a factory exports a bad name, and a factory that builds nothing cannot be imported", async () => {
    const bad = () => ({ default: () => 1 });
    await inJsWorkspace(
      async ({ workspace, loads }) => {
        await expect(run(workspace, "export default () => 1")).rejects.toThrow(
          'Host module "ws:bad" export "default" must be a JavaScript identifier other than "default" or "then".',
        );
        expect(loads()).toBe(0);
      },
      { modules: { "ws:bad": bad } },
    );
    await inJsWorkspace(
      async ({ workspace }) => {
        await expect(run(workspace, 'import "ws:empty"; export default () => 1')).rejects.toThrow(/exports nothing/);
        expect((await run(workspace, "export default () => 1")).value).toBe(1);
      },
      { modules: { "ws:empty": () => ({}) } },
    );
  });
});

describe("modules: what the constructor checks (0.8.0's errors)", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    [
      "a source string under ws:",
      { "ws:x": "export default 1" },
      'Module "ws:x" uses the ws:* namespace, which is only for host modules.',
    ],
    ["a library name with a slash", { "a/b": "export default 1" }, 'Module "a/b" uses a reserved module name.'],
    ["replacing node:fs", { "node:fs": "export default 1" }, 'Module "node:fs" is built in and cannot be replaced.'],
    [
      "a host module without ws:",
      { kv: { get: () => 1 } },
      'Host module "kv" must use a simple ws:* name, such as "ws:git".',
    ],
    [
      "a ws: name with a slash",
      { "ws:a/b": { get: () => 1 } },
      'Host module "ws:a/b" must use a simple ws:* name, such as "ws:git".',
    ],
    ["no exports", { "ws:kv": {} }, 'Host module "ws:kv" must export a function.'],
    [
      "an export named then",
      // biome-ignore lint/suspicious/noThenProperty: the name under test is exactly the one a module may not export.
      { "ws:kv": { then: () => 1 } },
      'Host module "ws:kv" export "then" must be a JavaScript identifier other than "default" or "then".',
    ],
    ["an export that is no function", { "ws:kv": { get: 1 } }, 'Host module "ws:kv" export "get" must be a function.'],
    ["an array", { "ws:kv": [] }, 'Module "ws:kv" must be source text, an object of functions, or a factory.'],
  ];
  for (const [what, modules, message] of cases) {
    it(`refuses ${what}`, () => {
      expect(() => new WorkerJavaScriptBackend({ loader, modules: modules as never })).toThrow(message);
    });
  }
});

describe("imports beside host modules", () => {
  it("imports the Node built-ins nodejs_compat gives, with or without node:", async () => {
    await inJsWorkspace(async ({ workspace }) => {
      const source = `import path from "path"; import { createHash } from "node:crypto"; import { EventEmitter } from "events";
        export default () => [path.join("a", "b"), createHash("sha256").update("x").digest("hex").slice(0, 8), typeof EventEmitter];`;
      const result = await run(workspace, source);
      expect(result.stderr).toBe("");
      expect(result.value).toEqual(["a/b", "2d711642", "function"]);
    });
  });

  it("names an unconfigured ws: module the 0.8 way once host modules are given, and keeps ws:git for 0.2.1 code otherwise", async () => {
    await inJsWorkspace(
      async ({ workspace }) => {
        await expect(run(workspace, 'import { status } from "ws:git"; export default status')).rejects.toThrow(
          `Module "ws:git" is not configured. Add it to the backend's modules option.`,
        );
      },
      { modules: { "ws:kv": { get: () => 1 } } },
    );
    await inJsWorkspace(
      async ({ workspace }) => {
        const result = await run(workspace, 'import { status } from "ws:git"; export default () => typeof status');
        expect(result.value).toBe("function");
      },
      { modules: { lib: "export default 1;" } },
    );
  });
});

describe("prebuilt modules", () => {
  it("ws:git (createGitModule) runs the Workspace's git with dir confined, and refuses the network without allowNetwork", async () => {
    await inJsWorkspace(async ({ open }) => {
      const { workspace } = open({ modules: { "ws:git": createGitModule() } }, { git: createGitClient() });
      await workspace.fs.mkdir("/workspace/repo", { recursive: true });
      await workspace.fs.writeFile("/workspace/repo/a.txt", "a\n");
      const source = `import { cli, status, clone } from "ws:git";
        const message = (p) => p.then(() => "resolved", (e) => e.message);
        export default async () => {
          const init = await cli({ argv: ["-C", "repo", "init", "-q"] });
          const entries = await status({ dir: "repo" });
          return [init.exitCode, entries.map((e) => e.path ?? e.filepath ?? e[0]),
            await message(clone({ url: "https://example.com/x.git", dir: "copy" })),
            await message(cli({ argv: ["--git-dir=/etc", "status"] }))];
        };`;
      const result = await run(workspace, source);
      expect(result.stderr).toBe("");
      const [code, paths, cloned, override] = result.value as [number, string[], string, string];
      expect(code).toBe(0);
      expect(paths).toEqual(["a.txt"]);
      expect(cloned).toBe("Git clone requires createGitModule({ allowNetwork: true }).");
      expect(override).toBe("Git CLI path overrides are not available inside a confined Workspace runtime.");
    });
  });

  it("ws:tools (createToolBindings) exports the agent's tools by identifier, leaves exec out, and keeps writers off a read-only backend", async () => {
    const calls: unknown[] = [];
    const tools: ToolBinding[] = [
      {
        name: "list-files",
        readOnly: true,
        call: (input) => ({ text: `listed ${JSON.stringify(input)}`, isError: false }),
      },
      {
        name: "write",
        call: (input) => {
          calls.push(input);
          return { text: "wrote", isError: false, details: { bytes: 3 } };
        },
      },
      { name: "exec", call: () => ({ text: "never", isError: true }) },
    ];
    const source = `import * as tools from "ws:tools";
      const message = (p) => p.then((r) => r, (e) => e.message);
      export default async () => [Object.keys(tools).sort(), await tools.list_files(), await message(tools.write({ path: "a" })),
        await message(tools.write(1, 2))];`;
    await inJsWorkspace(
      async ({ workspace, backend }) => {
        const result = await run(workspace, source);
        expect(result.value).toEqual([
          ["list_files", "write"],
          { text: "listed {}", isError: false },
          { text: "wrote", isError: false, details: { bytes: 3 } },
          "write(arguments) takes one object of the tool's arguments.",
        ]);
        expect(calls).toEqual([{ path: "a" }]);
        expect(backend.description).toContain("There is no `exec` export");
      },
      { modules: { "ws:tools": createToolBindings(tools) } },
    );
    await inJsWorkspace(
      async ({ workspace }) => {
        const result = await run(workspace, source);
        expect((result.value as unknown[])[2]).toBe("ws:tools write requires Workspace write access.");
      },
      { access: "read", modules: { "ws:tools": createToolBindings(tools) } },
    );
  });

  it("ws:assets (createAssetsModule) publishes a confined path through the Workspace's assets, and needs them to connect", async () => {
    const shared: unknown[] = [];
    const assets = {
      share: async (path: string, options: object) => {
        shared.push({ path, options });
        return `https://assets.test${path}`;
      },
    };
    await inJsWorkspace(async ({ open }) => {
      const { workspace } = open({ modules: { "ws:assets": createAssetsModule() } }, { assets });
      await workspace.fs.writeFile("/workspace/report.txt", "r");
      const source = `import { publish } from "ws:assets";
        const message = (p) => p.then((r) => r, (e) => e.message);
        export default async () => [await publish("report.txt", { expiresAfter: "30m", disposition: "inline" }),
          await message(publish("report.txt", { expires: 1 }))];`;
      const result = await run(workspace, source);
      expect(result.value).toEqual([
        "https://assets.test/workspace/report.txt",
        'publish: unknown option "expires". Use expiresAfter, filename, disposition, or contentType.',
      ]);
      expect(shared).toEqual([
        { path: "/workspace/report.txt", options: { expiresAfter: 1_800_000, disposition: "inline" } },
      ]);
      const bare = open({ id: "bare", modules: { "ws:assets": createAssetsModule() } });
      await expect(bare.workspace.runtime.exec("export default () => 1", { backend: "bare" })).rejects.toThrow(
        "ws:assets: the Workspace has no assets client. Pass `assets` to the Workspace.",
      );
    });
  });

  it("ws:container (createContainerModule) runs a command on the shell backend and hands back its tail and sync", async () => {
    const shell = new FakeShellBackend({ id: "container-shell" });
    try {
      await inJsWorkspace(async ({ state }) => {
        const { Workspace } = await import("../../src/workspace/workspace.worker.js");
        const js = new WorkerJavaScriptBackend({
          loader: (await import("cloudflare:workers")).env.LOADER,
          modules: { "ws:container": createContainerModule({ maxOutputLines: 2, prelude: "cd /workspace" }) },
        });
        const workspace = new Workspace({ storage: state.storage, backends: [js, shell] });
        try {
          const source = `import { exec } from "ws:container";
            export default async () => [await exec("printf 'a\\\\nb\\\\nc\\\\n'; echo made > out.txt"), await exec("exit 3")];`;
          const result = await (await workspace.runtime.exec(source, { backend: "worker-javascript" })).result();
          expect(result.status).toBe("completed");
          const [printed, failed] = result.value as { exitCode: number; stdout: string; sync: { status: string } }[];
          expect(printed?.exitCode).toBe(0);
          expect(printed?.stdout).toBe("[truncated, showing lines 2-3 of 3]\n\nb\nc\n");
          expect(printed?.sync).toEqual({ status: "complete", skipped: [], skippedCount: 0 });
          expect(failed?.exitCode).toBe(3);
          expect(await workspace.fs.readFile("/workspace/out.txt", "utf8")).toBe("made\n");
        } finally {
          await workspace.close();
        }
      });
    } finally {
      shell.runner.dispose();
    }
  });

  it("ws:container refuses to connect without the backend", async () => {
    await inJsWorkspace(
      async ({ workspace }) => {
        await expect(run(workspace, "export default () => 1")).rejects.toThrow(
          'ws:container: the Workspace has no backend "container-shell".',
        );
      },
      { modules: { "ws:container": createContainerModule() } },
    );
  });
});
