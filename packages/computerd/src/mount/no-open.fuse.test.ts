/**
 * No-open and no-opendir on the kernel driver (COMPUTERD_FUSE_NO_OPEN, on
 * by default): the kernel opens files and directories without asking, so
 * reads, writes, fsyncs and listings come with handle 0 and the daemon
 * serves them by inode. Real tools on a real mount, as root and as other
 * users, with the daemon as root and as `nobody`; what they wrote is
 * checked in a pulled store, and the trace summary proves the daemon saw no
 * OPEN, RELEASE, OPENDIR or RELEASEDIR after the first. The tools cases run
 * with COMPUTERD_FUSE_NO_OPEN=off as well (handles for every open).
 */
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createWorkspaceClient, type WorkspaceClient } from "@cloudflare/computer-rpc/client";
import { pullOnce, pushOnce } from "@cloudflare/computer-rpc/driver";
import { WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type DaemonUser, startDaemon, stopAll, type TestDaemon, tempDir } from "../../test/daemon.js";
import { asNobody, NOBODY, nobodysMountPoint } from "../../test/nobody.js";
import { waitFor } from "../../test/wait.js";

const PY = "/usr/bin/python3";
const USER = "setpriv --reuid=1000 --regid=1000 --clear-groups";

/** A daemon with the trace summary on, and what it takes to read its counts. */
interface Traced {
  daemon: TestDaemon;
  client: WorkspaceClient;
  trace: string;
}

async function startTraced(env: Record<string, string>, mountPoint?: string, user?: DaemonUser): Promise<Traced> {
  const dir = tempDir("trace");
  if (user !== undefined) chownSync(dir, user.uid, user.gid);
  const trace = join(dir, "trace.txt");
  const daemon = await startDaemon(
    {
      FUSE_MOUNT: "fuse",
      COMPUTERD_FUSE_DRIVER: "kernel",
      COMPUTERD_FUSE_TRACE: "summary",
      COMPUTERD_FUSE_TRACE_FILE: trace,
      ...env,
    },
    mountPoint,
    user,
  );
  const client = await createWorkspaceClient({ url: `${daemon.url}/api` });
  return { daemon, client, trace };
}

/** Every op's request count so far (and `op.errors`, how many it refused), from a fresh trace summary (SIGUSR2). */
async function opCounts(traced: Traced): Promise<Record<string, number>> {
  const before = existsSync(traced.trace) ? readFileSync(traced.trace, "utf8").length : 0;
  traced.daemon.child.kill("SIGUSR2");
  await waitFor(
    () => existsSync(traced.trace) && readFileSync(traced.trace, "utf8").length > before,
    "a trace summary",
  );
  const text = readFileSync(traced.trace, "utf8");
  const counts: Record<string, number> = {};
  const summary = text.slice(text.lastIndexOf("fuse trace summary"));
  for (const [, op, count, errors] of summary.matchAll(/^(\S+) count=(\d+) errors=(\d+)/gm)) {
    counts[op as string] = Number(count);
    counts[`${op}.errors`] = Number(errors);
  }
  return counts;
}

async function stats(traced: Traced): Promise<Record<string, number>> {
  return (await (await fetch(`${traced.daemon.url}/__computerd/stats`)).json()) as Record<string, number>;
}

