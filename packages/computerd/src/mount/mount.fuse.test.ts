/**
 * A real computerd with a real FUSE mount, driven by real tools; what they
 * leave is pulled over WorkspaceRPC into a separate dofs store (the Durable
 * Object's side) and compared byte for byte and mode for mode.
 */
import { execFileSync } from "node:child_process";
import {
  closeSync,
  copyFileSync,
  existsSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { ExecEvent } from "@cloudflare/computer-rpc";
import { createWorkspaceClient } from "@cloudflare/computer-rpc/client";
import { pullOnce } from "@cloudflare/computer-rpc/driver";
import { WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { describe, expect, test } from "vitest";
import { isMounted, startDaemon } from "../../test/daemon.js";
import { useMountedDaemon } from "../../test/mounted.js";
import { waitFor } from "../../test/wait.js";
import { topMount } from "./guard.js";

/**
 * This file runs against the default driver, our own FUSE layer (kernel);
 * COMPUTERD_TEST_FUSE_DRIVER=fuse-napi (or fuse-native) runs it against another (test/daemon.ts).
 */
const KERNEL = (process.env.COMPUTERD_TEST_FUSE_DRIVER ?? "kernel") === "kernel";

const mounted = useMountedDaemon({ FUSE_MOUNT: "fuse" });

const GIT_ENV = {
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.invalid",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.invalid",
  GIT_CONFIG_NOSYSTEM: "1",
  HOME: "/tmp",
};

function sh(script: string, cwd = mounted.daemon.mountPoint): string {
  return execFileSync("bash", ["-euo", "pipefail", "-c", script], {
    cwd,
    env: { ...process.env, ...GIT_ENV },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

async function drain(events: ReadableStream<ExecEvent>): Promise<{ stdout: string; stderr: string; code?: number }> {
  let stdout = "";
  let stderr = "";
  let code: number | undefined;
  for await (const event of events) {
    if (event.name === "exit") code = event.code;
    else if (event.name === "stdout") stdout += Buffer.from(event.value).toString();
    else stderr += Buffer.from(event.value).toString();
  }
  return { stdout, stderr, code };
}

/** Every path under `dir` on the mount, depth first. */
function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    out.push(path);
    if (lstatSync(path).isDirectory()) out.push(...walk(path));
  }
  return out;
}

/** Pulls into the Durable Object's store and compares every path the mount shows. */
async function expectPulledMatchesMount(): Promise<number> {
  await pullOnce({ db: mounted.store }, mounted.client.sync);
  const paths = walk(mounted.daemon.mountPoint);
  const mismatches: string[] = [];
  for (const path of paths) {
    const disk = lstatSync(path);
    // FIFOs and sockets stay in the container (docs/computerd.md, "POSIX: special files").
    if (disk.isFIFO() || disk.isSocket()) continue;
    const pulled = await mounted.doFs.lstat(path).catch(() => undefined);
    if (pulled === undefined) {
      mismatches.push(`${path}: missing in the pulled store`);
      continue;
    }
    if ((disk.mode & 0o7777) !== pulled.mode && !disk.isSymbolicLink()) {
      mismatches.push(`${path}: mode ${(disk.mode & 0o7777).toString(8)} vs ${pulled.mode.toString(8)}`);
    }
    if (disk.isSymbolicLink()) {
      if (readlinkSync(path) !== (await mounted.doFs.readlink(path))) mismatches.push(`${path}: link target`);
    } else if (disk.isFile()) {
      const bytes = new Uint8Array(await new Response(await mounted.doFs.readFile(path)).arrayBuffer());
      if (!Buffer.from(bytes).equals(readFileSync(path))) mismatches.push(`${path}: bytes differ`);
    } else if (!pulled.isDirectory) mismatches.push(`${path}: not a directory in the store`);
  }
  expect(mismatches).toEqual([]);
  return paths.length;
}

describe("real tools on the mount", () => {
  test("echo, cat, ls -la, mkdir -p, mv, ln -s, chmod, truncate, touch, then pull and compare", async () => {
    const out = sh(`
      echo hello > a.txt
      cat a.txt
      mkdir -p deep/er/est
      mv a.txt deep/er/b.txt
      ln -s deep/er/b.txt link
      cat link
      chmod 751 deep/er/b.txt
      printf 'abcdefgh' > t.txt && truncate -s 3 t.txt && truncate -s 6 t.txt
      touch -d @1000000000 t.txt
      ls -la . deep/er > /dev/null
      stat -c '%a %s %Y' deep/er/b.txt t.txt
    `);
    expect(out).toBe(
      "hello\nhello\n751 6 " +
        String((statSync(join(mounted.daemon.mountPoint, "deep/er/b.txt")).mtimeMs / 1000) | 0) +
        "\n644 6 1000000000\n",
    );
    expect(readFileSync(join(mounted.daemon.mountPoint, "t.txt"))).toEqual(Buffer.from("abc\0\0\0"));
    expect(readlinkSync(join(mounted.daemon.mountPoint, "link"))).toBe("deep/er/b.txt");
    await expectPulledMatchesMount();
    expect((await mounted.doFs.stat(join(mounted.daemon.mountPoint, "t.txt"))).mtime).toBe(1_000_000_000_000);
  });

  test("git init/add/commit/gc and a local clone (hardlinks, stable inodes)", async () => {
    sh(`
      mkdir repo && cd repo && git init -q -b main
      for i in $(seq 1 30); do echo "file $i" > f$i.txt; done
      mkdir sub && echo nested > sub/n.txt
      git add -A && git commit -qm first
      echo more >> f1.txt && git commit -qam second
      git gc -q
      cd .. && git clone -q repo clone
      cd clone && git log --oneline | wc -l && git status --porcelain
    `);
    expect(sh("cat clone/f1.txt")).toBe("file 1\nmore\n");
    expect(sh("cd clone && git fsck --no-progress 2>&1 && git rev-parse HEAD")).toBe(
      sh("cd repo && git rev-parse HEAD"),
    );
    await expectPulledMatchesMount();
  });

  test("npm init -y and a tar round trip", async () => {
    sh("mkdir pkg && cd pkg && npm init -y > /dev/null");
    expect(JSON.parse(readFileSync(join(mounted.daemon.mountPoint, "pkg/package.json"), "utf8")).name).toBe("pkg");
    const tarball = join(mounted.daemon.mountPoint, "..", "repo.tar");
    sh(`tar -cf ${tarball} repo && mkdir untar && tar -xf ${tarball} -C untar && diff -r repo untar/repo`);
    await expectPulledMatchesMount();
  });

  test("writes at offsets, sparse growth, overwrite and truncate across chunk boundaries", async () => {
    const path = join(mounted.daemon.mountPoint, "big.bin");
    const expected = Buffer.alloc(3 * 524_288 + 1000);
    const fd = openSync(path, "w+");
    const pattern = Buffer.alloc(700_000);
    for (let i = 0; i < pattern.length; i++) pattern[i] = (i * 7) % 251;
    for (const at of [0, 524_000, 1_400_000]) {
      writeSync(fd, pattern, 0, Math.min(pattern.length, expected.length - at), at);
      pattern.copy(expected, at, 0, Math.min(pattern.length, expected.length - at));
    }
    // Read back through the same descriptor before anything is committed.
    const back = Buffer.alloc(expected.length);
    readSync(fd, back, 0, back.length, 0);
    expect(back.subarray(0, 2_100_000).equals(expected.subarray(0, 2_100_000))).toBe(true);
    closeSync(fd);
    sh("truncate -s 600000 big.bin && truncate -s 1100000 big.bin");
    expected.fill(0, 600_000);
    const final = expected.subarray(0, 1_100_000);
    expect(readFileSync(path).equals(final)).toBe(true);
    await expectPulledMatchesMount();
  });

  test("utimens keeps the mtime that was asked for, not the atime", async () => {
    const path = join(mounted.daemon.mountPoint, "times.txt");
    sh("echo t > times.txt");
    utimesSync(path, new Date(1_500_000_000_000), new Date(1_200_000_000_000));
    expect(statSync(path).mtimeMs).toBe(1_200_000_000_000);
    await pullOnce({ db: mounted.store }, mounted.client.sync);
    expect((await mounted.doFs.stat(path)).mtime).toBe(1_200_000_000_000);
  });

  test("touch -m sets the mtime alone (libfuse 3 passes UTIME_OMIT through), and the pull carries it", async () => {
    sh("echo m > mtime-only.txt && touch -m -d @1100000000 mtime-only.txt && touch -a -d @1300000000 mtime-only.txt");
    const path = join(mounted.daemon.mountPoint, "mtime-only.txt");
    expect(statSync(path).mtimeMs).toBe(1_100_000_000_000);
    await pullOnce({ db: mounted.store }, mounted.client.sync);
    expect((await mounted.doFs.stat(path)).mtime).toBe(1_100_000_000_000);
  });

  test("cp and fs.copyFile (copy_file_range) of a fresh and of a pulled file, then writes to the copies", async () => {
    const big = Buffer.alloc(3 * 524_288 + 4321);
    for (let i = 0; i < big.length; i++) big[i] = (i * 13) % 251;
    const path = join(mounted.daemon.mountPoint, "cp-src.bin");
    writeFileSync(path, big);
    sh("cp cp-src.bin cp-fresh.bin");
    await pullOnce({ db: mounted.store }, mounted.client.sync);
    copyFileSync(path, join(mounted.daemon.mountPoint, "cp-pulled.bin"));
    sh("printf XY | dd of=cp-fresh.bin bs=1 seek=5 conv=notrunc status=none");
    expect(readFileSync(path).equals(big)).toBe(true);
    expect(readFileSync(join(mounted.daemon.mountPoint, "cp-pulled.bin")).equals(big)).toBe(true);
    const changed = Buffer.from(big);
    changed.write("XY", 5);
    expect(readFileSync(join(mounted.daemon.mountPoint, "cp-fresh.bin")).equals(changed)).toBe(true);
    await expectPulledMatchesMount();
  });

  test("a listing carries each entry's attributes (readdirplus): open and parked sizes, links, inode numbers", async () => {
    sh("mkdir -p plus && cd plus && printf 12345 > parked && ln parked linked && ln -s parked sym && mkdir sub");
    const fd = openSync(join(mounted.daemon.mountPoint, "plus/open"), "w");
    writeSync(fd, "1234567");
    const listing = sh("ls -lin --time-style=+%s plus | tail -n +2")
      .trim()
      .split("\n")
      .map((line) => line.split(/\s+/));
    // inode, mode, links, uid, gid, size, time, name[, ->, target]
    const byName = Object.fromEntries(listing.map((fields) => [fields[7], fields]));
    expect(byName.parked?.[5]).toBe("5");
    expect(byName.parked?.[2]).toBe("2");
    expect(byName.open?.[5]).toBe("7");
    expect(byName.linked?.[0]).toBe(byName.parked?.[0]);
    expect(byName.sub?.[1]?.startsWith("d")).toBe(true);
    expect(byName.sym?.[1]?.startsWith("l")).toBe(true);
    expect(byName.sym?.[5]).toBe("6");
    expect(String(statSync(join(mounted.daemon.mountPoint, "plus/sub")).ino)).toBe(byName.sub?.[0]);
    closeSync(fd);
    await expectPulledMatchesMount();
  });

  test("names a push adds or removes are seen at once, though the kernel cached them (epoch)", async () => {
    expect(mounted.daemon.output()).toContain(
      KERNEL ? "(kernel," : "loop=main, writeback_cache=off, epoch=on, entry_timeout=30, negative_timeout=30",
    );
    const added = join(mounted.daemon.mountPoint, "added-by-push.txt");
    const removed = join(mounted.daemon.mountPoint, "removed-by-push.txt");
    expect(existsSync(added)).toBe(false);
    writeFileSync(removed, "before\n");
    expect(readFileSync(removed, "utf8")).toBe("before\n");
    await pullOnce({ db: mounted.store }, mounted.client.sync);
    const { pushOnce } = await import("@cloudflare/computer-rpc/driver");
    await mounted.doFs.writeFile(added, "added\n");
    await mounted.doFs.rm(removed);
    await pushOnce({ db: mounted.store }, mounted.client.sync);
    expect(readFileSync(added, "utf8")).toBe("added\n");
    expect(existsSync(removed)).toBe(false);
    writeFileSync(removed, "again\n");
    expect(readFileSync(removed, "utf8")).toBe("again\n");
  });

  test("a file a push changes is read anew, though the kernel cached its pages and attributes", async () => {
    const path = join(mounted.daemon.mountPoint, "pushed-over.txt");
    writeFileSync(path, "short\n");
    expect(readFileSync(path, "utf8")).toBe("short\n");
    statSync(path);
    await pullOnce({ db: mounted.store }, mounted.client.sync);
    const { pushOnce } = await import("@cloudflare/computer-rpc/driver");
    await mounted.doFs.writeFile(path, "a longer line from the Durable Object\n");
    await pushOnce({ db: mounted.store }, mounted.client.sync);
    expect(readFileSync(path, "utf8")).toBe("a longer line from the Durable Object\n");
    const result = await drain((await mounted.client.shell.exec({ source: "cat pushed-over.txt" })).events);
    expect(result.stdout).toBe("a longer line from the Durable Object\n");
  });

  test("a file unlinked while open stays readable and writable, and never reaches the store", async () => {
    const path = join(mounted.daemon.mountPoint, "open-unlinked.txt");
    const fd = openSync(path, "w+");
    writeSync(fd, "before unlink");
    unlinkSync(path);
    expect(existsSync(path)).toBe(false);
    writeSync(fd, " and after");
    const back = Buffer.alloc(64);
    const read = readSync(fd, back, 0, 64, 0);
    expect(back.subarray(0, read).toString()).toBe("before unlink and after");
    expect(readdirSync(mounted.daemon.mountPoint).filter((name) => name.startsWith(".fuse_hidden"))).toEqual([]);
    await pullOnce({ db: mounted.store }, mounted.client.sync);
    expect(await mounted.doFs.find("/", ".fuse_hidden*")).toEqual([]);
    closeSync(fd);
    expect(await mounted.doFs.stat(path).catch((error) => error.code)).toBe("ENOENT");
  });

  test("hardlinks share an inode; rename over an existing file; inode numbers are stable", async () => {
    sh("echo one > h1 && ln h1 h2 && echo two > r1 && echo three > r2 && mv r1 r2");
    const h1 = statSync(join(mounted.daemon.mountPoint, "h1"));
    expect(statSync(join(mounted.daemon.mountPoint, "h2")).ino).toBe(h1.ino);
    expect(statSync(join(mounted.daemon.mountPoint, "h1")).ino).toBe(h1.ino);
    expect(readFileSync(join(mounted.daemon.mountPoint, "r2"), "utf8")).toBe("two\n");
    expect(existsSync(join(mounted.daemon.mountPoint, "r1"))).toBe(false);
    expect(sh("df -P . | tail -1 | wc -l")).toBe("1\n");
    // A FIFO is local to the container: made on the mount, never pulled (expectPulledMatchesMount skips it).
    expect(sh("mkfifo fifo && stat -c %F fifo")).toBe("fifo\n");
    await expectPulledMatchesMount();
    await expect(mounted.doFs.lstat(join(mounted.daemon.mountPoint, "fifo"))).rejects.toThrow(/ENOENT/);
    sh("rm fifo");
  });

  test("a write through one hard link is seen at once through the other: bytes, size and mtime", async () => {
    // Each name is its own kernel inode under libfuse's high-level API; both were read, so both are cached.
    const out = sh(`
      echo one > l1 && ln l1 l2 && cat l1 l2 >/dev/null && stat -c %s l2 >/dev/null
      echo three33 > l1; echo "$(cat l2) $(stat -c %s l2)"
      echo four444 > l1; echo "$(cat l2) $(stat -c %s l2)"
      echo more >> l2; echo "$(tr '\n' ' ' < l1)$(stat -c %s l1)"
      touch -m -d @1000000000 l1; stat -c %Y l2
      chmod 600 l2; stat -c %a l1
      rm l1; stat -c %h l2
    `);
    expect(out).toBe("three33 8\nfour444 8\nfour444 more 13\n1000000000\n600\n1\n");
    await expectPulledMatchesMount();
  });
});

describe("exec on the mount", () => {
  test("a command's writes are in the next pull; cwd inside and outside the mount is checked first, and missing is ENOENT with the path", async () => {
    sh("mkdir -p 'work dir'");
    const cwd = join(mounted.daemon.mountPoint, "work dir");
    const result = await drain((await mounted.client.shell.exec({ source: "echo made > out.txt && pwd", cwd })).events);
    expect(result).toEqual({ stdout: `${cwd}\n`, stderr: "", code: 0 });
    await pullOnce({ db: mounted.store }, mounted.client.sync);
    expect(await mounted.doFs.readFile(join(cwd, "out.txt"), "utf8")).toBe("made\n");
    // Outside the mount a cwd is a path of the container's own filesystem: /etc is there, a missing one fails first.
    const outside = await drain((await mounted.client.shell.exec({ source: "pwd", cwd: "/etc" })).events);
    expect(outside).toEqual({ stdout: "/etc\n", stderr: "", code: 0 });
    const missing = await drain((await mounted.client.shell.exec({ source: "echo RAN", cwd: "/etc/nope" })).events);
    expect(missing).toEqual({
      stdout: "",
      stderr: "spawn failed: ENOENT: no such file or directory, chdir '/etc/nope'\n",
      code: -1,
    });
    const inside = await drain(
      (await mounted.client.shell.exec({ source: "echo RAN", cwd: join(cwd, "nope") })).events,
    );
    expect(inside).toEqual({
      stdout: "",
      stderr: `spawn failed: ENOENT: no such file or directory, chdir '${join(cwd, "nope")}'\n`,
      code: -1,
    });
  });

  test("a file pushed from the store is visible to the next exec", async () => {
    const { pushOnce } = await import("@cloudflare/computer-rpc/driver");
    await mounted.doFs.writeFile(join(mounted.daemon.mountPoint, "from-do.txt"), "pushed\n");
    await pushOnce({ db: mounted.store }, mounted.client.sync);
    const result = await drain((await mounted.client.shell.exec({ source: "cat from-do.txt" })).events);
    expect(result.stdout).toBe("pushed\n");
  });
});

describe("other mount settings", () => {
  test("the threads loop (requests handed from libfuse's workers) serves the same operations", async () => {
    // The loop is fuse-napi's setting, so this one runs there whatever the file's driver.
    const other = await startDaemon({
      FUSE_MOUNT: "fuse",
      COMPUTERD_FUSE_DRIVER: "fuse-napi",
      COMPUTERD_FUSE_LOOP: "threads",
    });
    try {
      expect(other.output()).toContain("loop=threads");
      const out = execFileSync(
        "bash",
        [
          "-euo",
          "pipefail",
          "-c",
          "mkdir -p d/e && echo x > d/e/f && ln -s e/f d/s && ln d/e/f d/h && cat d/s d/h && rm -r d && ls",
        ],
        { cwd: other.mountPoint, encoding: "utf8" },
      );
      expect(out).toBe("x\nx\n");
    } finally {
      await other.stop();
    }
  });

  test("fuse-native (libfuse 2) still serves the same operations", async () => {
    const other = await startDaemon({ FUSE_MOUNT: "fuse", COMPUTERD_FUSE_DRIVER: "fuse-native" });
    try {
      expect(other.output()).toContain("(fuse-native,");
      sh(
        "echo one > a && ln a b && ln -s a c && mkdir d && mv b d/b && cp a e && truncate -s 1 e && cat d/b c e",
        other.mountPoint,
      );
      expect(statSync(join(other.mountPoint, "d/b")).ino).toBe(statSync(join(other.mountPoint, "a")).ino);
      expect(readFileSync(join(other.mountPoint, "e"), "utf8")).toBe("o");
    } finally {
      await other.stop();
    }
  });

  test("with the writeback cache, bytes written through a handle still open reach the pull (syncfs first)", async () => {
    const other = await startDaemon({ FUSE_MOUNT: "fuse", COMPUTERD_FUSE_WRITEBACK_CACHE: "1" });
    const otherClient = await createWorkspaceClient({ url: `${other.url}/api` });
    try {
      expect(other.output()).toContain(KERNEL ? "writeback cache on" : "writeback_cache=on");
      const path = join(other.mountPoint, "open.log");
      const fd = openSync(path, "w");
      writeSync(fd, "still open\n");
      const otherStore = openNodeDatabase();
      await pullOnce({ db: otherStore }, otherClient.sync);
      expect(await new WorkspaceFilesystem(otherStore).readFile(path, "utf8")).toBe("still open\n");
      closeSync(fd);
    } finally {
      await otherClient.close();
      await other.stop();
    }
  });
});

describe("pushes over files the kernel cached", () => {
  test.each(["0", "1"])(
    "writeback cache %s: a push that grows, shrinks or rewrites a file, open or not, shows its new size, mtime and bytes",
    async (writeback) => {
      const other = await startDaemon({ FUSE_MOUNT: "fuse", COMPUTERD_FUSE_WRITEBACK_CACHE: writeback });
      const otherClient = await createWorkspaceClient({ url: `${other.url}/api` });
      const { pushOnce } = await import("@cloudflare/computer-rpc/driver");
      const otherStore = openNodeDatabase();
      const otherFs = new WorkspaceFilesystem(otherStore);
      try {
        const grow = join(other.mountPoint, "grow.txt");
        const shrink = join(other.mountPoint, "shrink.txt");
        const same = join(other.mountPoint, "same.txt");
        writeFileSync(grow, "short\n");
        writeFileSync(shrink, "a rather longer line\n");
        writeFileSync(same, "aaaa\n");
        utimesSync(same, 1_000, 1_000);
        for (const path of [grow, shrink, same]) {
          readFileSync(path);
          statSync(path);
        }
        await pullOnce({ db: otherStore }, otherClient.sync);
        await otherFs.writeFile(grow, "a longer line from the Durable Object\n");
        await otherFs.writeFile(shrink, "tiny\n");
        await otherFs.writeFile(same, "bbbb\n");
        await pushOnce({ db: otherStore }, otherClient.sync);
        expect(statSync(grow).size).toBe(38);
        expect(readFileSync(grow, "utf8")).toBe("a longer line from the Durable Object\n");
        expect(statSync(shrink).size).toBe(5);
        expect(readFileSync(shrink, "utf8")).toBe("tiny\n");
        expect(statSync(same).mtimeMs).toBe((await otherFs.stat(same)).mtime);
        expect(readFileSync(same, "utf8")).toBe("bbbb\n");

        const held = join(other.mountPoint, "held.txt");
        writeFileSync(held, "short\n");
        const fd = openSync(held, "r");
        await pullOnce({ db: otherStore }, otherClient.sync);
        await otherFs.writeFile(held, "a longer line from the Durable Object\n");
        const mtime = (await otherFs.stat(held)).mtime;
        await pushOnce({ db: otherStore }, otherClient.sync);
        const back = Buffer.alloc(64);
        const whileOpen = {
          size: statSync(held).size,
          mtime: statSync(held).mtimeMs,
          bytes: readSync(fd, back, 0, 64, 0),
        };
        closeSync(fd);
        expect(whileOpen).toEqual({ size: 38, mtime, bytes: 38 });
        expect(back.subarray(0, 38).toString()).toBe("a longer line from the Durable Object\n");
        expect(statSync(held).size).toBe(38);
        expect(readFileSync(held, "utf8")).toBe("a longer line from the Durable Object\n");
        // Nothing the push brought in comes back as a container change.
        await pullOnce({ db: otherStore }, otherClient.sync);
        expect((await otherFs.stat(held)).mtime).toBe(mtime);

        // A file the push deletes while it is open stays readable through the handle, and is gone by name.
        const doomed = join(other.mountPoint, "doomed.txt");
        writeFileSync(doomed, "still here\n");
        const doomedFd = openSync(doomed, "r");
        await pullOnce({ db: otherStore }, otherClient.sync);
        await otherFs.rm(doomed);
        await pushOnce({ db: otherStore }, otherClient.sync);
        expect(existsSync(doomed)).toBe(false);
        expect(readSync(doomedFd, back, 0, 64, 0)).toBe(11);
        expect(back.subarray(0, 11).toString()).toBe("still here\n");
        closeSync(doomedFd);
        await pullOnce({ db: otherStore }, otherClient.sync);
        expect(await otherFs.stat(doomed).catch((error) => error.code)).toBe("ENOENT");
      } finally {
        await otherClient.close();
        await other.stop();
      }
    },
  );
});

describe("process lifecycle", () => {
  test("SIGKILL leaves no dead mount, and a second computerd mounts the same point at once", async () => {
    const first = await startDaemon({ FUSE_MOUNT: "fuse" });
    expect(isMounted(first.mountPoint)).toBe(true);
    first.child.kill("SIGKILL");
    await first.exited;
    // The kernel driver's guard (mount/guard.ts) stays beneath: only the FUSE mount must go.
    await waitFor(() => topMount(first.mountPoint)?.fstype !== "fuse.computerd", "the dead mount gone", {
      timeoutMs: 2_000,
    });
    const second = await startDaemon({ FUSE_MOUNT: "fuse" }, first.mountPoint);
    sh("echo again > x && cat x", second.mountPoint);
    expect(await second.stop()).toBe(143);
    expect(isMounted(second.mountPoint)).toBe(false);
  });

  test("SIGTERM kills running children, unmounts and exits 143; SIGINT exits 130", async () => {
    const other = await startDaemon({ FUSE_MOUNT: "fuse" });
    const otherClient = await createWorkspaceClient({ url: `${other.url}/api` });
    const handle = await otherClient.shell.exec({ source: "echo $$; exec sleep 60" });
    const reader = handle.events.getReader();
    const first = await reader.read();
    const pid = Number(
      Buffer.from((first.value as { value: Uint8Array }).value)
        .toString()
        .trim(),
    );
    expect(() => process.kill(pid, 0)).not.toThrow();
    reader.releaseLock();
    expect(await other.stop("SIGTERM")).toBe(143);
    await otherClient.close();
    await waitFor(() => !alive(pid), "the command's process gone", { timeoutMs: 2_000 });
    expect(isMounted(other.mountPoint)).toBe(false);
    const third = await startDaemon({ FUSE_MOUNT: "none" });
    expect(await third.stop("SIGINT")).toBe(130);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
