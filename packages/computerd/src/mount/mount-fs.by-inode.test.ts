/**
 * MountFs's files by inode (no-open), without a kernel: a file written
 * through an inode reference is parked at once and commits to the rows a
 * whole-file write leaves; clean files loaded by inode stay bounded; a
 * file whose last name goes while the kernel holds it is an orphan,
 * readable and writable by inode, its chunks held from gc, until
 * forgetInode; a push that deletes a held file leaves it an orphan too.
 */
import { CHUNK_SIZE, type Database, WorkspaceFilesystem } from "@cloudflare/dofs";
import { inodeChunks, lookupInode } from "@cloudflare/dofs/inode";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { pushOnce, SyncPeer } from "@cloudflare/dofs/sync";
import { beforeEach, describe, expect, test } from "vitest";
import { MountFs } from "./mount-fs.js";

const MOUNT = "/workspace";
let db: Database;
let fs: MountFs;
/** The inodes the fake kernel holds. */
let held: Set<number>;
/** Inodes the fake kernel holds by no name it knows (a hard link's other name removed). */
let nameless: Set<number>;
let clock = 1_000;

beforeEach(async () => {
  db = openNodeDatabase();
  await new WorkspaceFilesystem(db).mkdir(MOUNT, { recursive: true });
  fs = new MountFs(db, MOUNT, { now: () => clock++ });
  held = new Set();
  nameless = new Set();
  fs.serveByInode({
    pathOf: (inode) => (nameless.has(inode) ? undefined : pathOfInode(inode)),
    holds: (inode) => held.has(inode),
  });
});

/** The FUSE path of a stored inode (the fake kernel's names: one walk over the mount's entries). */
function pathOfInode(inode: number): string | undefined {
  const row = db.one<{ name: string }>("SELECT name FROM vfs_dirents WHERE child_inode = ?", inode);
  return row === undefined ? undefined : `/${row.name}`;
}

function inodeOf(path: string): number {
  return lookupInode(db, MOUNT + path)?.inode as number;
}

function pattern(length: number, seed: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * seed + seed) % 251;
  return bytes;
}

async function readBack(path: string): Promise<Buffer> {
  const bytes = await new WorkspaceFilesystem(db).readFile(MOUNT + path);
  return Buffer.from(await new Response(bytes).arrayBuffer());
}

/** A file made as the kernel driver makes it with no-open: create, then the handle handed to the inode. */
async function create(path: string, bytes?: Buffer): Promise<number> {
  const fd = await fs.create(path, 0o644);
  const inode = inodeOf(path);
  held.add(inode);
  fs.releaseToInode(fd);
  if (bytes !== undefined) fs.write(MountFs.inodeRef(inode), bytes, bytes.length, 0);
  return inode;
}

function readByInode(inode: number, length: number, at = 0): Buffer {
  const out = Buffer.alloc(length);
  const read = fs.read(MountFs.inodeRef(inode), out, length, at);
  return out.subarray(0, read);
}

