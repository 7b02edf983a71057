import { createHash } from "node:crypto";
import { expect, test } from "vitest";
import { CHUNK_SIZE } from "../constants.js";
import { openNodeDatabase } from "../database.node.js";
import { WorkspaceFilesystem } from "../filesystem.js";
import { readEntry } from "../sync/coalesce.js";
import {
  childAttr,
  childAttrs,
  createFileInode,
  inodeAttr,
  inodeChunks,
  lookupInode,
  mkdirInode,
  readChunk,
  rmdirChild,
  setInodeMode,
  setInodeMtime,
  unlinkChild,
  writeInode,
} from "./inode-io.js";

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

test("writeInode replaces only the dirty chunk, cuts the tail, and stamps one rev", async () => {
  const db = openNodeDatabase();
  const fs = new WorkspaceFilesystem(db);
  const original = new Uint8Array(CHUNK_SIZE * 2 + 10).fill(1);
  await fs.writeFile("/f", original);
  const attr = lookupInode(db, "/f");
  expect(attr).toMatchObject({ type: "file", size: CHUNK_SIZE * 2 + 10, nlink: 1 });
  const inode = attr?.inode as number;
  const before = inodeChunks(db, inode);

  // Rewrite chunk 1 and cut the file inside it.
  const dirty = new Uint8Array(100).fill(2);
  const rev = writeInode(
    db,
    inode,
    { size: CHUNK_SIZE + 100, mtime: 1234, dirty: [{ idx: 1, bytes: dirty }], sha256, path: "/f" },
    5,
  );
  const after = inodeChunks(db, inode);
  expect(after).toHaveLength(2);
  expect(after[0]).toEqual(before[0]);
  expect(after[1]).toEqual({ hash: sha256(dirty), size: 100 });
  expect(new Uint8Array(readChunk(db, after[1] as { hash: string; size: number }, "/f"))).toEqual(dirty);
  const entry = readEntry(db, "/f");
  expect(entry).toMatchObject({ kind: "file", rev, size: CHUNK_SIZE + 100, mtime: 1234 });
  const text = await fs.readFile("/f");
  let total = 0;
  for await (const piece of text) total += piece.byteLength;
  expect(total).toBe(CHUNK_SIZE + 100);

  setInodeMtime(db, inode, 99, "/f");
  expect(readEntry(db, "/f")).toMatchObject({ mtime: 99 });
  const touched = readEntry(db, "/f")?.rev ?? 0;
  expect(touched > rev).toBe(true);
  // The time it already has: nothing changed, so no new rev for a peer to pull.
  setInodeMtime(db, inode, 99, "/f");
  expect(readEntry(db, "/f")?.rev).toBe(touched);
});

test("writeInode sets the mode it is given with the bytes, and keeps it when given none", async () => {
  const db = openNodeDatabase();
  await new WorkspaceFilesystem(db).writeFile("/m", "a", { mode: 0o600 });
  const inode = lookupInode(db, "/m")?.inode as number;
  const bytes = new TextEncoder().encode("bc");
  writeInode(db, inode, { size: 2, mtime: 5, mode: 0o755, dirty: [{ idx: 0, bytes }], sha256, path: "/m" }, 5);
  expect(inodeAttr(db, inode)).toMatchObject({ mode: 0o755, mtime: 5, size: 2 });
  writeInode(db, inode, { size: 2, mtime: 6, dirty: [{ idx: 0, bytes }], sha256, path: "/m" }, 6);
  expect(inodeAttr(db, inode)).toMatchObject({ mode: 0o755, mtime: 6 });
});

