import { describe, expect, it } from "vitest";
import { withFs } from "#harness";
import { expectCode, revOf } from "../test/util.js";

describe("paths", () => {
  it("rejects relative, empty, NUL and root-escaping paths with EINVAL on every method (2)", () =>
    withFs(async ({ fs, db }) => {
      await fs.mkdir("/w");
      await fs.writeFile("/w/f", "x");
      const before = revOf(db);
      for (const bad of ["", "w/f", "./w", "/w/\0f", "/..", "/w/../..", "relative"]) {
        await expectCode(fs.readFile(bad, "utf8"), "EINVAL");
        await expectCode(fs.readFile(bad), "EINVAL");
        await expectCode(fs.writeFile(bad, "y"), "EINVAL");
        await expectCode(fs.mkdir(bad, { recursive: true }), "EINVAL");
        await expectCode(fs.rm(bad, { recursive: true, force: true }), "EINVAL");
        await expectCode(fs.readdir(bad), "EINVAL");
        await expectCode(fs.stat(bad), "EINVAL");
        await expectCode(fs.lstat(bad), "EINVAL");
        await expectCode(fs.readlink(bad), "EINVAL");
        await expectCode(fs.chmod(bad, 0o600), "EINVAL");
        await expectCode(fs.symlink("/w/f", bad), "EINVAL");
        await expectCode(fs.find(bad), "EINVAL");
        await expectCode(fs.ls(bad), "EINVAL");
        await expectCode(fs.grep("x", bad), "EINVAL");
      }
      expect(revOf(db)).toBe(before);
      expect(await fs.readFile("/w/f", "utf8")).toBe("x");
    }));

  it("collapses //, drops . and trailing /, resolves .. textually (3)", () =>
    withFs(async ({ fs }) => {
      await fs.mkdir("/w/x", { recursive: true });
      await fs.writeFile("/w//x/./y/../z", "z");
      expect(await fs.readFile("/w/x/z", "utf8")).toBe("z");
      expect(await fs.readFile("/w/x/z/", "utf8")).toBe("z");
      expect((await fs.stat("/w/x/")).isDirectory).toBe(true);
    }));

  it("resolves .. before symlinks", () =>
    withFs(async ({ fs }) => {
      await fs.mkdir("/a/b", { recursive: true });
      await fs.mkdir("/c");
      await fs.writeFile("/c/f", "from c");
      await fs.writeFile("/a/f", "from a");
      await fs.symlink("/c", "/a/b/l");
      // Textually /a/b/l/../f is /a/b/f: the link is never looked at.
      await expectCode(fs.readFile("/a/b/l/../f", "utf8"), "ENOENT");
      await fs.writeFile("/a/b/f", "from b");
      expect(await fs.readFile("/a/b/l/../f", "utf8")).toBe("from b");
    }));

  it("treats backslash as an ordinary character and compares names byte-exact", () =>
    withFs(async ({ fs }) => {
      await fs.writeFile("/a\\b", "1");
      await fs.writeFile("/A\\b", "2");
      expect(await fs.readFile("/a\\b", "utf8")).toBe("1");
      expect((await fs.readdir("/")).map((e) => e.name)).toEqual(["A\\b", "a\\b"]);
    }));

  it("starts with only / and protects it (7, root rules)", () =>
    withFs(async ({ fs }) => {
      expect(await fs.readdir("/")).toEqual([]);
      const root = await fs.stat("/");
      expect(root).toMatchObject({ name: "", inode: 1, isDirectory: true, mode: 0o755 });
      await expectCode(fs.rm("/", { recursive: true, force: true }), "EPERM");
      await expectCode(fs.writeFile("/", "x"), "EISDIR");
      await expectCode(fs.mkdir("/"), "EEXIST");
      await expectCode(fs.mkdir("/", { recursive: true }), "EEXIST");
      await expectCode(fs.symlink("/x", "/"), "EEXIST");
    }));

  it("error shape: WorkspaceFsError with code, path and a message ending in the path", () =>
    withFs(async ({ fs }) => {
      const error = await fs.readFile("/nope", "utf8").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(error).toMatchObject({ name: "WorkspaceFsError", code: "ENOENT", path: "/nope" });
      expect((error as Error).message).toBe("ENOENT: no such file or directory, open '/nope'");
    }));
});