describe("files by inode", () => {
  test("a write by inode parks at once (no handle, no close), reads back, and commits to what writeFile stores", async () => {
    const bytes = pattern(2 * CHUNK_SIZE + 123, 7);
    const inode = await create("/a.bin", bytes);
    expect(fs.stats()).toMatchObject({ mount_handles: 0, mount_parked_files: 1 });
    expect(readByInode(inode, bytes.length).equals(bytes)).toBe(true);
    expect(fs.fgetattr(MountFs.inodeRef(inode)).size).toBe(bytes.length);
    fs.commitAll();
    expect(fs.stats()).toMatchObject({ mount_parked_files: 0, mount_open_files: 0 });
    expect((await readBack("/a.bin")).equals(bytes)).toBe(true);
    const other = openNodeDatabase();
    await new WorkspaceFilesystem(other).writeFile("/f", bytes);
    expect(inodeChunks(db, inode)).toEqual(inodeChunks(other, lookupInode(other, "/f")?.inode as number));
    // Read by inode after the commit: loaded from the store.
    expect(readByInode(inode, 10, CHUNK_SIZE).equals(bytes.subarray(CHUNK_SIZE, CHUNK_SIZE + 10))).toBe(true);
  });

  test("appends by inode keep one growing buffer per file until writes move on, then park only their bytes", async () => {
    const inodes: number[] = [];
    for (let i = 0; i < 20; i++) inodes.push(await create(`/f${i}`));
    for (const inode of inodes)
      for (let k = 0; k < 50; k++) fs.write(MountFs.inodeRef(inode), Buffer.from("line\n"), 5, k * 5);
    // Every file but the last was compacted when the writes moved to the next one; the last still has
    // the buffer its 250 bytes grew into (the smallest, 4 KiB: open-file.ts).
    const { mount_parked_files: files, mount_parked_bytes: bytes } = fs.stats();
    expect(files).toBe(20);
    expect(bytes).toBe(19 * 250 + 4096);
    fs.commitAll();
    for (let i = 0; i < 20; i++) expect((await readBack(`/f${i}`)).toString()).toBe("line\n".repeat(50));
  });

  test("ftruncate and fsync by inode; clean files read by inode stay bounded", async () => {
    const inode = await create("/t", Buffer.from("0123456789"));
    fs.ftruncate(MountFs.inodeRef(inode), 4);
    fs.fsync(MountFs.inodeRef(inode));
    expect((await readBack("/t")).toString()).toBe("0123");
    for (let i = 0; i < 40; i++) await create(`/r${i}`, Buffer.from(`r${i}`));
    fs.commitAll();
    for (let i = 0; i < 40; i++) expect(readByInode(inodeOf(`/r${i}`), 10).toString()).toBe(`r${i}`);
    expect(fs.stats().mount_open_files).toBeLessThanOrEqual(16);
  });

  test("a held file unlinked is an orphan: read, written and fstat'ed by inode, its chunks held, until forgetInode", async () => {
    const bytes = pattern(CHUNK_SIZE + 10, 3);
    const inode = await create("/o", bytes);
    fs.commitAll();
    const chunks = inodeChunks(db, inode).map((chunk) => chunk.hash);
    await fs.unlink("/o");
    expect(fs.stats().mount_orphan_files).toBe(1);
    fs.write(MountFs.inodeRef(inode), Buffer.from("NEW"), 3, 0);
    expect(readByInode(inode, 5).toString("latin1")).toBe(`NEW${bytes.subarray(3, 5).toString("latin1")}`);
    expect(readByInode(inode, 5, CHUNK_SIZE + 5).equals(bytes.subarray(CHUNK_SIZE + 5))).toBe(true);
    expect(fs.inodeStat(inode)).toMatchObject({ nlink: 0, size: bytes.length });
    const holds = new Set<string>();
    fs.heldChunks(holds);
    for (const hash of chunks) expect(holds.has(hash)).toBe(true);
    // Nothing of it reaches the store.
    fs.commitAll();
    expect(lookupInode(db, `${MOUNT}/o`)).toBeUndefined();
    fs.forgetInode(inode);
    expect(fs.stats()).toMatchObject({ mount_orphan_files: 0, mount_open_files: 0 });
    expect(fs.inodeStat(inode)).toBeUndefined();
    const after = new Set<string>();
    fs.heldChunks(after);
    expect(after.size).toBe(0);
  });

  test("a file held by no name the kernel knows is found by its names in the store, and commits there", async () => {
    await fs.mkdir("/d", 0o755);
    await fs.mkdir("/d/e", 0o755);
    const inode = await create("/d/e/x", Buffer.from("abc"));
    fs.commitAll();
    nameless.add(inode);
    fs.write(MountFs.inodeRef(inode), Buffer.from("XYZ"), 3, 3);
    fs.commitAll();
    expect((await readBack("/d/e/x")).toString()).toBe("abcXYZ");
  });

  test("a file the kernel does not hold is no orphan; an empty held one costs no chunk query", async () => {
    const inode = await create("/gone", Buffer.from("x"));
    held.delete(inode);
    await fs.unlink("/gone");
    expect(fs.stats().mount_orphan_files).toBe(0);
    const empty = await create("/empty");
    await fs.unlink("/empty");
    expect(fs.inodeStat(empty)).toMatchObject({ nlink: 0, size: 0 });
    fs.forgetInode(empty);
    expect(fs.stats().mount_orphan_files).toBe(0);
  });

  test("O_TMPFILE handed to its inode lives as an orphan; linkOpen names it and it commits", async () => {
    const fd = fs.tmpfile("/", 0o600);
    const inode = fs.fgetattr(fd).ino;
    held.add(inode);
    fs.releaseToInode(fd);
    fs.write(MountFs.inodeRef(inode), Buffer.from("tmp "), 4, 0);
    expect(fs.inodeStat(inode)).toMatchObject({ nlink: 0, size: 4 });
    const named = fs.linkOpen(MountFs.inodeRef(inode), "/named");
    fs.write(MountFs.inodeRef(named), Buffer.from("more"), 4, 4);
    fs.commitAll();
    expect((await readBack("/named")).toString()).toBe("tmp more");
    expect(fs.stats().mount_orphan_files).toBe(0);
  });

  test("a push that deletes a held file leaves an orphan that still reads; one it rewrites reads anew", async () => {
    await create("/doomed", Buffer.from("still here\n"));
    await create("/changed", Buffer.from("old\n"));
    fs.commitAll();
    const doomed = inodeOf("/doomed");
    const changed = inodeOf("/changed");
    expect(readByInode(changed, 10).toString()).toBe("old\n");
    const peer = new SyncPeer(db, {
      beforeApply: (entries) => {
        fs.prepareApply();
        for (const entry of entries) {
          const inode = lookupInode(db, entry.path)?.inode;
          if (inode !== undefined && held.has(inode)) fs.keepForApply(inode);
        }
      },
      afterApply: () => void fs.invalidate(),
    });
    const other = openNodeDatabase();
    const otherFs = new WorkspaceFilesystem(other);
    await otherFs.mkdir(MOUNT, { recursive: true });
    await otherFs.writeFile(`${MOUNT}/changed`, "new bytes\n");
    await otherFs.writeFile(`${MOUNT}/doomed`, "x");
    await otherFs.rm(`${MOUNT}/doomed`);
    await pushOnce({ db: other }, peer);
    expect(lookupInode(db, `${MOUNT}/doomed`)).toBeUndefined();
    expect(fs.isOrphan(doomed)).toBe(true);
    expect(readByInode(doomed, 20).toString()).toBe("still here\n");
    expect(readByInode(inodeOf("/changed"), 20).toString()).toBe("new bytes\n");
    fs.forgetInode(doomed);
    expect(fs.isOrphan(doomed)).toBe(false);
  });

  test("entry and attribute versions move with entries and attributes", async () => {
    const entries = fs.entryVersion;
    const attrs = fs.attrVersion;
    const inode = await create("/v");
    expect(fs.entryVersion).toBeGreaterThan(entries);
    const afterCreate = { entries: fs.entryVersion, attrs: fs.attrVersion };
    fs.write(MountFs.inodeRef(inode), Buffer.from("x"), 1, 0);
    expect(fs.entryVersion).toBe(afterCreate.entries);
    expect(fs.attrVersion).toBeGreaterThan(afterCreate.attrs);
    expect(fs.attrVersion).toBeGreaterThan(attrs);
  });
});