test("mkdirInode makes the directory mkdir makes, by its parent's inode; a taken name, a gone or non-directory parent refuse", async () => {
  const db = openNodeDatabase();
  const fs = new WorkspaceFilesystem(db);
  await fs.mkdir("/p");
  await fs.writeFile("/p/file", "x");
  const parent = lookupInode(db, "/p")?.inode as number;
  const made = mkdirInode(db, "/p/d", 0o750, 7, { parent, name: "d" });
  expect(made).toMatchObject({ type: "dir", mode: 0o750, mtime: 7 });
  expect(lookupInode(db, "/p/d")).toMatchObject({ inode: made.inode, type: "dir", mode: 0o750, mtime: 7 });
  expect((await fs.readdir("/p")).map((entry) => entry.name)).toEqual(["d", "file"]);
  expect(() => mkdirInode(db, "/p/d", 0o755, 8, { parent, name: "d" })).toThrow(/EEXIST/);
  expect(() => mkdirInode(db, "/p/file", 0o755, 8, { parent, name: "file" })).toThrow(/EEXIST/);
  const file = lookupInode(db, "/p/file")?.inode as number;
  expect(() => mkdirInode(db, "/p/file/x", 0o755, 8, { parent: file, name: "x" })).toThrow(/ENOTDIR/);
  await fs.rm("/p", { recursive: true });
  expect(() => mkdirInode(db, "/p/e", 0o755, 8, { parent, name: "e" })).toThrow(/ENOENT/);
});

test("writeInode refuses a length whose chunks it was not given", async () => {
  const db = openNodeDatabase();
  const fs = new WorkspaceFilesystem(db);
  await fs.writeFile("/g", "abc");
  const inode = lookupInode(db, "/g")?.inode as number;
  expect(() => writeInode(db, inode, { size: 10, mtime: 1, dirty: [], sha256, path: "/g" }, 1)).toThrow(/EIO/);
  expect(await fs.readFile("/g", "utf8")).toBe("abc");
  expect(lookupInode(db, "/missing")).toBeUndefined();
  expect(() => lookupInode(db, "/g/x")).toThrow(/ENOTDIR/);
});

test("writeInode's shared chunks point at stored blobs by hash; a missing blob is EIO", async () => {
  const db = openNodeDatabase();
  const fs = new WorkspaceFilesystem(db);
  const bytes = new Uint8Array(CHUNK_SIZE + 10).map((_, i) => i % 251);
  await fs.writeFile("/src", bytes);
  const source = inodeChunks(db, lookupInode(db, "/src")?.inode as number);
  const copy = createFileInode(db, "/copy", 0o600, sha256, 7);
  expect(lookupInode(db, "/copy")).toMatchObject({ inode: copy.inode, size: 0, mode: 0o600 });
  writeInode(
    db,
    copy.inode,
    {
      size: bytes.length,
      mtime: 8,
      dirty: [],
      shared: source.map((ref, idx) => ({ idx, ...ref })),
      sha256,
      path: "/copy",
    },
    9,
  );
  expect(inodeChunks(db, copy.inode)).toEqual(source);
  expect(readEntry(db, "/copy")).toMatchObject({ kind: "file", size: bytes.length });
  const read = new Uint8Array(await new Response(await fs.readFile("/copy")).arrayBuffer());
  expect(read).toEqual(bytes);
  expect(() => createFileInode(db, "/copy", 0o644, sha256, 10)).toThrow(/EEXIST/);
  const missing = { idx: 0, hash: "0".repeat(64), size: CHUNK_SIZE };
  expect(() =>
    writeInode(
      db,
      copy.inode,
      { size: CHUNK_SIZE, mtime: 11, dirty: [], shared: [missing], sha256, path: "/copy" },
      12,
    ),
  ).toThrow(/EIO/);
  // A 512 KiB element-by-element compare takes seconds on a loaded machine.
}, 30_000);

test("writeInode with cutAt drops the stored chunks a truncate cut off, so a grown file cannot keep old bytes", async () => {
  const db = openNodeDatabase();
  const fs = new WorkspaceFilesystem(db);
  await fs.writeFile("/h", new Uint8Array(CHUNK_SIZE * 4).fill(9));
  const inode = lookupInode(db, "/h")?.inode as number;
  const before = inodeChunks(db, inode);
  // Cut to 1.5 chunks and grown back to 4 between two writes: the same size, but chunks 1..3 are gone.
  const grown = { size: CHUNK_SIZE * 4, mtime: 2, sha256, path: "/h", cutAt: CHUNK_SIZE + CHUNK_SIZE / 2 };
  expect(() => writeInode(db, inode, { ...grown, dirty: [] }, 3)).toThrow(/EIO.*chunk 1 is missing/);
  expect(inodeChunks(db, inode)).toEqual(before);
  const tail = new Uint8Array(CHUNK_SIZE).fill(9).fill(0, CHUNK_SIZE / 2);
  const zeros = new Uint8Array(CHUNK_SIZE);
  writeInode(
    db,
    inode,
    {
      ...grown,
      dirty: [
        { idx: 1, bytes: tail },
        { idx: 2, bytes: zeros },
        { idx: 3, bytes: zeros },
      ],
    },
    4,
  );
  const after = inodeChunks(db, inode);
  expect(after[0]).toEqual(before[0]);
  expect(after.slice(1).map((chunk) => chunk.hash)).toEqual([sha256(tail), sha256(zeros), sha256(zeros)]);
  const read = new Uint8Array(await new Response(await fs.readFile("/h")).arrayBuffer());
  expect(read.subarray(CHUNK_SIZE + CHUNK_SIZE / 2).every((byte) => byte === 0)).toBe(true);
});

