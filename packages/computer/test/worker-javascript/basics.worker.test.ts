/**
 * worker-javascript against a real Durable Object and the real Worker
 * Loader: calling modules, imports, the process shim, output, failures.
 * A number in a test name is a stable case id; `docs/worker-javascript.md` describes the behavior.
 */
import { describe, expect, it } from "vitest";
import { STDIO_TRUNCATED_MARKER } from "../../src/backends/worker-javascript/index.js";
import { inJsWorkspace, JS, run } from "./harness.worker.js";

describe("calling a module", () => {
  it("(9) calls the default export with input and returns its value", async () => {
    await inJsWorkspace(async ({ workspace }) => {
      const result = await run(workspace, "export default i => i.n * 2", { input: { n: 21 } });
      expect(result).toMatchObject({ status: "completed", exitCode: 0, value: 42, stdout: "", stderr: "" });
    });
  });

  it("uses a non-function default as the value, and null without a default", async () => {
    await inJsWorkspace(async ({ workspace }) => {
      expect((await run(workspace, "export default { a: [1, 'b', null] }")).value).toEqual({ a: [1, "b", null] });
      expect((await run(workspace, "export const x = 1")).value).toBeNull();
      expect((await run(workspace, "export default async () => { await 0 }")).value).toBeNull();
      expect((await run(workspace, "const v = await Promise.resolve(7); export default () => v")).value).toBe(7);
    });
  });

  it("streams console output live and keeps stdout and stderr apart", async () => {
    await inJsWorkspace(async ({ workspace }) => {
      const source = `export default async () => {
        console.log("one", { a: 1 });
        console.error("two");
        process.stdout.write("three");
        return "done";
      }`;
      const handle = await workspace.runtime.exec(source, JS);
      const events = [];
      for await (const event of handle) events.push(event);
      expect(events.map((event) => [event.seq, event.name])).toEqual([
        [1, "stdout"],
        [2, "stderr"],
        [3, "stdout"],
        [4, "exit"],
      ]);
      expect(events[0]).toMatchObject({ value: 'one {"a":1}\n' });
      expect(events[3]).toMatchObject({ code: 0, result: "done" });
    });
  });

  it("(13) gives process.env only the caller's env, stdin once, and the exec cwd", async () => {
    await inJsWorkspace(async ({ workspace }) => {
      const source = `export default async () => {
        const chunks = [];
        for await (const chunk of process.stdin) chunks.push(String(chunk));
        return { who: process.env.WHO, keys: Object.keys(process.env), stdin: chunks, cwd: process.cwd(),
          tty: process.stdin.isTTY, platform: process.platform };
      }`;
      const result = await run(workspace, source, { env: { WHO: "x" }, stdin: "piped" });
      expect(result.value).toEqual({
        who: "x",
        keys: ["WHO"],
        stdin: ["piped"],
        cwd: "/workspace",
        tty: false,
        platform: "linux",
      });
    });
  });

  it("(14) caps stdout and stderr together and marks the cut", async () => {
    await inJsWorkspace(
      async ({ workspace }) => {
        const source = `export default () => {
          for (let i = 0; i < 50; i++) { console.log("out-" + "x".repeat(40)); console.error("err-" + "y".repeat(40)); }
        }`;
        const result = await run(workspace, source);
        const streams = [String(result.stdout), String(result.stderr)];
        const bytes = streams.reduce((sum, text) => sum + new TextEncoder().encode(text).byteLength, 0);
        expect(bytes).toBeLessThanOrEqual(1024);
        expect(bytes).toBeGreaterThan(900);
        expect(streams.filter((text) => text.endsWith(STDIO_TRUNCATED_MARKER))).toHaveLength(1);
        expect(result.status).toBe("completed");
      },
      { maxStdioBytes: 1024 },
    );
  });

  it("(18) a module that writes a file and then throws fails, and the file stays", async () => {
    await inJsWorkspace(async ({ workspace }) => {
      const source = `import { writeFile } from "node:fs/promises";
        export default async () => { await writeFile("kept.txt", "written"); throw new Error("boom"); }`;
      const result = await run(workspace, source);
      expect(result).toMatchObject({ status: "failed", exitCode: 1 });
      // The message alone, as the originals print it (the differential suite compares it with 0.8.0).
      expect(result.stderr).toBe("boom\n");
      expect(await workspace.fs.readFile("/workspace/kept.txt", "utf8")).toBe("written");
    });
  });

  it("a module that writes 100 files and then throws keeps all of them", async () => {
    await inJsWorkspace(async ({ workspace }) => {
      const source = `import fs from "node:fs/promises";
        export default async () => {
          await fs.mkdir("out");
          for (let i = 0; i < 100; i++) await fs.writeFile("out/f" + i + ".txt", String(i));
          throw new Error("after 100");
        }`;
      const result = await run(workspace, source);
      expect(result.status).toBe("failed");
      const names = await workspace.fs.readdir("/workspace/out");
      expect(names).toHaveLength(100);
      expect(await workspace.fs.readFile("/workspace/out/f99.txt", "utf8")).toBe("99");
    });
  });

  it("times out with exit 1", async () => {
    await inJsWorkspace(async ({ workspace }) => {
      const source = `import { stat } from "node:fs/promises";
        export default async () => { for (;;) { await new Promise((r) => setTimeout(r, 5)); await stat("."); } }`;
      const result = await run(workspace, source, { timeoutMs: 200 });
      expect(result).toMatchObject({ status: "failed", exitCode: 1 });
      expect(result.stderr).toContain("JavaScript execution timed out");
    });
  });
});

