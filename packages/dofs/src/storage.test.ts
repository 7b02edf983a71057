import { describe, expect, it } from "vitest";
import { withDb, withFs } from "#harness";
import { expectCode, patternBytes, revOf } from "../test/util.js";
import { SCHEMA_VERSION } from "./constants.js";
import { WorkspaceFilesystem } from "./filesystem.js";
import { collectGarbage, holdBlobs } from "./gc.js";
import { setMount } from "./mounts.js";
import { getPullCursor, getPushCursor, setPullCursor, setPushCursor } from "./sync/watermarks.js";

const tombstones = (db: { all<T>(sql: string): T[] }) =>
  db.all<{ rev: number; path: string }>("SELECT rev, path FROM vfs_changes ORDER BY id").map((t) => ({
    rev: Number(t.rev),
    path: t.path,
  }));

describe("storage: revs, tombstones, gc, schema", () => {
  it("starts at rev 1; each mutation bumps rev once and stamps its nodes (20)", () =>
    withFs(async ({ fs, db }) => {
      await fs.stat("/");
      expect(revOf(db)).toBe(1);
      await fs.mkdir("/d");
      expect(revOf(db)).toBe(2);
      await fs.writeFile("/d/f", "x");
      expect(revOf(db)).toBe(3);
      const row = db.one<{ rev: number }>("SELECT rev FROM vfs_nodes WHERE inode = ?", (await fs.stat("/d/f")).inode);
      expect(Number(row?.rev)).toBe(3);
      await fs.symlink("f", "/d/l");
      await fs.chmod("/d/f", 0o600);
      expect(revOf(db)).toBe(5);
    }));

  it("rm -r of N paths writes N tombstones at one rev (20)", () =>
    withFs(async ({ fs, db }) => {
      await fs.mkdir("/d/e", { recursive: true });
      await fs.writeFile("/d/f", "x");
      await fs.writeFile("/d/e/g", "y");
      await fs.rm("/d", { recursive: true });
      const rev = revOf(db);
      expect(tombstones(db).sort((a, b) => a.path.localeCompare(b.path))).toEqual([
        { rev, path: "/d" },
        { rev, path: "/d/e" },
        { rev, path: "/d/e/g" },
        { rev, path: "/d/f" },
      ]);
      expect(db.one<{ n: number }>("SELECT count(*) AS n FROM vfs_nodes")?.n).toBe(1);
      expect(db.one<{ n: number }>("SELECT count(*) AS n FROM vfs_chunks")?.n).toBe(0);
    }));

  it("rename moves a subtree: tombstones for every old path and new revs, all at one rev", () =>
    withFs(async ({ fs, db }) => {
      await fs.mkdir("/d");
      await fs.writeFile("/d/x", "x");
      await fs.writeFile("/d/y", "y");
      await fs.rename("/d", "/e");
      const rev = revOf(db);
      expect(
        tombstones(db)
          .map((t) => t.path)
          .sort(),
      ).toEqual(["/d", "/d/x", "/d/y"]);
      expect(tombstones(db).every((t) => t.rev === rev)).toBe(true);
      const revs = db.all<{ rev: number }>("SELECT rev FROM vfs_nodes WHERE inode <> 1");
      expect(revs.every((r) => Number(r.rev) === rev)).toBe(true);
      expect(await fs.readFile("/e/y", "utf8")).toBe("y");
      await expectCode(fs.rename("/e", "/e/inside"), "EINVAL");
      await fs.writeFile("/file", "f");
      await expectCode(fs.rename("/e", "/file"), "ENOTDIR");
      await expectCode(fs.rename("/file", "/e"), "EISDIR");
      await fs.mkdir("/empty");
      await expectCode(fs.rename("/empty", "/e"), "ENOTEMPTY");
      await fs.rename("/e", "/empty");
      expect(await fs.readFile("/empty/x", "utf8")).toBe("x");
      await expectCode(fs.rename("/", "/z"), "EINVAL");
    }));

  it("hardlinks share data until the last name goes", () =>
    withFs(async ({ fs, db }) => {
      await fs.writeFile("/a", "shared");
      await fs.link("/a", "/b");
      expect((await fs.stat("/b")).inode).toBe((await fs.stat("/a")).inode);
      await fs.rm("/a");
      expect(await fs.readFile("/b", "utf8")).toBe("shared");
      await fs.rm("/b");
      expect(db.one<{ n: number }>("SELECT count(*) AS n FROM vfs_chunks")?.n).toBe(0);
      await fs.mkdir("/d");
      await expectCode(fs.link("/d", "/d2"), "EPERM");
    }));

  it("gc frees the blob an overwrite orphaned, never a referenced one, and honors the window (21)", () => {
    let t = 1_000_000;
    return withFs(
      async ({ fs, db }) => {
        await fs.writeFile("/f", patternBytes(1000, 1));
        await fs.writeFile("/keep", patternBytes(1000, 2));
        await fs.writeFile("/f", patternBytes(1000, 3));
        expect(await fs.gc({ safetyWindowMs: 60_000 })).toEqual({ blobsFreed: 0, manifestsFreed: 0 });
        t += 120_000;
        expect(await fs.gc({ safetyWindowMs: 60_000 })).toEqual({ blobsFreed: 1, manifestsFreed: 1 });
        expect(db.one<{ n: number }>("SELECT count(*) AS n FROM vfs_blob_bytes")?.n).toBe(2);
        expect(await fs.gc({ safetyWindowMs: 0 })).toEqual({ blobsFreed: 0, manifestsFreed: 0 });
        expect(await fs.readFile("/keep", "utf8")).toBe(new TextDecoder().decode(patternBytes(1000, 2)));
        await fs.rm("/f");
        expect((await fs.gc({ safetyWindowMs: 0 })).blobsFreed).toBe(1);
      },
      { now: () => t },
    );
  });

  it("gc in bounded passes: each looks at `limit` orphans and resumes after the last; held and staged blobs stay", () => {
    const t = 5_000_000;
    return withFs(
      async ({ fs, db }) => {
        for (let i = 0; i < 7; i++) await fs.writeFile(`/f${i}`, patternBytes(700, i + 10));
        await fs.writeFile("/live", patternBytes(700, 99));
        for (let i = 0; i < 7; i++) await fs.rm(`/f${i}`);
        const orphans = db.all<{ hash: string }>(
          "SELECT hash FROM vfs_blobs WHERE hash NOT IN (SELECT hash FROM vfs_chunks) ORDER BY hash",
        );
        expect(orphans.length).toBe(7);
        const heldHash = orphans[1]?.hash as string;
        const stagedHash = orphans[4]?.hash as string;
        const release = holdBlobs(db, [stagedHash]);
        const passes = [];
        let after: string | undefined;
        do {
          const pass = collectGarbage(db, {
            now: t,
            windowMs: 0,
            limit: 3,
            isHeld: (hash) => hash === heldHash,
            ...(after === undefined ? {} : { after }),
          });
          passes.push(pass);
          after = pass.next;
        } while (after !== undefined);
        expect(passes.map((pass) => [pass.blobsFreed, pass.blobsHeld])).toEqual([
          [2, 1],
          [2, 1],
          [1, 0],
        ]);
        expect(passes.reduce((sum, pass) => sum + pass.bytesFreed, 0)).toBe(5 * 700);
        const left = db.all<{ hash: string }>("SELECT hash FROM vfs_blobs ORDER BY hash").map((row) => row.hash);
        expect(left).toContain(heldHash);
        expect(left).toContain(stagedHash);
        expect(left.length).toBe(3);
        release();
        expect(collectGarbage(db, { now: t, windowMs: 0, limit: 10 })).toMatchObject({ blobsFreed: 2, blobsHeld: 0 });
        expect(await fs.readFile("/live", "utf8")).toBe(new TextDecoder().decode(patternBytes(700, 99)));
      },
      { now: () => t },
    );
  });

  it("an open read stream keeps its chunks through gc at window 0 after an overwrite (12, 21)", () =>
    withFs(async ({ fs, db }) => {
      const old = patternBytes(3 * 524_288 + 10, 7);
      await fs.writeFile("/f", old);
      const reader = (await fs.readFile("/f")).getReader();
      const first = await reader.read();
      await fs.writeFile("/f", "new");
      expect((await fs.gc({ safetyWindowMs: 0 })).blobsFreed).toBe(0);
      const pieces = [first.value as Uint8Array];
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        pieces.push(value);
      }
      const total = new Uint8Array(old.length);
      let at = 0;
      for (const piece of pieces) {
        total.set(piece, at);
        at += piece.byteLength;
      }
      // Element by element: toEqual on 1.5 MiB arrays takes seconds.
      expect(at).toBe(old.length);
      expect(total.every((byte, i) => byte === old[i])).toBe(true);
      // Ended: its chunks are free to go.
      expect((await fs.gc({ safetyWindowMs: 0 })).blobsFreed).toBe(4);
      expect(db.one<{ n: number }>("SELECT count(*) AS n FROM vfs_blobs")?.n).toBe(1);
    }));

  it("read-only mounts: EROFS at, under and above the root, before ENOENT; writes outside work", () =>
    withFs(async ({ fs, db }) => {
      await fs.mkdir("/workspace/skills", { recursive: true });
      await fs.writeFile("/workspace/skills/a", "a");
      setMount(db, "/workspace/skills", "r2", "read-only", true);
      await expectCode(fs.writeFile("/workspace/skills/a", "b"), "EROFS");
      await expectCode(fs.writeFile("/workspace/skills/missing/x", "b"), "EROFS");
      await expectCode(fs.mkdir("/workspace/skills/x"), "EROFS");
      await expectCode(fs.rm("/workspace", { recursive: true }), "EROFS");
      await expectCode(fs.mkdir("/workspace", { recursive: true }), "EROFS");
      await expectCode(fs.chmod("/workspace", 0o700), "EROFS");
      await fs.symlink("/workspace/skills", "/sneaky");
      await expectCode(fs.writeFile("/sneaky/a", "b"), "EROFS");
      await fs.writeFile("/workspace/other", "fine");
      expect(await fs.readFile("/workspace/skills/a", "utf8")).toBe("a");
    }));

  it("init twice is a no-op; a newer on-disk schema is EIO (46)", () =>
    withDb(async ({ db }) => {
      const first = new WorkspaceFilesystem(db);
      await first.writeFile("/f", "x");
      const rev = revOf(db);
      const second = new WorkspaceFilesystem(db);
      expect(await second.readFile("/f", "utf8")).toBe("x");
      expect(revOf(db)).toBe(rev);
      db.run("UPDATE vfs_meta SET v = ? WHERE k = 'schema_version'", SCHEMA_VERSION + 1);
      // A fresh Database object over the same storage re-reads the version.
      await expectCode(new WorkspaceFilesystem({ ...db }).stat("/"), "EIO");
    }));

  it("a version 6 store (fetch cursor, backend columns) opens as version 7 with its cursors kept", () =>
    withDb(async ({ db }) => {
      const old = new WorkspaceFilesystem(db);
      await old.writeFile("/f", "x");
      setPullCursor(db, { rev: 5, path: "/m" }, "container-shell");
      setPushCursor(db, { rev: 3, path: null }, "container-shell");
      // Turn it back into what version 6 wrote; a v6 store may also predate the echo table.
      db.script(`
ALTER TABLE _vfs_pull_cursor RENAME COLUMN peer TO backend;
ALTER TABLE _vfs_pull_cursor RENAME TO _vfs_fetch_cursor;
ALTER TABLE _vfs_push_cursor RENAME COLUMN peer TO backend;
ALTER TABLE _vfs_watermark RENAME COLUMN peer TO backend;
ALTER TABLE _vfs_peer_replica RENAME COLUMN peer TO backend;
DROP TABLE _vfs_echo_revs;
UPDATE _vfs_watermark SET k = 'fetchRev' WHERE k = 'pullRev';
UPDATE vfs_meta SET v = 6 WHERE k = 'schema_version';
`);
      const reopened = { ...db };
      const fs = new WorkspaceFilesystem(reopened);
      expect(await fs.readFile("/f", "utf8")).toBe("x");
      expect(getPullCursor(reopened, "container-shell")).toEqual({ rev: 5, path: "/m" });
      expect(getPushCursor(reopened, "container-shell")).toEqual({ rev: 3, path: null });
      expect(getPullCursor(reopened)).toEqual({ rev: 0, path: null });
      const version = reopened.one<{ v: number }>("SELECT v FROM vfs_meta WHERE k = 'schema_version'");
      expect(Number(version?.v)).toBe(SCHEMA_VERSION);
      const tables = reopened
        .all<{ name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '\\_vfs\\_%' ESCAPE '\\'",
        )
        .map((t) => t.name)
        .sort();
      expect(tables).toEqual([
        "_vfs_echo_revs",
        "_vfs_mounts",
        "_vfs_peer_replica",
        "_vfs_pull_cursor",
        "_vfs_push_cursor",
        "_vfs_watermark",
      ]);
    }));
});
