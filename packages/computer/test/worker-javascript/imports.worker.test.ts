/**
 * The module graph: what a module may import, built on the host before any
 * Worker exists. A number in a test name is a stable case id; `docs/worker-javascript.md` describes the behavior.
 */
import { describe, expect, it } from "vitest";
import { inJsWorkspace, run } from "./harness.worker.js";

describe("imports", () => {
  it("(10) resolves ./ imports from the Workspace cwd", async () => {
    await inJsWorkspace(async ({ workspace }) => {
      await workspace.fs.mkdir("/workspace/app", { recursive: true });
      await workspace.fs.writeFile("/workspace/app/task.js", "export default (n) => n + 1;");
      const result = await run(workspace, 'import t from "./task.js"; export default (i) => t(i);', {
        cwd: "/workspace/app",
        input: 1,
      });
      expect(result).toMatchObject({ status: "completed", value: 2 });
    });
  });

  it("imports a 3-file local graph and a configured library, statically and dynamically", async () => {
    await inJsWorkspace(
      async ({ workspace }) => {
        await workspace.fs.mkdir("/workspace/lib/util", { recursive: true });
        await workspace.fs.writeFile(
          "/workspace/lib/a.js",
          'import { b } from "./util/b.js"; export { c } from "../c.js"; export const a = () => "a" + b();',
        );
        await workspace.fs.writeFile(
          "/workspace/lib/util/b.js",
          'import { pad } from "leftpad"; export const b = () => pad("b");',
        );
        await workspace.fs.writeFile("/workspace/c.js", 'export const c = () => "c";');
        const source = `import { a, c } from "./lib/a.js";
          export default async () => {
            const again = await import("./lib/a.js");
            const lib = await import("leftpad");
            return [a(), c(), again.a === a, lib.pad("z")];
          }`;
        const result = await run(workspace, source);
        expect(result.stderr).toBe("");
        expect(result.value).toEqual(["a<b>", "c", true, "<z>"]);
      },
      { modules: { leftpad: "export const pad = (s) => '<' + s + '>';" } },
    );
  });

  it("(10) refuses an unconfigured bare import before a Worker is created", async () => {
    await inJsWorkspace(async ({ workspace, loads }) => {
      await expect(run(workspace, 'import x from "lodash"; export default x')).rejects.toMatchObject({
        code: "EMODULE",
        message: expect.stringContaining('bare import "lodash" is not a configured module'),
      });
      expect(loads()).toBe(0);
    });
  });

  it("(10) refuses a non-literal dynamic import", async () => {
    await inJsWorkspace(async ({ workspace, loads }) => {
      const source = 'const name = "./x.js"; export default () => import(name)';
      await expect(run(workspace, source)).rejects.toMatchObject({
        code: "EMODULE",
        message: expect.stringContaining("import() needs a string literal"),
      });
      expect(loads()).toBe(0);
    });
  });

  it("reports a missing file, a syntax error and an absolute import", async () => {
    await inJsWorkspace(async ({ workspace }) => {
      await expect(run(workspace, 'import "./missing.js"')).rejects.toThrow(/cannot find module "\.\/missing\.js"/);
      await expect(run(workspace, "export default (")).rejects.toMatchObject({ code: "EMODULE" });
      await expect(run(workspace, 'import "/workspace/a.js"')).rejects.toThrow(/absolute import/);
    });
  });

  it("holds the graph to 32 levels", async () => {
    await inJsWorkspace(async ({ workspace }) => {
      for (let level = 0; level < 33; level++) {
        await workspace.fs.writeFile(`/workspace/m${level}.js`, `import "./m${level + 1}.js";`);
      }
      await workspace.fs.writeFile("/workspace/m33.js", "export {};");
      await expect(run(workspace, 'import "./m0.js"')).rejects.toThrow(/deeper than 32/);
    });
  });

  it("refuses configured module names that are reserved", async () => {
    await inJsWorkspace(async ({ open }) => {
      // 0.8.0's messages (host-modules.worker.test.ts has the rest of its checks).
      expect(() => open({ modules: { "node:fs": "" } })).toThrow(/is built in and cannot be replaced/);
      expect(() => open({ modules: { "ws:x": "" } })).toThrow(/ws:\* namespace, which is only for host modules/);
      expect(() => open({ modules: { "a/b": "" } })).toThrow(/reserved/);
      expect(() => open({ egress: { mode: "none" }, globalOutbound: null })).toThrow(/not both/);
      expect(() => open({ defaultTimeoutMs: 10, maxTimeoutMs: 5 })).toThrow(/larger than maxTimeoutMs/);
    });
  });

  it("calls host-defined trusted modules with a signal and a deadline", async () => {
    const seen: unknown[] = [];
    await inJsWorkspace(
      async ({ workspace }) => {
        const source =
          'import kv, { get } from "ws:kv"; export default async () => [await get({ k: "a" }), await kv.get({ k: "b" })]';
        const result = await run(workspace, source);
        expect(result.value).toEqual(["value of a", "value of b"]);
        expect(seen).toEqual([
          ["a", true],
          ["b", true],
        ]);
      },
      {
        trustedModules: {
          kv: {
            get: (input, context) => {
              seen.push([(input as { k: string }).k, context.signal instanceof AbortSignal && context.deadline > 0]);
              return `value of ${(input as { k: string }).k}`;
            },
          },
        },
      },
    );
  });
});

