/**
 * Escape attempts: each must fail, and leave nothing behind. The module runs
 * with the default options (egress none, access read-write, root /workspace).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { inJsWorkspace, run } from "./harness.worker.js";

describe("escape attempts", () => {
  it("../ imports that leave the root are refused before a Worker exists", async () => {
    await inJsWorkspace(async ({ workspace, loads }) => {
      await workspace.fs.writeFile("/outside.js", "export default 'secret'");
      await expect(run(workspace, 'import s from "../outside.js"; export default s')).rejects.toThrow(
        /resolves outside \/workspace/,
      );
      await expect(run(workspace, 'export default () => import("../../../outside.js")')).rejects.toMatchObject({
        code: "EMODULE",
      });
      expect(loads()).toBe(0);
    });
  });

  it("a symlink pointing outside the root is neither imported nor read nor written through", async () => {
    await inJsWorkspace(async ({ workspace, loads }) => {
      await workspace.fs.mkdir("/secret");
      await workspace.fs.writeFile("/secret/key.js", "export default 'secret'");
      await workspace.fs.symlink("/secret", "/workspace/link");
      await workspace.fs.symlink("/secret/key.js", "/workspace/key.js");
      await expect(run(workspace, 'import s from "./link/key.js"; export default s')).rejects.toThrow(/symlink/);
      await expect(run(workspace, 'import s from "./key.js"; export default s')).rejects.toThrow(/symlink/);
      expect(loads()).toBe(0);
      const source = `import fs from "node:fs/promises";
        export default async () => {
          const codes = [];
          for (const op of [
            () => fs.readFile("link/key.js", "utf8"),
            () => fs.readFile("key.js", "utf8"),
            () => fs.writeFile("link/new.js", "x"),
            () => fs.writeFile("key.js", "overwritten"),
            () => fs.readdir("link"),
            () => fs.stat("key.js"),
            () => fs.readFile("/secret/key.js", "utf8"),
            () => fs.writeFile("/escaped.txt", "x"),
            () => fs.readFile("../secret/key.js", "utf8"),
          ]) { try { await op(); codes.push("ok"); } catch (e) { codes.push(e.code); } }
          return { codes, link: await fs.readlink("key.js"), lstat: (await fs.lstat("link")).isSymbolicLink() };
        }`;
      const result = await run(workspace, source);
      expect(result.value).toEqual({
        codes: ["ELOOP", "ELOOP", "ELOOP", "ELOOP", "ELOOP", "ELOOP", "EACCES", "EACCES", "EACCES"],
        link: "/secret/key.js",
        lstat: true,
      });
      expect(await workspace.fs.readFile("/secret/key.js", "utf8")).toBe("export default 'secret'");
      expect(await workspace.fs.readdir("/secret")).toHaveLength(1);
      await expect(workspace.fs.stat("/escaped.txt")).rejects.toMatchObject({ code: "ENOENT" });
    });
  });

  it('import("node:child_process") and other unconfigured builtins are refused', async () => {
    await inJsWorkspace(async ({ workspace, loads }) => {
      await expect(run(workspace, 'export default () => import("node:child_process")')).rejects.toThrow(
        /bare import "node:child_process" is not a configured module/,
      );
      await expect(run(workspace, 'import { exec } from "node:child_process"; export default 1')).rejects.toMatchObject(
        {
          code: "EMODULE",
        },
      );
      await expect(run(workspace, 'import "ws:secrets"; export default 1')).rejects.toThrow(/not a trusted module/);
      await expect(run(workspace, 'import fs from "fs"; export default 1')).rejects.toMatchObject({ code: "EMODULE" });
      expect(loads()).toBe(0);
    });
  });

  it("fetch with egress none fails, and reaches nothing", async () => {
    await inJsWorkspace(async ({ workspace }) => {
      const source = `export default async () => {
        const errors = [];
        for (const url of ["http://example.com/", "http://127.0.0.1:1/", "https://cloudflare.com/"]) {
          try { await fetch(url); errors.push("reached " + url); } catch (e) { errors.push(e.message); }
        }
        return errors;
      }`;
      const result = await run(workspace, source);
      for (const message of result.value as string[]) expect(message).toMatch(/not permitted to access the internet/);
    });
  });

  it("the host's process.env and bindings are out of reach", async () => {
    expect(env.HOST_SECRET).toBe("host-only-value");
    await inJsWorkspace(async ({ workspace }) => {
      const source = `export default async () => ({
        fromProcess: globalThis.process.env.HOST_SECRET ?? null,
        keys: Object.keys(process.env),
        text: JSON.stringify(process.env),
      })`;
      const result = await run(workspace, source, { env: { ONLY: "mine" } });
      expect(result.value).toEqual({ fromProcess: null, keys: ["ONLY"], text: '{"ONLY":"mine"}' });
      expect(JSON.stringify(result)).not.toContain("host-only-value");
    });
  });

  it("a result with a cycle, a BigInt or NaN fails without a value", async () => {
    await inJsWorkspace(async ({ workspace }) => {
      const cycle = await run(workspace, "export default () => { const a = { b: {} }; a.b.a = a; return a; }");
      expect(cycle).toMatchObject({ status: "failed", exitCode: 1 });
      expect(cycle.stderr).toContain("result.b.a is a cycle");
      expect("value" in cycle).toBe(false);
      const bigint = await run(workspace, "export default () => ({ n: 10n })");
      expect(bigint).toMatchObject({ status: "failed", exitCode: 1 });
      expect(bigint.stderr).toContain("result.n is a BigInt");
      const nan = await run(workspace, "export default () => [NaN]");
      expect(nan.stderr).toContain("result[0] is NaN");
      const instance = await run(workspace, "export default () => new Map()");
      expect(instance.stderr).toContain("not a plain object");
    });
  });

  it("a module that tampers with JSON in its isolate still cannot hand the host a non-JSON value", async () => {
    await inJsWorkspace(async ({ workspace }) => {
      const source = 'JSON.stringify = () => "{not json"; export default () => ({ a: 1 })';
      const result = await run(workspace, source);
      expect(result).toMatchObject({ status: "failed", exitCode: 1 });
      expect(result.stderr).toContain("not valid JSON");
    });
  });
});