test("the verbs by directory inode do what their path verbs do: create, unlink (with its tombstone), EEXIST/ENOENT/ENOTDIR/EISDIR", async () => {
  const db = openNodeDatabase();
  const fs = new WorkspaceFilesystem(db);
  await fs.mkdir("/d/e", { recursive: true });
  await fs.writeFile("/d/file", "x");
  const dir = lookupInode(db, "/d/e")?.inode as number;
  const file = lookupInode(db, "/d/file")?.inode as number;
  const created = createFileInode(db, "/d/e/n", 0o640, sha256, 7, { parent: dir, name: "n" });
  expect(lookupInode(db, "/d/e/n")).toEqual(created);
  expect(created).toMatchObject({ type: "file", size: 0, mode: 0o640, nlink: 1 });
  expect((await fs.stat("/d/e/n")).size).toBe(0);
  expect(() => createFileInode(db, "/d/e/n", 0o600, sha256, 8, { parent: dir, name: "n" })).toThrow(/EEXIST/);
  expect(() => createFileInode(db, "/d/file/n", 0o600, sha256, 8, { parent: file, name: "n" })).toThrow(/ENOTDIR/);
  expect(() => createFileInode(db, "/gone/n", 0o600, sha256, 8, { parent: 99_999, name: "n" })).toThrow(/ENOENT/);
  const rev = Number(db.one<{ v: number }>("SELECT v FROM vfs_meta WHERE k = 'rev'")?.v);
  unlinkChild(db, { parent: dir, name: "n" }, "/d/e/n", 9);
  expect(lookupInode(db, "/d/e/n")).toBeUndefined();
  expect(inodeAttr(db, created.inode)).toBeUndefined();
  expect(db.all("SELECT rev, path, op FROM vfs_changes WHERE path = '/d/e/n'")).toEqual([
    { rev: rev + 1, path: "/d/e/n", op: "delete" },
  ]);
  expect(() => unlinkChild(db, { parent: dir, name: "n" }, "/d/e/n", 9)).toThrow(/ENOENT/);
  const root = lookupInode(db, "/d")?.inode as number;
  expect(() => unlinkChild(db, { parent: root, name: "e" }, "/d/e", 9)).toThrow(/EISDIR/);
});

test("setInodeMode sets the bits with a new rev and leaves the mtime; the same bits write nothing", async () => {
  const db = openNodeDatabase();
  const fs = new WorkspaceFilesystem(db, { now: () => 1000 });
  await fs.writeFile("/f", "x", { mode: 0o644 });
  const inode = lookupInode(db, "/f")?.inode as number;
  const revOf = () => Number(db.one<{ rev: number }>("SELECT rev FROM vfs_nodes WHERE inode = ?", inode)?.rev);
  const before = revOf();
  setInodeMode(db, inode, 0o644, "/f");
  expect(revOf()).toBe(before);
  setInodeMode(db, inode, 0o755, "/f");
  expect(revOf()).toBeGreaterThan(before);
  expect(inodeAttr(db, inode)).toMatchObject({ mode: 0o755, mtime: 1000 });
  expect(() => setInodeMode(db, 99_999, 0o600, "/gone")).toThrow(/ENOENT/);
});

