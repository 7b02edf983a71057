/**
 * Linux's name limits (NAME_MAX 255 bytes a segment, PATH_MAX 4096 bytes a
 * path with its NUL) on every verb and on a sync push, in both runtimes: a
 * name FUSE could not list must never be stored, and one already stored
 * (by an older version) must not make its directory unlistable.
 */
import { describe, expect, it } from "vitest";
import { withFs } from "#harness";
import { expectCode, revOf } from "../test/util.js";
import { MAX_NAME_BYTES, MAX_PATH_BYTES } from "./constants.js";
import { WorkspaceFilesystem } from "./filesystem.js";
import { addDirent, insertNode } from "./nodes.js";
import { isNameTooLong, isTargetTooLong } from "./path.js";
import { applyChanges, prepareEntries } from "./sync/apply.js";
import { SyncPeer } from "./sync/peer.js";
import type { DirChange } from "./sync/types.js";
import type { StoredChange } from "./sync/wire.js";

const longest = "a".repeat(MAX_NAME_BYTES);
const tooLong = "a".repeat(MAX_NAME_BYTES + 1);

/** `/` + 15 × (255 bytes + `/`) + `rest`: 3841 bytes before `rest`. */
function deepPath(rest: string): string {
  return `/${`${longest}/`.repeat(15)}${rest}`;
}

/** Every verb of the filesystem on `path`, each expected to fail with ENAMETOOLONG. */
async function expectEveryVerbRefuses(fs: WorkspaceFilesystem, path: string): Promise<void> {
  await expectCode(fs.readFile(path, "utf8"), "ENAMETOOLONG");
  await expectCode(fs.writeFile(path, "y"), "ENAMETOOLONG");
  await expectCode(fs.mkdir(path, { recursive: true }), "ENAMETOOLONG");
  await expectCode(fs.rm(path, { recursive: true, force: true }), "ENAMETOOLONG");
  await expectCode(fs.readdir(path), "ENAMETOOLONG");
  await expectCode(fs.stat(path), "ENAMETOOLONG");
  await expectCode(fs.lstat(path), "ENAMETOOLONG");
  await expectCode(fs.readlink(path), "ENAMETOOLONG");
  await expectCode(fs.chmod(path, 0o600), "ENAMETOOLONG");
  await expectCode(fs.symlink("/w", path), "ENAMETOOLONG");
  await expectCode(fs.find(path), "ENAMETOOLONG");
  await expectCode(fs.ls(path), "ENAMETOOLONG");
  await expectCode(fs.grep("x", path), "ENAMETOOLONG");
  await expectCode(fs.rename("/w/f", path), "ENAMETOOLONG");
  await expectCode(fs.link("/w/f", path), "ENAMETOOLONG");
}