describe("ws:git", () => {
  it("(12) refuses clone without allowGitNetwork and cli with -C", async () => {
    await inJsWorkspace(async ({ workspace }) => {
      const source = `import git from "ws:git";
        export default async () => {
          const errors = [];
          try { await git.clone({ url: "https://example.com/r.git" }); } catch (e) { errors.push(e.message); }
          try { await git.cli({ argv: ["-C", "/", "status"] }); } catch (e) { errors.push(e.message); }
          try { await git.cli({ argv: ["--git-dir=/x", "status"] }); } catch (e) { errors.push(e.message); }
          try { await git.cli({ argv: ["fetch"] }); } catch (e) { errors.push(e.message); }
          return errors;
        }`;
      const result = await run(workspace, source);
      const errors = result.value as string[];
      expect(errors).toHaveLength(4);
      expect(errors[0]).toContain("allowGitNetwork");
      expect(errors[1]).toContain("-C is not allowed");
      expect(errors[2]).toContain("--git-dir is not allowed");
      expect(errors[3]).toContain("allowGitNetwork");
    });
  });

  it("passes cli to the Workspace's git, and refuses it with access: read", async () => {
    const calls: unknown[] = [];
    const git = {
      open: () => ({
        cli: async (request: { argv: string[]; cwd?: string }) => {
          calls.push(request);
          return { stdout: "ok\n", stderr: "", exitCode: 0 };
        },
      }),
    };
    await inJsWorkspace(async ({ open }) => {
      const { workspace } = open({}, { git });
      const result = await run(
        workspace,
        'import { cli } from "ws:git"; export default () => cli({ argv: ["status"], cwd: "sub" })',
      );
      expect(result.value).toEqual({ stdout: "ok\n", stderr: "", exitCode: 0 });
      expect(calls).toEqual([{ argv: ["status"], cwd: "/workspace/sub" }]);
      const readOnly = open({ access: "read" }, { git }).workspace;
      const refused = await run(
        readOnly,
        'import { cli } from "ws:git"; export default () => cli({ argv: ["status"] })',
      );
      expect(refused.stderr).toContain("EROFS");
      expect(calls).toHaveLength(1);
    });
  });
});

describe("egress", () => {
  it("blocks fetch with egress none, and sends it through the gateway with http-gateway", async () => {
    await inJsWorkspace(async ({ workspace, open, gateway }) => {
      const source = `export default async () => {
        try { const response = await fetch("http://example.com/x"); return await response.text(); }
        catch (e) { return "blocked: " + e.message; }
      }`;
      const blocked = await run(workspace, source);
      expect(blocked.value).toMatch(/^blocked: .*not permitted to access the internet/);
      const viaGateway = await run(open({ egress: { mode: "http-gateway", gateway: gateway() } }).workspace, source);
      expect(viaGateway.value).toBe("gateway saw GET http://example.com/x");
    });
  });
});

describe("journal", () => {
  it("replays a finished execution, from a seq and from the tail", async () => {
    await inJsWorkspace(async ({ workspace }) => {
      const source = 'export default () => { console.log("a"); console.log("b"); return 1; }';
      await run(workspace, source, { id: "replay" });
      const full = await (await workspace.runtime.getExec("replay", { encoding: "utf8" })).result();
      expect(full).toMatchObject({ stdout: "a\nb\n", value: 1, status: "completed" });
      const events = [];
      for await (const event of await workspace.runtime.getExec("replay", { encoding: "utf8", resume: 1 }))
        events.push(event);
      expect(events.map((event) => event.seq)).toEqual([2, 3]);
      const tail = [];
      for await (const event of await workspace.runtime.getExec("replay", { resume: "tail" })) tail.push(event.name);
      expect(tail).toEqual(["exit"]);
    });
  });

  it("(17) a finished id cannot be reused; disposeExec forgets it; unknown ids are ENOENT", async () => {
    await inJsWorkspace(async ({ workspace }) => {
      await run(workspace, "export default 1", { id: "once" });
      await expect(run(workspace, "export default 2", { id: "once" })).rejects.toMatchObject({ code: "EEXEC_EXISTS" });
      await workspace.runtime.disposeExec("once", { backend: "worker-javascript" });
      await expect(workspace.runtime.getExec("once", { backend: "worker-javascript" })).rejects.toMatchObject({
        code: "ENOENT",
      });
      expect((await run(workspace, "export default 2", { id: "once" })).value).toBe(2);
    });
  });

  it("keeps at most maxRetainedExecutions, and none older than retentionMs", async () => {
    let now = 1_000_000;
    await inJsWorkspace(async ({ open }) => {
      const { workspace } = open({ maxRetainedExecutions: 2, retentionMs: 60_000 }, { now: () => now });
      for (const id of ["r1", "r2", "r3"]) {
        await run(workspace, "export default 1", { id });
        now += 1;
      }
      await expect(workspace.runtime.getExec("r1")).rejects.toMatchObject({ code: "ENOENT" });
      await workspace.runtime.getExec("r3");
      now += 60_001;
      await run(workspace, "export default 1", { id: "r4" });
      await expect(workspace.runtime.getExec("r2")).rejects.toMatchObject({ code: "ENOENT" });
      await expect(workspace.runtime.getExec("r3")).rejects.toMatchObject({ code: "ENOENT" });
      expect((await (await workspace.runtime.getExec("r4")).result()).value).toBe(1);
    });
  });
});
