/**
 * MountFs without a kernel: the write buffer's commits (dirty chunks only,
 * parked until someone needs the store, shared chunks from copy_file_range)
 * must leave exactly the rows a whole-file writeFile of the same bytes
 * leaves: the same manifest hash, the same chunk hashes.
 */
import { constants } from "node:fs";
import { CHUNK_SIZE, type Database, WorkspaceFilesystem } from "@cloudflare/dofs";
import { inodeChunks, lookupInode } from "@cloudflare/dofs/inode";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { pushOnce, SyncPeer } from "@cloudflare/dofs/sync";
import { beforeEach, describe, expect, test } from "vitest";
import { MountFs } from "./mount-fs.js";

const MOUNT = "/workspace";
let db: Database;
let fs: MountFs;
let clock = 1_000;

beforeEach(async () => {
  db = openNodeDatabase();
  await new WorkspaceFilesystem(db).mkdir(MOUNT, { recursive: true });
  fs = new MountFs(db, MOUNT, { now: () => clock++ });
});

function pattern(length: number, seed: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * seed + seed) % 251;
  return bytes;
}

/** The manifest hash and chunk hashes dofs' own writeFile gives these bytes. */
async function reference(bytes: Uint8Array): Promise<{ manifest: unknown; chunks: unknown }> {
  const other = openNodeDatabase();
  await new WorkspaceFilesystem(other).writeFile("/f", bytes);
  const attr = lookupInode(other, "/f");
  return { manifest: manifestOf(other, "/f"), chunks: inodeChunks(other, attr?.inode as number) };
}

function manifestOf(store: Database, path: string): unknown {
  return store.one<{ manifest_hash: string }>(
    "SELECT n.manifest_hash FROM vfs_nodes n JOIN vfs_dirents d ON d.child_inode = n.inode WHERE d.name = ?",
    path.slice(path.lastIndexOf("/") + 1),
  )?.manifest_hash;
}

function stored(path: string): { manifest: unknown; chunks: unknown } {
  const attr = lookupInode(db, MOUNT + path);
  return { manifest: manifestOf(db, path), chunks: inodeChunks(db, attr?.inode as number) };
}

async function readBack(path: string): Promise<Buffer> {
  const bytes = await new WorkspaceFilesystem(db).readFile(MOUNT + path);
  return Buffer.from(await new Response(bytes).arrayBuffer());
}

describe("commits", () => {
  test("scattered writes, a sparse gap and a cut commit to the manifest a whole-file write gives", async () => {
    const expected = Buffer.alloc(3 * CHUNK_SIZE + 777);
    const fd = await fs.create("/a.bin", 0o644);
    for (const [at, length, seed] of [
      [0, 1000, 3],
      [CHUNK_SIZE - 10, 700_000, 5],
      [2 * CHUNK_SIZE + 5000, CHUNK_SIZE + 777 - 5000, 7],
    ] as const) {
      const bytes = pattern(length, seed);
      fs.write(fd, bytes, length, at);
      bytes.copy(expected, at);
    }
    fs.ftruncate(fd, 2 * CHUNK_SIZE + 100);
    fs.ftruncate(fd, 3 * CHUNK_SIZE + 777);
    expected.fill(0, 2 * CHUNK_SIZE + 100);
    fs.release(fd);
    // Parked: nothing stored yet beyond the empty file create made.
    expect(fs.parkedBytes).toBeGreaterThan(0);
    expect(lookupInode(db, `${MOUNT}/a.bin`)?.size).toBe(0);
    expect(fs.getattr("/a.bin").size).toBe(expected.length);
    fs.commitAll();
    expect(fs.parkedBytes).toBe(0);
    expect(stored("/a.bin")).toEqual(await reference(expected));
    expect((await readBack("/a.bin")).equals(expected)).toBe(true);
  });

  test("rewriting one chunk of a stored file rehashes only that chunk", async () => {
    const original = pattern(3 * CHUNK_SIZE, 11);
    let fd = await fs.create("/b.bin", 0o644);
    fs.write(fd, original, original.length, 0);
    fs.release(fd);
    fs.commitAll();
    const before = stored("/b.bin").chunks as { hash: string }[];
    fd = fs.open("/b.bin", 2);
    fs.write(fd, Buffer.from("changed"), 7, CHUNK_SIZE + 3);
    fs.fsync(fd);
    fs.release(fd);
    const after = stored("/b.bin").chunks as { hash: string }[];
    expect(after[0]).toEqual(before[0]);
    expect(after[2]).toEqual(before[2]);
    expect(after[1]).not.toEqual(before[1]);
    Buffer.from("changed").copy(original, CHUNK_SIZE + 3);
    expect(stored("/b.bin")).toEqual(await reference(original));
  });

  test("a file written and deleted before any commit is never stored", async () => {
    const fd = await fs.create("/gone.bin", 0o644);
    fs.write(fd, pattern(CHUNK_SIZE, 2), CHUNK_SIZE, 0);
    fs.release(fd);
    await fs.unlink("/gone.bin");
    fs.commitAll();
    expect(db.one("SELECT count(*) AS n FROM vfs_chunks")).toEqual({ n: 0 });
    expect(fs.stats().mount_parked_files).toBe(0);
  });

  test("many small closed files park their bytes, not a 512 KiB buffer each", async () => {
    for (let i = 0; i < 50; i++) {
      const fd = await fs.create(`/s${i}`, 0o644);
      fs.write(fd, Buffer.from(`x${i}\n`), `x${i}\n`.length, 0);
      fs.release(fd);
    }
    expect(fs.parkedBytes).toBeLessThan(50 * 8);
    fs.commitAll();
    expect(await new WorkspaceFilesystem(db).readFile(`${MOUNT}/s7`, "utf8")).toBe("x7\n");
  });
});