describe("node:fs/promises", () => {
  it("reads, writes, lists, stats and links inside the root", async () => {
    await inJsWorkspace(async ({ workspace }) => {
      await workspace.fs.writeFile("/workspace/in.txt", "hello");
      const source = `import fs from "node:fs/promises";
        import { promises } from "node:fs";
        export default async () => {
          const text = await fs.readFile("in.txt", "utf8");
          const bytes = await fs.readFile("/workspace/in.txt");
          await fs.mkdir("d/e", { recursive: true });
          await fs.writeFile("d/e/x.bin", new Uint8Array([1, 2, 3]), { mode: 0o600 });
          await fs.symlink("../in.txt", "d/link");
          let exclusive = "";
          try { await fs.writeFile("in.txt", "again", { flag: "wx" }); } catch (e) { exclusive = e.code; }
          let missingParent = "";
          try { await fs.writeFile("nope/x.txt", "x"); } catch (e) { missingParent = e.code; }
          const dirents = await promises.readdir("d", { withFileTypes: true });
          const st = await fs.stat("d/e/x.bin");
          const lst = await fs.lstat("d/link");
          await fs.chmod("d/e/x.bin", 0o644);
          await fs.access("in.txt");
          await fs.rm("d/e", { recursive: true });
          return {
            text, size: bytes.length, isBuffer: typeof bytes.toString === "function" && bytes.toString() === "hello",
            exclusive, missingParent,
            dirents: dirents.map((d) => [d.name, d.isDirectory(), d.isSymbolicLink()]),
            st: [st.size, st.isFile(), (st.mode & 0o777).toString(8)],
            link: [lst.isSymbolicLink(), await fs.readlink("d/link")],
            after: await fs.readdir("d"),
          };
        }`;
      const result = await run(workspace, source);
      expect(result.stderr).toBe("");
      expect(result.value).toEqual({
        text: "hello",
        size: 5,
        isBuffer: true,
        exclusive: "EEXIST",
        missingParent: "ENOENT",
        dirents: [
          ["e", true, false],
          ["link", false, true],
        ],
        st: [3, true, "600"],
        link: [true, "../in.txt"],
        after: ["link"],
      });
    });
  });

  it("(11) access: read refuses every write and writes nothing", async () => {
    await inJsWorkspace(
      async ({ workspace }) => {
        await workspace.fs.writeFile("/workspace/a.txt", "original");
        const source = `import fs from "node:fs/promises";
          export default async () => {
            const codes = [];
            for (const op of [
              () => fs.writeFile("a.txt", "changed"),
              () => fs.writeFile("new.txt", "x"),
              () => fs.mkdir("dir"),
              () => fs.rm("a.txt"),
              () => fs.chmod("a.txt", 0o600),
              () => fs.symlink("a.txt", "l"),
            ]) { try { await op(); codes.push("ok"); } catch (e) { codes.push(e.code); } }
            return { codes, read: await fs.readFile("a.txt", "utf8") };
          }`;
        const result = await run(workspace, source);
        expect(result.value).toEqual({ codes: Array(6).fill("EROFS"), read: "original" });
        expect(await workspace.fs.readFile("/workspace/a.txt", "utf8")).toBe("original");
        expect(await workspace.fs.readdir("/workspace")).toHaveLength(1);
      },
      { access: "read" },
    );
  });
});
