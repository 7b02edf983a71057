import { describe, expect, it } from "vitest";
import { withFs } from "#harness";
import { expectCode } from "../test/util.js";
import { CHUNK_SIZE } from "./constants.js";

describe("find / ls / grep", () => {
  it("find matches paths relative to dir with * ** **/ ? and literal brackets (14)", () =>
    withFs(async ({ fs }) => {
      await fs.mkdir("/p/src/lib", { recursive: true });
      for (const f of ["/p/a.ts", "/p/src/b.ts", "/p/src/lib/c.ts", "/p/src/d.js", "/p/[a].ts", "/p/x.ts.bak"]) {
        await fs.writeFile(f, "x");
      }
      const paths = async (pattern?: string) => (await fs.find("/p", pattern)).map((e) => e.path);
      expect(await paths("**/*.ts")).toEqual(["/p/[a].ts", "/p/a.ts", "/p/src/b.ts", "/p/src/lib/c.ts"]);
      expect(await paths("*.ts")).toEqual(["/p/[a].ts", "/p/a.ts"]);
      expect(await paths("[a].ts")).toEqual(["/p/[a].ts"]);
      expect(await paths("src/**")).toEqual(["/p/src/b.ts", "/p/src/d.js", "/p/src/lib", "/p/src/lib/c.ts"]);
      expect(await paths("?.ts")).toEqual(["/p/a.ts"]);
      expect(await paths()).toEqual([
        "/p/[a].ts",
        "/p/a.ts",
        "/p/src",
        "/p/src/b.ts",
        "/p/src/d.js",
        "/p/src/lib",
        "/p/src/lib/c.ts",
        "/p/x.ts.bak",
      ]);
      expect(await fs.find("/p", "src")).toEqual([{ path: "/p/src", type: "dir" }]);
      expect((await fs.find("/p", "", { offset: 2, limit: 2 })).map((e) => e.path)).toEqual(["/p/src", "/p/src/b.ts"]);
    }));

  it("find does not enter symlinks and reports its errors", () =>
    withFs(async ({ fs }) => {
      await fs.mkdir("/d/in", { recursive: true });
      await fs.writeFile("/d/in/f", "x");
      await fs.mkdir("/s");
      await fs.symlink("/d", "/s/link");
      expect(await fs.find("/s")).toEqual([{ path: "/s/link", type: "symlink" }]);
      await expectCode(fs.find("/nope"), "ENOENT");
      await expectCode(fs.find("/d/in/f"), "ENOTDIR");
      await expect(fs.find("/d", "", { limit: -1 })).rejects.toBeInstanceOf(TypeError);
    }));

  it("ls lists files under a prefix by whole segments; missing is [] (15)", () =>
    withFs(async ({ fs }) => {
      await fs.mkdir("/notes/sub", { recursive: true });
      await fs.mkdir("/notes-archive");
      await fs.writeFile("/notes/b", "");
      await fs.writeFile("/notes/sub/a", "");
      await fs.writeFile("/notes-archive/x", "");
      await fs.symlink("/notes/b", "/notes/link");
      expect(await fs.ls("/notes")).toEqual(["/notes/b", "/notes/sub/a"]);
      expect(await fs.ls("/notes/b")).toEqual(["/notes/b"]);
      expect(await fs.ls("/missing")).toEqual([]);
      await fs.symlink("/notes", "/ln");
      expect(await fs.ls("/ln")).toEqual([]);
      expect(await fs.ls("/")).toEqual(["/notes-archive/x", "/notes/b", "/notes/sub/a"]);
    }));

  it("grep is literal and case-sensitive by default, lines from 1, context includes the match (16)", () =>
    withFs(async ({ fs }) => {
      await fs.mkdir("/g");
      await fs.writeFile("/g/a.txt", "one\nTwo a.b\nthree\nfour a.b\nfive\n");
      await fs.writeFile("/g/b.md", "a.b here\n");
      expect(await fs.grep("a.b", "/g")).toEqual([
        { path: "/g/a.txt", line: 2, text: "Two a.b" },
        { path: "/g/a.txt", line: 4, text: "four a.b" },
        { path: "/g/b.md", line: 1, text: "a.b here" },
      ]);
      expect(await fs.grep("axb", "/g")).toEqual([]);
      expect(await fs.grep("two", "/g")).toEqual([]);
      expect(await fs.grep("two", "/g", { ignoreCase: true })).toHaveLength(1);
      expect((await fs.grep("^f", "/g", { regex: true })).map((m) => m.line)).toEqual([4, 5]);
      const [first] = await fs.grep("three", "/g/a.txt", { context: 1 });
      expect(first?.context).toEqual([
        { line: 2, text: "Two a.b", isMatch: false },
        { line: 3, text: "three", isMatch: true },
        { line: 4, text: "four a.b", isMatch: false },
      ]);
      expect(await fs.grep("a.b", "/g", { include: "*.md" })).toEqual([{ path: "/g/b.md", line: 1, text: "a.b here" }]);
      expect((await fs.grep("a.b", "/g", { offset: 1, limit: 1 })).map((m) => m.line)).toEqual([4]);
    }));

  it("grep context at file edges and with adjacent matches", () =>
    withFs(async ({ fs }) => {
      await fs.writeFile("/f", "m1\nm2\nx\ny\nm5");
      const matches = await fs.grep("m", "/f", { context: 2 });
      expect(matches.map((m) => m.line)).toEqual([1, 2, 5]);
      expect(matches[0]?.context?.map((l) => l.line)).toEqual([1, 2, 3]);
      expect(matches[1]?.context?.map((l) => [l.line, l.isMatch])).toEqual([
        [1, true],
        [2, true],
        [3, false],
        [4, false],
      ]);
      expect(matches[2]?.context?.map((l) => l.line)).toEqual([3, 4, 5]);
    }));

  it("grep finds a line that straddles a chunk boundary", () =>
    withFs(async ({ fs }) => {
      const filler = "x".repeat(CHUNK_SIZE - 3);
      await fs.writeFile("/big", `${filler}\nNEEDLE-in-two-chunks\ntail`);
      expect(await fs.grep("NEEDLE-in-two", "/big")).toEqual([{ path: "/big", line: 2, text: "NEEDLE-in-two-chunks" }]);
      const multibyte = `${"y".repeat(CHUNK_SIZE - 1)}é!`;
      await fs.writeFile("/mb", multibyte);
      expect(await fs.grep("é!", "/mb")).toHaveLength(1);
    }));

  it("grep errors: missing path, bad regex, bad options; binary files are skipped", () =>
    withFs(async ({ fs }) => {
      await fs.writeFile("/bin", new Uint8Array([0x61, 0, 0x61]));
      await fs.writeFile("/txt", "a");
      expect((await fs.grep("a", "/")).map((m) => m.path)).toEqual(["/txt"]);
      await expectCode(fs.grep("a", "/nope"), "ENOENT");
      await expect(fs.grep("(", "/", { regex: true })).rejects.toBeInstanceOf(TypeError);
      await expect(fs.grep("a", "/", { context: -1 })).rejects.toBeInstanceOf(TypeError);
      await expect(fs.grep("a", "/", { limit: 0.5 })).rejects.toBeInstanceOf(TypeError);
    }));
});