describe("chmod and utimens of a file with uncommitted bytes (tar's, right after its write)", () => {
  const rev = (): number => Number(db.one<{ v: number }>("SELECT v FROM vfs_meta WHERE k = 'rev'")?.v);

  test("show at once and reach the store with the bytes, in the commit's one rev", async () => {
    const fd = await fs.create("/t", 0o600);
    fs.write(fd, Buffer.from("abc"), 3, 0);
    const before = rev();
    await fs.chmod("/t", 0o755);
    fs.utimens("/t", { mtime: 1_600_000_000_123_000_000n });
    expect(fs.getattr("/t")).toMatchObject({ mode: constants.S_IFREG | 0o755, mtime: 1_600_000_000_123, size: 3 });
    expect(fs.fgetattr(fd)).toMatchObject({ mode: constants.S_IFREG | 0o755, mtime: 1_600_000_000_123 });
    expect(rev()).toBe(before);
    fs.release(fd);
    expect(fs.getattr("/t")).toMatchObject({ mode: constants.S_IFREG | 0o755, mtime: 1_600_000_000_123 });
    fs.commitAll();
    expect(rev()).toBe(before + 1);
    expect(lookupInode(db, `${MOUNT}/t`)).toMatchObject({ mode: 0o755, mtime: 1_600_000_000_123, size: 3 });
    expect((await readBack("/t")).toString()).toBe("abc");
  });

  test("a chmod back to the stored bits while buffered stores those bits", async () => {
    const fd = await fs.create("/u", 0o600);
    fs.write(fd, Buffer.from("x"), 1, 0);
    await fs.chmod("/u", 0o644);
    await fs.chmod("/u", 0o600);
    expect(fs.getattr("/u").mode & 0o7777).toBe(0o600);
    fs.release(fd);
    fs.commitAll();
    expect(lookupInode(db, `${MOUNT}/u`)?.mode).toBe(0o600);
  });

  test("a file without uncommitted bytes is stored at once", async () => {
    const fd = await fs.create("/v", 0o600);
    fs.release(fd);
    const before = rev();
    await fs.chmod("/v", 0o640);
    expect(rev()).toBe(before + 1);
    fs.utimens("/v", { mtime: 1_500_000_000_000_000_000n });
    expect(rev()).toBe(before + 2);
    expect(lookupInode(db, `${MOUNT}/v`)).toMatchObject({ mode: 0o640, mtime: 1_500_000_000_000 });
  });

  test("a file unlinked while open keeps the buffered mode", async () => {
    const fd = await fs.create("/w", 0o600);
    fs.write(fd, Buffer.from("y"), 1, 0);
    await fs.chmod("/w", 0o751);
    await fs.unlink("/w");
    expect(fs.fgetattr(fd).mode & 0o7777).toBe(0o751);
    fs.release(fd);
  });
});

