import { describe, expect, it } from "vitest";
import { withFs } from "#harness";
import { bytesOf, expectCode, expectSameBytes, patternBytes, piecesOf, raggedStream, revOf } from "../test/util.js";
import { CHUNK_SIZE } from "./constants.js";

describe("readFile / writeFile", () => {
  it("round-trips text as utf8 and as a stream (1)", () =>
    withFs(async ({ fs }) => {
      await fs.writeFile("/hi", "hi");
      expect(await fs.readFile("/hi", "utf8")).toBe("hi");
      expect(await fs.readFile("/hi", { encoding: "utf8" })).toBe("hi");
      expect(new TextDecoder().decode(await bytesOf(await fs.readFile("/hi")))).toBe("hi");
    }));

  it("writeFile errors: missing parent, file parent, directory target (4)", () =>
    withFs(async ({ fs, db }) => {
      await fs.writeFile("/f", "x");
      await fs.mkdir("/d");
      await fs.symlink("/f", "/lf");
      const before = revOf(db);
      await expectCode(fs.writeFile("/missing/x", "y"), "ENOENT");
      await expectCode(fs.writeFile("/f/x", "y"), "ENOTDIR");
      await expectCode(fs.writeFile("/lf/x", "y"), "ENOTDIR");
      await expectCode(fs.writeFile("/d", "y"), "EISDIR");
      await expectCode(fs.writeFile("/", "y"), "EISDIR");
      expect(revOf(db)).toBe(before);
    }));

  it("exclusive refuses any existing path, a dangling link included", () =>
    withFs(async ({ fs }) => {
      await fs.writeFile("/f", "x");
      await fs.symlink("/nowhere", "/dangling");
      await expectCode(fs.writeFile("/f", "y", { exclusive: true }), "EEXIST");
      await expectCode(fs.writeFile("/dangling", "y", { exclusive: true }), "EEXIST");
      await fs.writeFile("/new", "n", { exclusive: true });
      expect(await fs.readFile("/f", "utf8")).toBe("x");
      await expectCode(fs.stat("/nowhere"), "ENOENT");
    }));

  it("stores 1.5 MiB as 3 chunks and an empty file as none (8)", () =>
    withFs(async ({ fs, db }) => {
      const data = patternBytes(CHUNK_SIZE * 3 - CHUNK_SIZE / 2);
      await fs.writeFile("/big", data);
      const { inode } = await fs.stat("/big");
      const chunks = db.all<{ idx: number; size: number }>(
        "SELECT idx, size FROM vfs_chunks WHERE inode = ? ORDER BY idx",
        inode,
      );
      expect(chunks.map((c) => Number(c.size))).toEqual([CHUNK_SIZE, CHUNK_SIZE, CHUNK_SIZE / 2]);
      expect(await piecesOf(await fs.readFile("/big"))).toEqual([CHUNK_SIZE, CHUNK_SIZE, CHUNK_SIZE / 2]);
      expectSameBytes(await bytesOf(await fs.readFile("/big")), data);

      await fs.writeFile("/empty", "");
      const empty = await fs.stat("/empty");
      expect(empty.size).toBe(0);
      expect(db.all("SELECT 1 FROM vfs_chunks WHERE inode = ?", empty.inode)).toHaveLength(0);
      expect(await piecesOf(await fs.readFile("/empty"))).toEqual([]);
      expect(await fs.readFile("/empty", "utf8")).toBe("");
    }));

  it("stores identical content once with one manifest hash (9)", () =>
    withFs(async ({ fs, db }) => {
      const data = patternBytes(CHUNK_SIZE + 10, 7);
      await fs.writeFile("/a", data);
      await fs.writeFile("/b", data);
      expect(db.one<{ n: number }>("SELECT count(*) AS n FROM vfs_blobs")?.n).toBe(2);
      const hashes = db.all<{ manifest_hash: string }>("SELECT manifest_hash FROM vfs_nodes WHERE type = 'file'");
      expect(new Set(hashes.map((h) => h.manifest_hash)).size).toBe(1);
      const manifest = db.one<{ encoded: string }>("SELECT encoded FROM vfs_manifests")?.encoded as string;
      expect(JSON.parse(manifest)).toMatchObject({ version: 1, chunks: [{ size: CHUNK_SIZE }, { size: 10 }] });
      expect(manifest.startsWith('{"version":1,"chunks":[{"hash":"')).toBe(true);
    }));

  it("re-cuts a ragged stream into aligned chunks (10)", () =>
    withFs(async ({ fs, db }) => {
      const data = patternBytes(CHUNK_SIZE * 2 + 1234, 3);
      await fs.writeFile("/r", raggedStream(data, [1, 7000, 65536, 300000, 13]));
      const { inode } = await fs.stat("/r");
      const sizes = db.all<{ size: number }>("SELECT size FROM vfs_chunks WHERE inode = ? ORDER BY idx", inode);
      expect(sizes.map((s) => Number(s.size))).toEqual([CHUNK_SIZE, CHUNK_SIZE, 1234]);
      expectSameBytes(await bytesOf(await fs.readFile("/r")), data);
    }));

  it("reads byte ranges across chunk boundaries and clamps past EOF (11)", () =>
    withFs(async ({ fs }) => {
      const data = patternBytes(CHUNK_SIZE + 100, 5);
      await fs.writeFile("/f", data);
      const across = await bytesOf(await fs.readFile("/f", { byteOffset: CHUNK_SIZE - 1, byteLength: 2 }));
      expect(across).toEqual(data.slice(CHUNK_SIZE - 1, CHUNK_SIZE + 1));
      expect(await bytesOf(await fs.readFile("/f", { byteOffset: CHUNK_SIZE + 200 }))).toEqual(new Uint8Array());
      expectSameBytes(await bytesOf(await fs.readFile("/f", { byteOffset: 50, byteLength: 10 ** 9 })), data.slice(50));
      await fs.writeFile("/t", "hello world");
      expect(await fs.readFile("/t", { byteOffset: 6, byteLength: 5, encoding: "utf8" })).toBe("world");
      await expectCode(fs.readFile("/f", { byteOffset: -1 }), "EINVAL");
      await expectCode(fs.readFile("/f", { byteLength: -1 }), "EINVAL");
      await expectCode(fs.readFile("/f", { byteOffset: 1.5 }), "EINVAL");
      await expectCode(fs.readFile("/f", { byteOffset: Number.NaN }), "EINVAL");
    }));

  it("readFileBytes is readFile read whole, ranges and errors included", () =>
    withFs(async ({ fs }) => {
      const data = patternBytes(CHUNK_SIZE + 100, 6);
      await fs.writeFile("/f", data);
      expectSameBytes(await fs.readFileBytes("/f"), data);
      expect(await fs.readFileBytes("/f", { byteOffset: CHUNK_SIZE - 1, byteLength: 2 })).toEqual(
        data.slice(CHUNK_SIZE - 1, CHUNK_SIZE + 1),
      );
      await fs.writeFile("/empty", "");
      expect(await fs.readFileBytes("/empty")).toEqual(new Uint8Array());
      const missing = await fs.readFileBytes("/nope").catch((error: Error) => error);
      expect((missing as Error).message).toBe("ENOENT: no such file or directory, open '/nope'");
      await expectCode(fs.readFileBytes("/"), "EISDIR");
      await expectCode(fs.readFileBytes("/f", { byteOffset: -1 }), "EINVAL");
    }));

  it("keeps an open stream on the old bytes after an overwrite (12)", () =>
    withFs(async ({ fs }) => {
      const before = patternBytes(CHUNK_SIZE * 2, 1);
      await fs.writeFile("/f", before);
      const stream = await fs.readFile("/f");
      await fs.writeFile("/f", patternBytes(CHUNK_SIZE * 2, 2));
      expectSameBytes(await bytesOf(stream), before);
    }));

  it("read errors: missing, file as parent, dangling link, directory", () =>
    withFs(async ({ fs }) => {
      await fs.writeFile("/f", "x");
      await fs.mkdir("/d");
      await fs.symlink("/gone", "/dangling");
      await expectCode(fs.readFile("/nope"), "ENOENT");
      await expectCode(fs.readFile("/f/x", "utf8"), "ENOENT");
      await expectCode(fs.readFile("/dangling", "utf8"), "ENOENT");
      await expectCode(fs.readFile("/d", "utf8"), "EISDIR");
    }));

  it("reports EIO for a missing chunk", () =>
    withFs(async ({ fs, db }) => {
      await fs.writeFile("/f", "content");
      db.run("DELETE FROM vfs_blob_bytes");
      await expectCode(fs.readFile("/f", "utf8"), "EIO");
      await expect(bytesOf(await fs.readFile("/f"))).rejects.toMatchObject({ code: "EIO" });
    }));

  it("decodes utf8 leniently", () =>
    withFs(async ({ fs }) => {
      await fs.writeFile("/bad", new Uint8Array([0x68, 0xff, 0x69]));
      expect(await fs.readFile("/bad", "utf8")).toBe("h\uFFFDi");
    }));

  it("resets mode to 0o644 on overwrite without mode, honors a mode, masks chmod (17)", () =>
    withFs(async ({ fs }) => {
      await fs.writeFile("/f", "x", { mode: 0o755 });
      expect((await fs.stat("/f")).mode).toBe(0o755);
      await fs.writeFile("/f", "y");
      expect((await fs.stat("/f")).mode).toBe(0o644);
      await fs.chmod("/f", 0o107777);
      expect((await fs.stat("/f")).mode).toBe(0o7777);
      await expectCode(fs.writeFile("/g", "x", { mode: -1 }), "EINVAL");
      await expectCode(fs.stat("/g"), "ENOENT");
    }));

  it("writes through a dangling final link to create its target; a cycle is ELOOP (18)", () =>
    withFs(async ({ fs }) => {
      await fs.mkdir("/d");
      await fs.symlink("d/target", "/l");
      await fs.writeFile("/l", "via link");
      expect(await fs.readFile("/d/target", "utf8")).toBe("via link");
      expect((await fs.lstat("/l")).isSymbolicLink).toBe(true);
      await fs.symlink("/b", "/a");
      await fs.symlink("/a", "/b");
      await expectCode(fs.writeFile("/a", "x"), "ELOOP");
      await expectCode(fs.readFile("/a", "utf8"), "ELOOP");
      await expectCode(fs.stat("/a"), "ELOOP");
      await fs.symlink("self", "/self");
      await expectCode(fs.stat("/self"), "ELOOP");
    }));

  it("follows exactly 40 links and fails on the 41st", () =>
    withFs(async ({ fs }) => {
      await fs.writeFile("/end", "end");
      await fs.symlink("/end", "/l0");
      for (let i = 1; i <= 40; i++) await fs.symlink(`/l${i - 1}`, `/l${i}`);
      expect(await fs.readFile("/l39", "utf8")).toBe("end");
      await expectCode(fs.readFile("/l40", "utf8"), "ELOOP");
    }));

  it("resolves relative link targets from the link's real parent and clamps .. at /", () =>
    withFs(async ({ fs }) => {
      await fs.mkdir("/a/b", { recursive: true });
      await fs.writeFile("/a/file", "in a");
      await fs.writeFile("/top", "top");
      await fs.symlink("../file", "/a/b/up");
      expect(await fs.readFile("/a/b/up", "utf8")).toBe("in a");
      await fs.symlink("../../../../../top", "/a/b/clamped");
      expect(await fs.readFile("/a/b/clamped", "utf8")).toBe("top");
      await fs.symlink("/a/b", "/lb");
      expect(await fs.readFile("/lb/up", "utf8")).toBe("in a");
    }));

  it("streams a large write without holding it in memory and rejects non-bytes pieces", () =>
    withFs(async ({ fs }) => {
      const bad = new ReadableStream({
        start(c) {
          c.enqueue("not bytes" as unknown as Uint8Array);
          c.close();
        },
      });
      await expect(fs.writeFile("/bad", bad as ReadableStream<Uint8Array>)).rejects.toBeInstanceOf(TypeError);
      await expectCode(fs.stat("/bad"), "ENOENT");
    }));

  it("a failing stream leaves the old file intact", () =>
    withFs(async ({ fs }) => {
      await fs.writeFile("/f", "old");
      let sent = 0;
      const failing = new ReadableStream<Uint8Array>({
        pull(c) {
          if (sent++ < 3) c.enqueue(patternBytes(300_000, sent));
          else c.error(new Error("source broke"));
        },
      });
      await expect(fs.writeFile("/f", failing)).rejects.toThrow("source broke");
      expect(await fs.readFile("/f", "utf8")).toBe("old");
    }));

  it("rejects writing into a missing parent without consuming the stream", () =>
    withFs(async ({ fs }) => {
      let pulled = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(c) {
          pulled += 1;
          c.enqueue(new Uint8Array(10));
        },
      });
      await expectCode(fs.writeFile("/no/such", stream), "ENOENT");
      expect(pulled).toBeLessThanOrEqual(1);
    }));
});
