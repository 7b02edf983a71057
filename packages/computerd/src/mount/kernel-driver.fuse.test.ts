/**
 * What the kernel driver (COMPUTERD_FUSE_DRIVER=kernel) does differently
 * from the libfuse ones, on a real mount driven by real tools: nodes are
 * inodes resolved to paths by the names the kernel was given (renames of
 * directories above cached nodes), negative entries cached for long and
 * invalidated by pushes at any depth, creation replies with attributes,
 * fstat of a file unlinked while open. It is the default driver, so
 * mount.fuse.test.ts and the other FUSE files run against it too.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pullOnce, pushOnce } from "@cloudflare/computer-rpc/driver";
import { describe, expect, test } from "vitest";
import { useMountedDaemon } from "../../test/mounted.js";

const mounted = useMountedDaemon({ FUSE_MOUNT: "fuse", COMPUTERD_FUSE_DRIVER: "kernel" });
const { sh } = mounted;

describe("the kernel driver", () => {
  test("mounts with its own protocol layer", () => {
    expect(mounted.daemon.output()).toMatch(/\(kernel, protocol 7\.\d+ of kernel 7\.\d+, max_write=1048576/);
  });

  test("rm -rf of a tree with hard links and symlinks: the other name stays, a pull sees the rest gone; . and .. keep their numbers", async () => {
    sh(
      "mkdir -p tree/a/b/c tree/e && echo x > tree/a/f && ln tree/a/f tree/e/g && ln -s ../a tree/e/s && echo y > tree/a/b/c/h",
    );
    // A listing's dots carry the directory's and its parent's numbers (no query behind them).
    expect(sh("ls -ai1 tree/a | head -2 | awk '{print $1}'")).toBe(sh("stat -c %i tree/a tree"));
    await pullOnce({ db: mounted.store }, mounted.client.sync);
    expect(await mounted.doFs.readFile(join(mounted.daemon.mountPoint, "tree/a/b/c/h"), "utf8")).toBe("y\n");
    sh("rm -rf tree/a");
    expect(sh("cat tree/e/g && stat -c %h tree/e/g && ls tree && readlink tree/e/s")).toBe("x\n1\ne\n../a\n");
    await pullOnce({ db: mounted.store }, mounted.client.sync);
    expect(await mounted.doFs.stat(join(mounted.daemon.mountPoint, "tree/a")).catch((error) => error.code)).toBe(
      "ENOENT",
    );
    expect(await mounted.doFs.readFile(join(mounted.daemon.mountPoint, "tree/e/g"), "utf8")).toBe("x\n");
    sh("rm -rf tree && mkdir -p tree/a && echo z > tree/a/f");
    expect(sh("cat tree/a/f")).toBe("z\n");
    await pullOnce({ db: mounted.store }, mounted.client.sync);
    expect(await mounted.doFs.readFile(join(mounted.daemon.mountPoint, "tree/a/f"), "utf8")).toBe("z\n");
    expect(await mounted.doFs.stat(join(mounted.daemon.mountPoint, "tree/e")).catch((error) => error.code)).toBe(
      "ENOENT",
    );
  });

  test("a directory renamed above files the kernel holds: reads and writes go to the new path", async () => {
    sh("mkdir -p top/mid && echo one > top/mid/f && cat top/mid/f > /dev/null");
    const out = sh("mv top moved && echo two >> moved/mid/f && cat moved/mid/f && ls top 2>&1 || true");
    expect(out).toBe("one\ntwo\nls: cannot access 'top': No such file or directory\n");
    await pullOnce({ db: mounted.store }, mounted.client.sync);
    expect(await mounted.doFs.readFile(join(mounted.daemon.mountPoint, "moved/mid/f"), "utf8")).toBe("one\ntwo\n");
    expect(await mounted.doFs.stat(join(mounted.daemon.mountPoint, "top")).catch((error) => error.code)).toBe("ENOENT");
  });

  test("names a push adds below cached absent names, and trees it removes, show at once", async () => {
    sh("mkdir -p neg/sub && echo keep > neg/sub/gone.txt && cat neg/sub/gone.txt > /dev/null");
    const added = join(mounted.daemon.mountPoint, "neg/sub/new.txt");
    const deeper = join(mounted.daemon.mountPoint, "neg/later/deep.txt");
    // Both absences are now cached by the kernel (negative entries, for an hour).
    expect(existsSync(added)).toBe(false);
    expect(existsSync(deeper)).toBe(false);
    await pullOnce({ db: mounted.store }, mounted.client.sync);
    await mounted.doFs.writeFile(added, "added\n");
    await mounted.doFs.mkdir(join(mounted.daemon.mountPoint, "neg/later"));
    await mounted.doFs.writeFile(deeper, "deep\n");
    await mounted.doFs.rm(join(mounted.daemon.mountPoint, "neg/sub/gone.txt"));
    await pushOnce({ db: mounted.store }, mounted.client.sync);
    expect(readFileSync(added, "utf8")).toBe("added\n");
    expect(readFileSync(deeper, "utf8")).toBe("deep\n");
    expect(existsSync(join(mounted.daemon.mountPoint, "neg/sub/gone.txt"))).toBe(false);
    expect(sh("ls neg/sub")).toBe("new.txt\n");
  });

  test("fstat of a file unlinked while open answers its size; O_EXCL on an existing name is EEXIST; mknod of a file works", () => {
    const out = sh(`python3 - <<'PY'
import os, errno
fd = os.open("held.txt", os.O_CREAT | os.O_RDWR)
os.write(fd, b"12345")
os.unlink("held.txt")
os.write(fd, b"678")
print(os.fstat(fd).st_size)
os.close(fd)
open("exists.txt", "w").close()
try:
    os.open("exists.txt", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
except OSError as e:
    print(errno.errorcode[e.errno])
os.mknod("made-by-mknod", 0o100640)
print(oct(os.stat("made-by-mknod").st_mode))
PY`);
    expect(out).toBe("8\nEEXIST\n0o100640\n");
    // A FIFO and a device node are made (in memory, posix.fuse.test.ts), the device with its numbers.
    expect(sh("mkfifo fifo && stat -c %F fifo && rm fifo")).toBe("fifo\n");
    expect(sh("mknod dev c 1 3 && stat -c '%F %t:%T' dev && rm dev")).toBe("character special file 1:3\n");
  });

  test("hard links are one node: link counts follow link and unlink without a lookup", () => {
    writeFileSync(join(mounted.daemon.mountPoint, "n1"), "x");
    expect(sh("stat -c %h n1 && ln n1 n2 && stat -c %h n1 n2 && rm n2 && stat -c %h n1")).toBe("1\n2\n2\n1\n");
    expect(statSync(join(mounted.daemon.mountPoint, "n1")).nlink).toBe(1);
  });
});