describe("copyRange (copy_file_range)", () => {
  async function writeAndClose(path: string, bytes: Buffer, commit: boolean): Promise<void> {
    const fd = await fs.create(path, 0o644);
    fs.write(fd, bytes, bytes.length, 0);
    fs.release(fd);
    if (commit) fs.commitAll();
  }

  test.each([
    ["a committed source: chunks shared by hash", true],
    ["a parked source: dirty chunks shared frozen", false],
  ])(
    "%s; the copy reads back, commits like a fresh write, and writing it leaves the source alone",
    async (_name, commit) => {
      const source = pattern(2 * CHUNK_SIZE + 1234, 13);
      await writeAndClose("/src.bin", source, commit);
      const src = fs.open("/src.bin", 0);
      const dst = await fs.create("/dst.bin", 0o644);
      expect(fs.copyRange(src, 0, dst, 0, 1 << 30)).toBe(source.length);
      const back = Buffer.alloc(source.length);
      fs.read(dst, back, back.length, 0);
      expect(back.equals(source)).toBe(true);
      // Copy-on-write: the copy's change never shows in the source.
      fs.write(dst, Buffer.from("DST"), 3, 10);
      fs.release(dst);
      fs.release(src);
      fs.commitAll();
      const copy = Buffer.from(source);
      Buffer.from("DST").copy(copy, 10);
      expect((await readBack("/src.bin")).equals(source)).toBe(true);
      expect((await readBack("/dst.bin")).equals(copy)).toBe(true);
      expect(stored("/dst.bin")).toEqual(await reference(copy));
      expect(stored("/src.bin")).toEqual(await reference(source));
    },
  );

  test("unaligned ranges are copied byte by byte", async () => {
    const source = pattern(CHUNK_SIZE + 5000, 17);
    await writeAndClose("/u.bin", source, true);
    const src = fs.open("/u.bin", 0);
    const dst = await fs.create("/v.bin", 0o644);
    expect(fs.copyRange(src, 100, dst, 7, CHUNK_SIZE)).toBe(CHUNK_SIZE);
    fs.release(src);
    fs.release(dst);
    fs.commitAll();
    const expected = Buffer.concat([Buffer.alloc(7), source.subarray(100, 100 + CHUNK_SIZE)]);
    expect((await readBack("/v.bin")).equals(expected)).toBe(true);
    expect(stored("/v.bin")).toEqual(await reference(expected));
  });
});

describe("a stored file cut and grown again reads zeros past the cut (issue 16)", () => {
  const SIZE = 6 * CHUNK_SIZE + 1234;
  const CUT = 2 * CHUNK_SIZE + 99;

  async function committed(path: string): Promise<Buffer> {
    const bytes = pattern(SIZE, 13);
    const fd = await fs.create(path, 0o644);
    fs.write(fd, bytes, bytes.length, 0);
    fs.fsync(fd);
    fs.release(fd);
    fs.commitAll();
    return bytes;
  }

  function expectZerosPastCut(read: Buffer, bytes: Buffer, size: number): void {
    expect(read.length).toBe(size);
    expect(read.subarray(0, CUT).equals(bytes.subarray(0, CUT))).toBe(true);
    expect(read.subarray(CUT).findIndex((byte) => byte !== 0)).toBe(-1);
  }

  function readAll(fd: number, size: number): Buffer {
    const out = Buffer.alloc(size);
    expect(fs.read(fd, out, size, 0)).toBe(size);
    return out;
  }

  test.each([
    ["ftruncate down and up", "ftruncate"],
    ["truncate by path (no handle) down and up", "path"],
    ["ftruncate down, then a write past a hole", "hole"],
  ])("%s: before and after the commit", async (_name, how) => {
    const bytes = await committed("/t.bin");
    const grown = 8 * CHUNK_SIZE;
    const fd = fs.open("/t.bin", constants.O_RDWR);
    if (how === "path") {
      fs.truncate("/t.bin", CUT);
      fs.truncate("/t.bin", grown);
    } else {
      fs.ftruncate(fd, CUT);
      if (how === "ftruncate") fs.ftruncate(fd, grown);
      else fs.write(fd, Buffer.alloc(1), 1, grown - 1);
    }
    expectZerosPastCut(readAll(fd, grown), bytes, grown);
    fs.fsync(fd);
    expectZerosPastCut(readAll(fd, grown), bytes, grown);
    fs.release(fd);
    expectZerosPastCut(await readBack("/t.bin"), bytes, grown);
  });

  test("O_TRUNC then a write past a hole reads zeros in the hole", async () => {
    await committed("/o.bin");
    const fd = fs.open("/o.bin", constants.O_RDWR | constants.O_TRUNC);
    fs.write(fd, Buffer.from("x"), 1, SIZE - 1);
    const read = readAll(fd, SIZE);
    expect(read.subarray(0, SIZE - 1).findIndex((byte) => byte !== 0)).toBe(-1);
    fs.release(fd);
    fs.commitAll();
    expect((await readBack("/o.bin")).equals(read)).toBe(true);
  });

  test("copy_file_range from a cut and grown source copies zeros, not the source's old chunks", async () => {
    const bytes = await committed("/s.bin");
    const src = fs.open("/s.bin", constants.O_RDWR);
    fs.ftruncate(src, CUT);
    fs.ftruncate(src, SIZE);
    const dst = await fs.create("/d.bin", 0o644);
    expect(fs.copyRange(src, 0, dst, 0, SIZE)).toBe(SIZE);
    fs.release(src);
    fs.release(dst);
    fs.commitAll();
    expectZerosPastCut(await readBack("/d.bin"), bytes, SIZE);
  });

  test("a push that shrinks and one that grows a file held open: the handle reads each, and a cut after them zeros", async () => {
    await committed("/p.bin");
    const fd = fs.open("/p.bin", constants.O_RDWR);
    const upstream = openNodeDatabase();
    const upstreamFs = new WorkspaceFilesystem(upstream);
    await upstreamFs.mkdir(MOUNT, { recursive: true });
    // The hooks the FUSE drivers give the daemon's SyncPeer.
    const peer = new SyncPeer(db, { beforeApply: () => fs.prepareApply(), afterApply: () => void fs.invalidate() });
    const short = pattern(CUT, 29);
    await upstreamFs.writeFile(`${MOUNT}/p.bin`, short);
    await pushOnce({ db: upstream }, peer);
    expect(fs.fgetattr(fd).size).toBe(CUT);
    expect(readAll(fd, CUT).equals(short)).toBe(true);
    const long = pattern(8 * CHUNK_SIZE, 31);
    await upstreamFs.writeFile(`${MOUNT}/p.bin`, long);
    await pushOnce({ db: upstream }, peer);
    expect(readAll(fd, long.length).equals(long)).toBe(true);
    fs.ftruncate(fd, CUT);
    fs.ftruncate(fd, long.length);
    expectZerosPastCut(readAll(fd, long.length), long, long.length);
    fs.release(fd);
    fs.commitAll();
    expectZerosPastCut(await readBack("/p.bin"), long, long.length);
  });
});