function sh(cwd: string, script: string): string {
  return execFileSync("bash", ["-euo", "pipefail", "-c", script], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, PY, U: USER },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** open, unlink, write, fstat, read back, close: prints what it saw, and pauses for the caller while the file has no name. */
const UNLINKED_OPEN = `import os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
os.unlink(sys.argv[1])
os.pwrite(fd, b"WRITTEN AFTER UNLINK", 6)
s = os.fstat(fd)
print(s.st_nlink, s.st_size, oct(s.st_mode & 0o7777), os.path.exists(sys.argv[1]))
print(os.pread(fd, 100, 0).decode())
sys.stdout.flush()
sys.stdin.readline()
os.close(fd)`;

/** The tools cases, with no-open on and off. */
describe.each(["on", "off"])("COMPUTERD_FUSE_NO_OPEN=%s", (setting) => {
  let traced: Traced;
  let root: string;

  beforeAll(async () => {
    traced = await startTraced({ COMPUTERD_FUSE_NO_OPEN: setting });
    root = traced.daemon.mountPoint;
    // Other users reach the mount point through its temporary parent.
    chmodSync(dirname(root), 0o755);
  });

  afterAll(async () => {
    await traced?.client.close();
    await traced?.daemon.stop();
  });

  test("the mount says which it is", () => {
    const on = setting === "on";
    expect(traced.daemon.output()).toContain(`no-open ${on ? "on" : "off"}, no-opendir ${on ? "on" : "off"}`);
  });

  test("cat, >>, O_TRUNC, os.pwrite and an mmap write on files never opened through OPEN, read back and pulled", async () => {
    const out = sh(
      root,
      `mkdir tools && cd tools
echo a > f; echo bb > f; cat f
echo cc >> f; cat f
printf 'hello world\\n' > g
$PY -c 'import os; fd = os.open("g", os.O_RDWR); os.pwrite(fd, b"HELLO", 0); os.fsync(fd); os.close(fd)'
cat g
printf '0123456789abcdef' > m
$PY -c 'import mmap, os
fd = os.open("m", os.O_RDWR); m = mmap.mmap(fd, 16); m[4:8] = b"MMAP"; m.flush(); m.close(); os.close(fd)'
cat m; echo
: > f2; echo x >> f2; echo y >> f2; cat f2
ls`,
    );
    expect(out).toBe("bb\nbb\ncc\nHELLO world\n0123MMAP89abcdef\nx\ny\nf\nf2\ng\nm\n");
    const store = openNodeDatabase();
    await pullOnce({ db: store }, traced.client.sync);
    const pulled = new WorkspaceFilesystem(store);
    const dir = join(root, "tools");
    expect(await pulled.readFile(join(dir, "f"), "utf8")).toBe("bb\ncc\n");
    expect(await pulled.readFile(join(dir, "g"), "utf8")).toBe("HELLO world\n");
    expect(await pulled.readFile(join(dir, "m"), "utf8")).toBe("0123MMAP89abcdef");
    expect(await pulled.readFile(join(dir, "f2"), "utf8")).toBe("x\ny\n");
  });

  test("O_TRUNC of a non-empty file truncates it in the store, and a user's O_TRUNC clears setuid and setgid as on tmpfs", async () => {
    const script = `mkdir u && chown 1000:1000 u && cd u
$U sh -c 'echo aaaaaaaa > f && chmod 6775 f && echo b > f && stat -c "%a %s" f && cat f'
echo long-long-long > r && chmod 4755 r && echo s > r && stat -c "%a %s" r && cat r`;
    const tmpfs = join("/dev/shm", `no-open-${process.pid}-${setting}`);
    mkdirSync(tmpfs);
    try {
      const expected = sh(tmpfs, script);
      expect(expected).toBe("775 2\nb\n4755 2\ns\n");
      mkdirSync(join(root, "trunc"));
      expect(sh(join(root, "trunc"), script)).toBe(expected);
    } finally {
      rmSync(tmpfs, { recursive: true, force: true });
    }
    const store = openNodeDatabase();
    await pullOnce({ db: store }, traced.client.sync);
    const pulled = new WorkspaceFilesystem(store);
    expect(await pulled.readFile(join(root, "trunc/u/f"), "utf8")).toBe("b\n");
    expect((await pulled.stat(join(root, "trunc/u/f"))).mode).toBe(0o775);
    expect(await pulled.readFile(join(root, "trunc/u/r"), "utf8")).toBe("s\n");
  });

  test("a file unlinked while open is written, fstat'ed and read back, as root and as a user; its memory goes at close; the pull never sees it", async () => {
    const dir = join(root, "unlinked");
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    for (const [name, prefix] of [
      ["root.txt", ""],
      ["user.txt", USER],
    ] as const) {
      const path = join(dir, name);
      writeFileSync(path, "stored bytes of the file\n");
      if (prefix !== "") chownSync(path, 1000, 1000);
      const child = spawn("bash", ["-c", `${prefix} ${PY} -c '${UNLINKED_OPEN}' ${path}`], {
        stdio: ["pipe", "pipe", "pipe"],
      });
      let output = "";
      child.stdout.on("data", (data) => (output += data));
      child.stderr.on("data", (data) => (output += data));
      await waitFor(() => output.split("\n").length > 2, `the open-unlinked script for ${name}`);
      expect(output).toBe("0 26 0o644 False\nstoredWRITTEN AFTER UNLINK\n");
      if (setting === "on") expect((await stats(traced)).mount_orphan_files).toBe(1);
      const closed = new Promise((resolve) => child.on("exit", resolve));
      child.stdin.end("\n");
      expect(await closed).toBe(0);
      // The kernel evicts the unlinked inode at its last close and FORGETs it: the orphan goes.
      await waitFor(async () => (await stats(traced)).mount_orphan_files === 0, "the orphan to go");
    }
    const after = await stats(traced);
    expect(after.mount_handles).toBe(0);
    const store = openNodeDatabase();
    await pullOnce({ db: store }, traced.client.sync);
    expect((await new WorkspaceFilesystem(store).readdir(dir)).map((entry) => entry.name)).toEqual([]);
  });

  test("a push that deletes a file a process holds open, and adds names to a listed directory: the file reads on, the listing is new", async () => {
    const dir = join(root, "pushed");
    mkdirSync(dir);
    writeFileSync(join(dir, "doomed.txt"), "still readable\n");
    writeFileSync(join(dir, "kept.txt"), "kept\n");
    const child = spawn(
      PY,
      [
        "-c",
        `import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
print("open", flush=True)
sys.stdin.readline()
print(os.pread(fd, 100, 0).decode(), end="", flush=True)
os.close(fd)`,
        join(dir, "doomed.txt"),
      ],
      { stdio: ["pipe", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout.on("data", (data) => (output += data));
    child.stderr.on("data", (data) => (output += data));
    await waitFor(() => output === "open\n", "the reader to open");
    expect(sh(dir, "ls")).toBe("doomed.txt\nkept.txt\n");
    const store = openNodeDatabase();
    await pullOnce({ db: store }, traced.client.sync);
    const durable = new WorkspaceFilesystem(store);
    await durable.rm(join(dir, "doomed.txt"));
    await durable.writeFile(join(dir, "new.txt"), "from the Durable Object\n");
    await pushOnce({ db: store }, traced.client.sync);
    expect(sh(dir, "ls")).toBe("kept.txt\nnew.txt\n");
    const exited = new Promise((resolve) => child.on("exit", resolve));
    child.stdin.end("\n");
    expect(await exited).toBe(0);
    expect(output).toBe("open\nstill readable\n");
    await waitFor(async () => (await stats(traced)).mount_orphan_files === 0, "the pushed-away file to go");
  });
});

describe("no-open on the kernel driver", () => {
  let traced: Traced;
  let root: string;

  beforeAll(async () => {
    traced = await startTraced({});
    root = traced.daemon.mountPoint;
  });

  afterAll(async () => {
    await traced?.client.close();
    await stopAll();
  });

  test("after the first OPEN and OPENDIR (ENOSYS) the daemon sees none, and no RELEASE or RELEASEDIR", async () => {
    sh(root, "mkdir warm && echo x > warm/a && cat warm/a > /dev/null && ls warm > /dev/null");
    const first = await opCounts(traced);
    // `cat`'s OPEN may meet the daemon's own (teachNoOpen, after `echo`'s RELEASE): every one was refused.
    expect(first.open).toBeLessThanOrEqual(2);
    expect({ open: first["open.errors"], opendir: first.opendir, releasedir: first.releasedir ?? 0 }).toEqual({
      open: first.open,
      opendir: 1,
      releasedir: 0,
    });
    sh(
      root,
      `mkdir -p tree/a/b && for i in $(seq 1 200); do echo $i > tree/a/f$i; done
cat tree/a/* > /dev/null && echo more >> tree/a/f1 && echo new > tree/a/f2 && ls -lR tree > /dev/null
$PY -c 'import os
fd = os.open("tree/a/f3", os.O_RDWR); os.unlink("tree/a/f3"); os.write(fd, b"x"); os.fstat(fd); os.close(fd)
t = os.open("tree", os.O_TMPFILE | os.O_RDWR, 0o600); os.write(t, b"t"); os.close(t)'
cp -r tree copy && find copy -type f | xargs cat > /dev/null && rm -rf tree copy`,
    );
    const after = await opCounts(traced);
    const delta = (op: string): number => (after[op] ?? 0) - (first[op] ?? 0);
    expect({
      open: delta("open"),
      release: delta("release"),
      opendir: delta("opendir"),
      releasedir: delta("releasedir"),
    }).toEqual({ open: 0, release: 0, opendir: 0, releasedir: 0 });
    // The work did reach the daemon: creates, writes and listings.
    expect(delta("create")).toBeGreaterThan(390);
    // cp -r copies with copy_file_range.
    expect(delta("write")).toBeGreaterThan(190);
    expect(delta("copy_file_range")).toBeGreaterThan(190);
    expect(delta("readdirplus")).toBeGreaterThan(4);
    const now = await stats(traced);
    expect({ handles: now.mount_handles, orphans: now.mount_orphan_files }).toEqual({ handles: 0, orphans: 0 });
  });

  test("a 2,000-entry directory listed in 1 KiB getdents while others create and remove entries: no entry twice, no untouched entry missing", async () => {
    const dir = join(root, "big");
    mkdirSync(dir);
    const keep = Array.from({ length: 2000 }, (_, i) => `keep-${String(i).padStart(4, "0")}-${"x".repeat(i % 40)}`);
    const work = tempDir("churn");
    const names = join(work, "names");
    writeFileSync(names, keep.join("\n"));
    sh(
      dir,
      `${PY} -c 'import sys
for name in open(sys.argv[1]).read().split(): open(name, "w").close()' ${names}`,
    );
    const stop = join(work, "stop");
    const churn = spawn(
      PY,
      [
        "-c",
        `import os, sys
i = 0
while not os.path.exists(sys.argv[2]):
    open(os.path.join(sys.argv[1], f"churn-{i}"), "w").close()
    if i >= 20: os.unlink(os.path.join(sys.argv[1], f"churn-{i - 20}"))
    i += 1
print(i)`,
        dir,
        stop,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let churned = "";
    churn.stdout.on("data", (data) => (churned += data));
    const before = await opCounts(traced);
    const report = sh(
      dir,
      `${PY} -c 'import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
keep = set(open(sys.argv[1]).read().split())
buf = ctypes.create_string_buffer(1024)
for listing in range(15):
    fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    names = []
    while True:
        n = libc.syscall(217, fd, buf, 1024)
        if n < 0: raise OSError(ctypes.get_errno(), "getdents64")
        if n == 0: break
        raw, at = buf.raw, 0
        while at < n:
            reclen = struct.unpack_from("<H", raw, at + 16)[0]
            names.append(raw[at + 19:at + reclen].split(b"\\0", 1)[0].decode())
            at += reclen
    os.close(fd)
    twice = sorted({name for name in names if names.count(name) > 1}) if len(names) != len(set(names)) else []
    missing = sorted(keep - set(names))
    if twice or missing: print(listing, "twice", twice[:5], "missing", len(missing), missing[:5])
print("listed", listing + 1)' ${names}`,
    );
    writeFileSync(stop, "");
    await new Promise((resolve) => churn.on("exit", resolve));
    const after = await opCounts(traced);
    expect(report).toBe("listed 15\n");
    // The churn ran all along, and the listings reached the daemon page by page.
    expect(Number(churned)).toBeGreaterThan(100);
    expect((after.readdirplus ?? 0) - (before.readdirplus ?? 0)).toBeGreaterThan(15 * 20);
    // Once the churn stopped, a listing shows exactly what the store has (no stale cached listing).
    const store = openNodeDatabase();
    await pullOnce({ db: store }, traced.client.sync);
    const stored = (await new WorkspaceFilesystem(store).readdir(dir)).map((entry) => entry.name).sort();
    expect(sh(dir, "ls -f | grep -v '^\\.\\.\\?$' | sort").trim().split("\n")).toEqual(stored);
    expect(stored.filter((name) => name.startsWith("keep-"))).toEqual(keep);
  });

  test("telldir/seekdir come back to the same entries while the directory changes (new names may show among them)", () => {
    const dir = join(root, "seek");
    mkdirSync(dir);
    const out = sh(
      dir,
      `for i in $(seq 1 300); do : > f$i; done
${PY} -c 'import ctypes, os
libc = ctypes.CDLL(None)
libc.opendir.restype = ctypes.c_void_p
libc.readdir.restype = ctypes.c_void_p
libc.readdir.argtypes = [ctypes.c_void_p]
libc.telldir.restype = ctypes.c_long
libc.telldir.argtypes = [ctypes.c_void_p]
libc.seekdir.argtypes = [ctypes.c_void_p, ctypes.c_long]
name = lambda entry: ctypes.string_at(entry + 19).decode()
d = libc.opendir(b".")
for _ in range(150): libc.readdir(d)
mark = libc.telldir(d)
expected = [name(libc.readdir(d)) for _ in range(3)]
for i in range(0, 300, 2):
    if "f%d" % (i + 1) not in expected: os.unlink("f%d" % (i + 1))
for i in range(100): open("g%d" % i, "w").close()
libc.seekdir(d, mark)
again = [n for n in (name(libc.readdir(d)) for _ in range(20)) if not n.startswith("g")][:3]
print(expected == again, expected, again)'`,
    );
    expect(out.split(" ")[0]).toBe("True");
  });
});

describe("no-open with the daemon as nobody", () => {
  let traced: Traced;

  beforeAll(async () => {
    traced = await startTraced({}, nobodysMountPoint("nonroot-no-open"), NOBODY);
  });

  afterAll(async () => {
    await traced?.client.close();
    await stopAll();
  });

  test("files opened by name, appended, truncated and unlinked while open, as nobody; no OPEN after the first; the store has the bytes", async () => {
    const out = asNobody(
      traced.daemon.mountPoint,
      `echo one > a && cat a && echo two >> a && echo three > b && echo four > b && cat a b && ls
${PY} -c 'import os
fd = os.open("a", os.O_RDWR); os.unlink("a"); os.pwrite(fd, b"ONE", 0)
print(os.fstat(fd).st_nlink, os.pread(fd, 100, 0).decode(), end=""); os.close(fd)'
ls`,
    );
    expect(out).toBe("one\none\ntwo\nfour\na\nb\n0 ONE\ntwo\nb\n");
    // The first file's RELEASE came before the kernel had an OPEN to answer ENOSYS, and the daemon's own open
    // that teaches it (file-ops.ts, teachNoOpen) may meet `cat`'s: every OPEN so far was refused.
    const first = await opCounts(traced);
    expect(first.release).toBe(1);
    expect(first.open).toBeLessThanOrEqual(2);
    expect({ open: first["open.errors"], opendir: first["opendir.errors"] }).toEqual({
      open: first.open,
      opendir: first.opendir,
    });
    asNobody(
      traced.daemon.mountPoint,
      "mkdir d && for i in 1 2 3; do echo $i > d/$i; cat d/$i; echo x >> d/$i; done && ls -R > /dev/null",
    );
    const after = await opCounts(traced);
    const ops = ["open", "release", "opendir", "releasedir"];
    expect(ops.map((op) => (after[op] ?? 0) - (first[op] ?? 0))).toEqual([0, 0, 0, 0]);
    const store = openNodeDatabase();
    await pullOnce({ db: store }, traced.client.sync);
    const pulled = new WorkspaceFilesystem(store);
    expect(await pulled.readFile(join(traced.daemon.mountPoint, "b"), "utf8")).toBe("four\n");
    expect(await pulled.readFile(join(traced.daemon.mountPoint, "d/2"), "utf8")).toBe("2\nx\n");
    expect((await pulled.readdir(traced.daemon.mountPoint)).map((entry) => entry.name)).toEqual(["b", "d"]);
  });
});
