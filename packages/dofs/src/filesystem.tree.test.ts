import { describe, expect, it } from "vitest";
import { withFs } from "#harness";
import { expectCode, revOf } from "../test/util.js";

describe("mkdir / rm / readdir / stat / symlink / chmod", () => {
  it("mkdir: EEXIST on an existing path, recursive is fine, recursive over a file is EEXIST (5)", () =>
    withFs(async ({ fs }) => {
      await fs.mkdir("/d");
      await expectCode(fs.mkdir("/d"), "EEXIST");
      await fs.mkdir("/d", { recursive: true });
      await fs.mkdir("/d/e/f", { recursive: true });
      expect((await fs.stat("/d/e/f")).isDirectory).toBe(true);
      await fs.writeFile("/file", "x");
      await expectCode(fs.mkdir("/file", { recursive: true }), "EEXIST");
      await expectCode(fs.mkdir("/file/sub", { recursive: true }), "ENOTDIR");
      await expectCode(fs.mkdir("/missing/x"), "ENOENT");
    }));

  it("mkdir modes: explicit for the leaf, 0o755 for created ancestors", () =>
    withFs(async ({ fs }) => {
      await fs.mkdir("/a/b/c", { recursive: true, mode: 0o700 });
      expect((await fs.stat("/a")).mode).toBe(0o755);
      expect((await fs.stat("/a/b")).mode).toBe(0o755);
      expect((await fs.stat("/a/b/c")).mode).toBe(0o700);
    }));

  it("mkdir does not follow a symlinked parent", () =>
    withFs(async ({ fs }) => {
      await fs.mkdir("/real");
      await fs.symlink("/real", "/link");
      await expectCode(fs.mkdir("/link/x"), "ENOTDIR");
      await expectCode(fs.mkdir("/link/x", { recursive: true }), "ENOTDIR");
      await expectCode(fs.mkdir("/link"), "EEXIST");
    }));

  it("a no-op recursive mkdir still uses one rev; a failed one uses none", () =>
    withFs(async ({ fs, db }) => {
      await fs.mkdir("/d");
      const r = revOf(db);
      await fs.mkdir("/d", { recursive: true });
      expect(revOf(db)).toBe(r + 1);
      await expectCode(fs.mkdir("/d"), "EEXIST");
      expect(revOf(db)).toBe(r + 1);
    }));

  it("rm: ENOTEMPTY, ENOENT, force, EPERM on / (6)", () =>
    withFs(async ({ fs }) => {
      await fs.mkdir("/d/sub", { recursive: true });
      await fs.writeFile("/d/sub/f", "x");
      await expectCode(fs.rm("/d"), "ENOTEMPTY");
      await expectCode(fs.rm("/nope"), "ENOENT");
      await fs.rm("/nope", { force: true });
      await fs.rm("/no/such/parent", { force: true });
      await expectCode(fs.rm("/", { recursive: true, force: true }), "EPERM");
      await fs.rm("/d", { recursive: true });
      await expectCode(fs.stat("/d"), "ENOENT");
      await fs.mkdir("/empty");
      await fs.rm("/empty");
      await expectCode(fs.stat("/empty"), "ENOENT");
    }));

  it("rm of a link to a directory removes only the link (19)", () =>
    withFs(async ({ fs }) => {
      await fs.mkdir("/d");
      await fs.writeFile("/d/f", "keep");
      await fs.symlink("/d", "/l");
      await fs.rm("/l", { recursive: true });
      await expectCode(fs.lstat("/l"), "ENOENT");
      expect(await fs.readFile("/d/f", "utf8")).toBe("keep");
      await fs.mkdir("/tree");
      await fs.symlink("/d", "/tree/inner");
      await fs.rm("/tree", { recursive: true });
      expect(await fs.readFile("/d/f", "utf8")).toBe("keep");
    }));

  it("readdir: byte order, paging, ENOTDIR on a file, TypeError on bad limits (13)", () =>
    withFs(async ({ fs }) => {
      await fs.mkdir("/d");
      for (const name of ["b", "a", "B", "é", "z", "a-b", "a.b"]) await fs.writeFile(`/d/${name}`, name);
      await fs.mkdir("/d/sub");
      await fs.symlink("a", "/d/ln");
      const all = await fs.readdir("/d");
      expect(all.map((e) => e.name)).toEqual(["B", "a", "a-b", "a.b", "b", "ln", "sub", "z", "é"]);
      expect(all.find((e) => e.name === "sub")).toMatchObject({ isDirectory: true, size: 0, parentPath: "/d" });
      expect(all.find((e) => e.name === "ln")).toMatchObject({ isSymbolicLink: true, size: 1 });
      expect(all.find((e) => e.name === "a-b")).toMatchObject({ isFile: true, size: 3 });
      expect((await fs.readdir("/d", { limit: 2, offset: 3 })).map((e) => e.name)).toEqual(["a.b", "b"]);
      expect(await fs.readdir("/d", { offset: 100 })).toEqual([]);
      await expectCode(fs.readdir("/d/a"), "ENOTDIR");
      await expectCode(fs.readdir("/nope"), "ENOENT");
      for (const limit of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "3" as unknown as number]) {
        await expect(fs.readdir("/d", { limit })).rejects.toBeInstanceOf(TypeError);
      }
      await expect(fs.readdir("/d", { offset: -2 })).rejects.toBeInstanceOf(TypeError);
    }));

  it("stat follows links, lstat does not; a file as parent is ENOENT (7)", () =>
    withFs(async ({ fs }) => {
      await fs.writeFile("/f", "12345");
      await fs.symlink("/f", "/l");
      expect(await fs.stat("/l")).toMatchObject({ name: "l", isFile: true, size: 5, mode: 0o644 });
      expect(await fs.lstat("/l")).toMatchObject({ name: "l", isSymbolicLink: true, size: 2, mode: 0o777 });
      await expectCode(fs.stat("/f/x"), "ENOENT");
      await expectCode(fs.lstat("/f/x"), "ENOENT");
      expect((await fs.stat("/")).name).toBe("");
    }));

  it("readlink returns the target as stored; EINVAL for a non-link", () =>
    withFs(async ({ fs }) => {
      await fs.symlink("../somewhere/./odd//path", "/l");
      expect(await fs.readlink("/l")).toBe("../somewhere/./odd//path");
      await fs.writeFile("/f", "x");
      await expectCode(fs.readlink("/f"), "EINVAL");
      await expectCode(fs.readlink("/nope"), "ENOENT");
    }));

  it("symlink: EEXIST, ENOENT, ENOTDIR for a symlinked parent, EINVAL for an empty target", () =>
    withFs(async ({ fs }) => {
      await fs.mkdir("/d");
      await fs.symlink("/d", "/ld");
      await fs.symlink("x", "/l");
      await expectCode(fs.symlink("y", "/l"), "EEXIST");
      await expectCode(fs.symlink("y", "/d"), "EEXIST");
      await expectCode(fs.symlink("y", "/missing/l"), "ENOENT");
      await expectCode(fs.symlink("y", "/ld/l"), "ENOTDIR");
      await expectCode(fs.symlink("", "/empty"), "EINVAL");
    }));

  it("chmod follows links, bumps rev and mtime", () => {
    let t = 1000;
    return withFs(
      async ({ fs, db }) => {
        await fs.writeFile("/f", "x");
        await fs.symlink("/f", "/l");
        const r = revOf(db);
        t = 5000;
        await fs.chmod("/l", 0o600);
        expect(await fs.stat("/f")).toMatchObject({ mode: 0o600, mtime: 5000 });
        expect((await fs.lstat("/l")).mode).toBe(0o777);
        expect(revOf(db)).toBe(r + 1);
        await expectCode(fs.chmod("/nope", 0o600), "ENOENT");
      },
      { now: () => t },
    );
  });

  it("never touches a parent's mtime or rev when children change", () => {
    let t = 1000;
    return withFs(
      async ({ fs }) => {
        await fs.mkdir("/d");
        const before = await fs.stat("/d");
        t = 9000;
        await fs.writeFile("/d/f", "x");
        await fs.rm("/d/f");
        await fs.mkdir("/d/sub");
        expect((await fs.stat("/d")).mtime).toBe(before.mtime);
      },
      { now: () => t },
    );
  });

  it("exposes its clock as `now` (the original's member), the one writes are stamped with", () => {
    let t = 1234;
    return withFs(
      async ({ fs }) => {
        expect(fs.now()).toBe(1234);
        t = 4321;
        const { now } = fs;
        expect(now()).toBe(4321);
        await fs.writeFile("/f", "x");
        expect((await fs.stat("/f")).mtime).toBe(4321);
      },
      { now: () => t },
    );
  });
});