describe("name limits", () => {
  it("counts UTF-8 bytes, not UTF-16 units", () => {
    expect(isNameTooLong(`/${longest}`)).toBe(false);
    expect(isNameTooLong(`/${tooLong}`)).toBe(true);
    expect(isNameTooLong(`/${"é".repeat(127)}a`)).toBe(false); // 255 bytes
    expect(isNameTooLong(`/${"é".repeat(128)}`)).toBe(true); // 256 bytes in 128 units
    expect(isNameTooLong(`/${"😀".repeat(63)}abc`)).toBe(false); // 4 bytes each: 255
    expect(isNameTooLong(`/${"😀".repeat(64)}`)).toBe(true);
    expect(isNameTooLong(`/${"\ud800".repeat(85)}`)).toBe(false); // a lone surrogate is 3 bytes (U+FFFD)
    expect(isNameTooLong(`/${"\ud800".repeat(86)}`)).toBe(true);
    expect(isNameTooLong(deepPath("b".repeat(254)))).toBe(false); // 4095 bytes
    expect(isNameTooLong(deepPath("b".repeat(255)))).toBe(true); // 4096
    expect(isTargetTooLong(`/${"t".repeat(MAX_PATH_BYTES - 2)}`)).toBe(false);
    expect(isTargetTooLong(`/${"t".repeat(MAX_PATH_BYTES - 1)}`)).toBe(true);
  });

  it("a 255-byte name and a 4095-byte path work on every verb that makes one", () =>
    withFs(async ({ fs }) => {
      await fs.mkdir(`/${longest}`);
      const file = "f".repeat(MAX_NAME_BYTES);
      await fs.writeFile(`/${longest}/${file}`, "x");
      await fs.symlink(`/${longest}`, `/${"l".repeat(MAX_NAME_BYTES)}`);
      expect(await fs.readFile(`/${"l".repeat(MAX_NAME_BYTES)}/${file}`, "utf8")).toBe("x");
      expect((await fs.readdir("/")).map((entry) => entry.name)).toEqual([longest, "l".repeat(MAX_NAME_BYTES)]);
      const deep = deepPath("b".repeat(254));
      await fs.mkdir(deep, { recursive: true });
      expect((await fs.stat(deep)).isDirectory).toBe(true);
      const lengths = (await fs.find("/")).map((entry) => new TextEncoder().encode(entry.path).byteLength);
      expect(Math.max(...lengths)).toBe(MAX_PATH_BYTES - 1);
    }));

  it("a name over 255 bytes is ENAMETOOLONG on every verb, in Node's message shape, and changes nothing", () =>
    withFs(async ({ fs, db }) => {
      await fs.mkdir("/w");
      await fs.writeFile("/w/f", "x");
      const before = revOf(db);
      for (const bad of [
        `/w/${tooLong}`,
        `/w/${tooLong}/f`,
        `/w/${tooLong}/..`, // Linux looks the long segment up before `..` drops it
        `/w/${"é".repeat(128)}`,
      ]) {
        await expectEveryVerbRefuses(fs, bad);
      }
      expect(revOf(db)).toBe(before);
      expect((await fs.readdir("/w")).map((entry) => entry.name)).toEqual(["f"]);
      const error = await fs.mkdir(`/w/${tooLong}`).catch((e: unknown) => e);
      expect(error).toMatchObject({
        name: "WorkspaceFsError",
        code: "ENAMETOOLONG",
        syscall: "mkdir",
        path: `/w/${tooLong}`,
        message: `ENAMETOOLONG: name too long, mkdir '/w/${tooLong}'`,
      });
    }));

  it("a path of 4096 bytes or more is ENAMETOOLONG, even with short names", () =>
    withFs(async ({ fs, db }) => {
      await fs.mkdir("/w");
      await fs.writeFile("/w/f", "x");
      const before = revOf(db);
      await expectEveryVerbRefuses(fs, deepPath("b".repeat(255)));
      await expectEveryVerbRefuses(fs, `/${"d/".repeat(2048)}`);
      expect(revOf(db)).toBe(before);
    }));

  it("maxPathBytes raises the path limit (a FUSE mount's paths below its own); names stay at 255 bytes", () =>
    withFs(async ({ db }) => {
      const deep = new WorkspaceFilesystem(db, { maxPathBytes: 2 * MAX_PATH_BYTES });
      const path = deepPath(`${longest}/${longest}/f`);
      await deep.mkdir(deepPath(`${longest}/${longest}`), { recursive: true });
      await deep.writeFile(path, "deep");
      expect(await deep.readFile(path, "utf8")).toBe("deep");
      await expectCode(deep.writeFile(deepPath(tooLong), "x"), "ENAMETOOLONG");
      await expectCode(deep.writeFile(`/${"d/".repeat(MAX_PATH_BYTES)}`, "x"), "ENAMETOOLONG");
      // The default filesystem over the same store still refuses the path.
      await expectCode(new WorkspaceFilesystem(db).readFile(path, "utf8"), "ENAMETOOLONG");
    }));

  it("a symlink target of 4096 bytes is refused; following one through a name over 255 bytes is ENAMETOOLONG", () =>
    withFs(async ({ fs }) => {
      const before = revOf(fs.db);
      await expectCode(fs.symlink(`/${"t".repeat(MAX_PATH_BYTES - 1)}`, "/l"), "ENAMETOOLONG");
      expect(revOf(fs.db)).toBe(before);
      // Linux stores any target under PATH_MAX; only a lookup through the long segment fails.
      await fs.symlink(`/${tooLong}`, "/dangling");
      expect(await fs.readlink("/dangling")).toBe(`/${tooLong}`);
      await expectCode(fs.writeFile("/dangling", "x"), "ENAMETOOLONG");
      await expectCode(fs.stat("/dangling"), "ENAMETOOLONG");
      expect((await fs.lstat("/dangling")).isSymbolicLink).toBe(true);
      expect((await fs.readdir("/")).map((entry) => entry.name)).toEqual(["dangling"]);
    }));

  it("a name over 255 bytes already in the store stays listable and removable with its directory", () =>
    withFs(async ({ fs, db }) => {
      await fs.mkdir("/w");
      await fs.writeFile("/w/ok", "ok");
      // What an older version could have stored: a file under a 300-byte name.
      const dir = (await fs.stat("/w")).inode;
      const legacy = "x".repeat(300);
      addDirent(db, dir, legacy, insertNode(db, { type: "dir", mode: 0o755, mtime: 0, rev: revOf(db) }));
      expect((await fs.readdir("/w")).map((entry) => entry.name)).toEqual(["ok", legacy]);
      expect((await fs.find("/w")).map((entry) => entry.path)).toEqual(["/w/ok", `/w/${legacy}`]);
      expect(await fs.ls("/w")).toEqual(["/w/ok"]);
      await fs.rm("/w", { recursive: true });
      expect(await fs.readdir("/")).toEqual([]);
    }));
});