describe("lookups through remembered directories", () => {
  test("renames, rmdir, symlinked parents and a sync apply never leave a stale answer", async () => {
    await fs.mkdir("/d", 0o755);
    await fs.mkdir("/d/e", 0o755);
    fs.release(await fs.create("/d/e/f", 0o644));
    const inode = fs.getattr("/d/e/f").ino;
    await fs.rename("/d", "/x");
    expect(() => fs.getattr("/d/e/f")).toThrow();
    expect(fs.getattr("/x/e/f").ino).toBe(inode);
    await fs.symlink("x", "/l");
    expect(fs.getattr("/l/e/f").ino).toBe(inode);
    await fs.unlink("/x/e/f");
    await fs.rmdir("/x/e");
    await fs.mkdir("/x/e", 0o755);
    expect(() => fs.getattr("/x/e/f")).toThrow();
    fs.release(await fs.create("/x/e/f", 0o644));
    // Behind MountFs's back, as a push would: the driver calls invalidate() after the apply.
    await new WorkspaceFilesystem(db).rename(`${MOUNT}/x`, `${MOUNT}/y`);
    fs.invalidate();
    expect(() => fs.getattr("/x/e/f")).toThrow();
    expect(fs.getattr("/y/e/f").mode & 0o777).toBe(0o644);
  });
});

describe("the buffer pool", () => {
  test("buffers shared by a copy come back to the pool once both files are done with them", async () => {
    const fd = await fs.create("/p.bin", 0o644);
    fs.write(fd, pattern(2 * CHUNK_SIZE, 19), 2 * CHUNK_SIZE, 0);
    fs.release(fd);
    expect(fs.stats()).toMatchObject({ mount_dirty_buffers: 2, mount_idle_buffers: 0 });
    const src = fs.open("/p.bin", 0);
    const dst = await fs.create("/q.bin", 0o644);
    fs.copyRange(src, 0, dst, 0, 2 * CHUNK_SIZE);
    fs.release(src);
    fs.release(dst);
    fs.commitAll();
    expect(fs.stats()).toMatchObject({ mount_dirty_buffers: 0, mount_idle_buffers: 2 });
    expect(stored("/q.bin")).toEqual(stored("/p.bin"));
  });
});