test("attributes by inode, by name and by listing agree, hard link counts included", async () => {
  const db = openNodeDatabase();
  const fs = new WorkspaceFilesystem(db);
  await fs.mkdir("/d");
  await fs.writeFile("/d/a", "abc");
  await fs.link("/d/a", "/d/b");
  await fs.symlink("a", "/d/s");
  await fs.mkdir("/d/sub");
  const dir = lookupInode(db, "/d")?.inode as number;
  const listed = childAttrs(db, dir);
  expect(listed.map((child) => child.name)).toEqual(["a", "b", "s", "sub"]);
  for (const { name, attr } of listed) {
    expect(childAttr(db, dir, name)).toEqual(attr);
    expect(inodeAttr(db, attr.inode)).toEqual(attr);
    expect(lookupInode(db, `/d/${name}`)).toEqual(attr);
  }
  expect(listed.map((child) => child.attr.nlink)).toEqual([2, 2, 1, 1]);
  expect(listed[2]?.attr).toMatchObject({ type: "symlink", linkTarget: "a" });
});

/** Two stores given the same tree; one removes by path (`rm`), the other by the inode verbs with what a lookup read. */
async function twinStores(): Promise<ReturnType<typeof openNodeDatabase>[]> {
  const stores = [];
  for (let i = 0; i < 2; i++) {
    const db = openNodeDatabase("", { commitDelayMs: 60_000 });
    const fs = new WorkspaceFilesystem(db, { now: () => 1000 });
    await fs.mkdir("/d/empty", { recursive: true });
    await fs.mkdir("/d/full");
    await fs.writeFile("/d/full/x", "x");
    await fs.writeFile("/d/a", new Uint8Array(CHUNK_SIZE + 5).fill(3));
    await fs.link("/d/a", "/d/b");
    await fs.writeFile("/d/empty-file", "");
    await fs.symlink("a", "/d/s");
    stores.push(db);
  }
  return stores;
}

const storeRows = (db: ReturnType<typeof openNodeDatabase>) => ({
  nodes: db.all("SELECT inode, type, mode, mtime, size, manifest_hash, link_target FROM vfs_nodes ORDER BY inode"),
  dirents: db.all("SELECT * FROM vfs_dirents ORDER BY parent_inode, name"),
  chunks: db.all("SELECT * FROM vfs_chunks ORDER BY inode, idx"),
  blobs: db.all("SELECT hash, size, last_seen FROM vfs_blobs ORDER BY hash"),
  changes: db.all("SELECT rev, path, op FROM vfs_changes ORDER BY id"),
  rev: db.one("SELECT v FROM vfs_meta WHERE k = 'rev'"),
});

test("unlinkChild and rmdirChild with what a lookup read leave exactly the rows rm leaves", async () => {
  const [byPath, byInode] = (await twinStores()) as [
    ReturnType<typeof openNodeDatabase>,
    ReturnType<typeof openNodeDatabase>,
  ];
  const fs = new WorkspaceFilesystem(byPath, { now: () => 1000 });
  const dir = lookupInode(byInode, "/d")?.inode as number;
  const unlink = (name: string) => {
    const known = childAttr(byInode, dir, name);
    if (known === undefined) throw new Error(name);
    unlinkChild(byInode, { parent: dir, name }, `/d/${name}`, 1000, known);
  };
  // One name of two, the last name (its chunks go, its blobs are touched), an empty file, a symlink.
  for (const name of ["a", "b", "empty-file", "s"]) {
    await fs.rm(`/d/${name}`);
    unlink(name);
    expect(storeRows(byInode)).toEqual(storeRows(byPath));
  }
  expect(lookupInode(byInode, "/d/s")).toBeUndefined();
  expect(byInode.all("SELECT inode FROM vfs_chunks")).toEqual([{ inode: lookupInode(byInode, "/d/full/x")?.inode }]);
  await fs.rm("/d/empty");
  rmdirChild(
    byInode,
    { parent: dir, name: "empty" },
    "/d/empty",
    2000,
    lookupInode(byInode, "/d/empty")?.inode as number,
  );
  expect(storeRows(byInode)).toEqual(storeRows(byPath));
  // A directory with entries, and a directory given to unlink: refused, and nothing changes.
  const before = storeRows(byInode);
  const full = childAttr(byInode, dir, "full");
  expect(() => rmdirChild(byInode, { parent: dir, name: "full" }, "/d/full", 2000, full?.inode as number)).toThrow(
    /ENOTEMPTY/,
  );
  expect(() => unlinkChild(byInode, { parent: dir, name: "full" }, "/d/full", 2000, full)).toThrow(/EISDIR/);
  expect(storeRows(byInode)).toEqual(before);
});