describe("name limits on a sync push", () => {
  const entry = (path: string): DirChange => ({ rev: 1, path, kind: "dir", mode: 0o755, mtime: 1 });

  it("an entry with a name over 255 bytes is refused with a reason, apart from skips; its siblings and the root apply", () =>
    withFs(async ({ fs }) => {
      const db = fs.db; // the schema is made on first use
      const entries: StoredChange[] = [
        entry("/ok"),
        entry(`/${"n".repeat(300)}`),
        entry(`/ok/${tooLong}/under`),
        entry(deepPath("b".repeat(255))),
        { rev: 1, path: "/link", kind: "symlink", mode: 0o777, mtime: 1, target: `/${"t".repeat(MAX_PATH_BYTES)}` },
        entry("/ok/after"),
      ];
      const result = applyChanges(db, await prepareEntries(entries, db), "upstream", 2);
      // `skipped` stays the original's read-only skips; a refusal is reported beside it.
      expect(result.skipped).toEqual([]);
      expect(result.refused).toEqual([
        { path: `/${"n".repeat(300)}`, op: "write", reason: "name-too-long" },
        { path: `/ok/${tooLong}/under`, op: "write", reason: "name-too-long" },
        { path: deepPath("b".repeat(255)), op: "write", reason: "name-too-long" },
        { path: "/link", op: "write", reason: "name-too-long" },
      ]);
      expect(result.applied).toBe(2);
      expect((await fs.readdir("/")).map((e) => e.name)).toEqual(["ok"]);
      expect((await fs.readdir("/ok")).map((e) => e.name)).toEqual(["after"]);
      // Nothing was made for the refused entries, not even the parents of the deep one.
      expect((await fs.find("/")).map((e) => e.path)).toEqual(["/ok", "/ok/after"]);
    }));

  it("SyncPeer.push of a 300-byte name answers the refusal (and hands it to afterApply), and keeps the rest", () =>
    withFs(async ({ fs }) => {
      const db = fs.db;
      const refusals: unknown[] = [];
      const peer = new SyncPeer(db, { afterApply: (result) => void refusals.push(...(result.refused ?? [])) });
      const long = `/${"p".repeat(300)}`;
      const result = await peer.push({
        senderRev: 3,
        senderCursor: { rev: 3, path: null },
        changes: streamOf([entry("/a"), entry(long), { rev: 3, path: long, kind: "delete" }]),
      });
      expect(result.applied).toBe(3);
      expect(result.appliedPushCursor).toEqual({ rev: 3, path: null });
      expect(result.skipped).toBeUndefined();
      expect(result.refused).toEqual([{ path: long, op: "write", reason: "name-too-long" }]);
      expect(refusals).toEqual([{ path: long, op: "write", reason: "name-too-long" }]);
      expect((await fs.readdir("/")).map((e) => e.name)).toEqual(["a"]);
    }));
});

function streamOf<T>(items: T[]): ReadableStream<T> {
  let i = 0;
  return new ReadableStream<T>({
    pull(controller) {
      if (i < items.length) controller.enqueue(items[i++] as T);
      else controller.close();
    },
  });
}
