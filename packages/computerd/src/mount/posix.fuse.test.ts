/**
 * Ownership, other users, special files, link counts and open-unlinked
 * files on a real FUSE mount, driven by real tools as root and as other
 * users (setpriv), each case run on the mount and on tmpfs (/dev/shm) with
 * the output compared: what Linux prints there, the mount must print. Run
 * once per driver, with the cases that driver supports (docs/computerd.md,
 * "POSIX").
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { createWorkspaceClient, type WorkspaceClient } from "@cloudflare/computer-rpc/client";
import { pullOnce } from "@cloudflare/computer-rpc/driver";
import { WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startDaemon, stopAll, type TestDaemon } from "../../test/daemon.js";

afterAll(async () => {
  await stopAll();
});

/** Other users: 1000 (a user of this machine), 1000 with group 50 as well, and 1001 (no passwd entry). */
const USERS = {
  U: "setpriv --reuid=1000 --regid=1000 --clear-groups",
  G: "setpriv --reuid=1000 --regid=1000 --groups=1000,50",
  O: "setpriv --reuid=1001 --regid=1001 --clear-groups",
  // The system's python3: root's pyenv shims are not readable by other users.
  PY: "/usr/bin/python3",
};

/** Runs a case's script in `cwd` (stderr folded into stdout, so refusals are compared too). */
function run(script: string, cwd: string): string {
  const result = spawnSync("bash", ["-c", `exec 2>&1\n${script}`], {
    cwd,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/tmp", LC_ALL: "C", ...USERS },
  });
  return `${result.stdout}exit=${result.status}\n`;
}

type Group = "ownership" | "users" | "special" | "links" | "unlinked" | "tmpfile";

interface Case {
  name: string;
  group: Group;
  script: string;
  /** Runs as root only (fuse-native, which has no caller context, runs these). */
  rootOnly?: true;
  /** Only root creates; other users only read and list (fuse-native runs these: it cannot give a new file its caller's owner). */
  rootCreates?: true;
  /**
   * Reads one file's link count through a second name right after a change:
   * fuse-native (libfuse 2, no epoch) caches each name's attributes apart
   * for a second, so it does not run these.
   */
  otherNames?: true;
  /**
   * Needs the kernel driver's HANDLE_KILLPRIV_V2: libfuse 3 with
   * ATOMIC_O_TRUNC truncates in its open and keeps setuid and setgid.
   */
  kernelOnly?: true;
}

const STAT = "stat -c '%n %U:%G %a %h %F'";

/** Opens, writes and unlinks argv[1], then works on it through the descriptor. */
const OPEN_UNLINKED = `import os, sys
f = open(sys.argv[1], "w+"); f.write("abcdef"); f.flush(); os.unlink(sys.argv[1]); fd = f.fileno()
s = os.fstat(fd); print("after unlink", s.st_nlink, s.st_size, oct(s.st_mode))
os.fchmod(fd, 0o600); print("fchmod", oct(os.fstat(fd).st_mode))
os.ftruncate(fd, 2); print("ftruncate", os.fstat(fd).st_size)
os.utime(fd, ns=(1_001_000_000, 2_002_000_000)); s = os.fstat(fd); print("futimens", s.st_atime_ns, s.st_mtime_ns)
os.fchown(fd, -1, os.getgid()); print("fchown", os.fstat(fd).st_gid == os.getgid())
os.pwrite(fd, b"XY", 4); print("read back", os.pread(fd, 16, 0))
print("gone", os.path.exists(sys.argv[1]))`;

const CASES: readonly Case[] = [
  {
    group: "ownership",
    name: "what a user makes is the user's: a file, a directory, a symlink, a FIFO, a hard link keeps its owner",
    script: `chmod 777 .; $U sh -c 'echo x > f && mkdir d && ln -s f l && mkfifo p && ln f g'; ${STAT} f d l p g`,
  },
  {
    group: "ownership",
    rootOnly: true,
    name: "root's chown and chgrp; chown -h changes the symlink, chown the file it names",
    script: `echo x > f && ln -s f l && chown 1000:50 f && chown -h 1001:51 l && ${STAT} f l && chown 1002 l && ${STAT} f l`,
  },
  {
    group: "ownership",
    name: "a user may not give a file away nor take a group it is not in; the owner may chgrp to its own groups",
    script: `chmod 777 .; $U sh -c 'echo > f'
$U chown 0 f; echo chown=$?
$U chown 1000 f; echo same-owner=$?
$U chgrp 50 f; echo chgrp-not-member=$?
$G chgrp 50 f; echo chgrp-member=$?
$O chgrp 1001 f; echo chgrp-not-owner=$?
$O chown 1001 f; echo chown-not-owner=$?
${STAT} f`,
  },
  {
    group: "ownership",
    rootOnly: true,
    name: "chown clears setuid and setgid on a file (by root too) but not on a directory",
    script: `echo > f && chmod 6755 f && chown 1000 f && mkdir d && chmod 6755 d && chown 1000 d && echo > s && chmod 2745 s && chgrp 50 s; ${STAT} f d s`,
  },
  {
    group: "ownership",
    name: "a write by a user clears setuid and setgid; root's write does not",
    script: `chmod 777 .; echo > f && chown 1000 f && chmod 6775 f && $U sh -c 'echo w >> f'; ${STAT} f; echo > r && chmod 6755 r && echo w >> r; ${STAT} r`,
  },
  {
    group: "ownership",
    name: "a truncate by a user clears setuid and setgid; root's does not",
    script: `chmod 777 .; echo abc > t && chown 1000 t && chmod 6775 t && $U truncate -s 1 t; ${STAT} t
echo abc > r && chmod 6755 r && truncate -s 1 r; ${STAT} r`,
  },
  {
    group: "ownership",
    kernelOnly: true,
    name: "an O_TRUNC open by a user clears setuid and setgid; root's does not",
    script: `chmod 777 .; echo abc > o && chown 1000 o && chmod 6775 o && $U sh -c ': > o'; ${STAT} o
echo abc > r && chmod 6755 r && : > r; ${STAT} r`,
  },
  {
    group: "ownership",
    name: "a setgid directory hands its group to new entries and its setgid bit to new directories",
    script: `mkdir sg && chgrp 50 sg && chmod 2777 sg && $U sh -c 'echo > sg/f && mkdir sg/d && mkfifo sg/p && ln -s f sg/l'; ${STAT} sg/f sg/d sg/p sg/l`,
  },
  {
    group: "users",
    name: "another user gets EACCES on a 0600 file and cannot write a 0644 one; the owner can",
    script: `chmod 777 .; $U sh -c 'echo secret > f && chmod 600 f && echo x > g'
$O cat f; echo read=$?
$O sh -c 'echo y >> g'; echo write=$?
$U sh -c 'cat f && echo y >> g && cat g'`,
  },
  {
    group: "users",
    name: "a sticky directory refuses others' unlink and rename; the file's owner and the directory's may",
    script: `mkdir t && chmod 1777 t && $U sh -c 'echo > t/a && echo > t/b'
$O rm -f t/a; echo rm-other=$?
$O mv t/a t/c; echo mv-other=$?
$U rm t/a; echo rm-owner=$?
chown 1001 t && $O rm t/b; echo rm-dir-owner=$?
ls t; ${STAT} t`,
  },
  {
    group: "users",
    name: "root's files: another user reads a 0644 one, gets EACCES on a 0600 one and on writing",
    rootCreates: true,
    script: `echo secret > f && chmod 600 f && echo open > g && ls -la . | wc -l
$O cat g; echo read=$?
$O cat f; echo read-0600=$?
$O sh -c 'echo y >> g'; echo write=$?
$O ls; echo ls=$?`,
  },
  {
    group: "users",
    name: "a directory without search permission for others hides its entries",
    rootCreates: true,
    script: `mkdir p && chmod 700 p && echo x > p/f
$U ls p; echo ls=$?
$U cat p/f; echo cat=$?
chmod 711 p && $U cat p/f; echo cat-711=$?`,
  },
  {
    group: "users",
    name: "a user's own tree: tar out and in, cp -a, find with owners",
    script: `chmod 777 .; $U sh -c 'mkdir -p w/a/b && echo x > w/a/b/c && chmod 640 w/a/b/c && cd w && tar -cf ../t.tar a && mkdir ../x && tar -xf ../t.tar -C ../x && cp -a ../x ../y && cd .. && find x y t.tar -printf "%p %U:%G %m %n\\n" | sort'`,
  },
  {
    group: "special",
    name: "mknod of character and block devices: type, numbers, mode, links, rename and unlink",
    rootOnly: true,
    script: `mknod c c 1 3 && mknod b b 7 0 && mknod -m 600 big c 261 70000 && stat -c '%n %F %t:%T %a %h' c b big
mv c c2 && rm b && ls && ${STAT} c2 big`,
  },
  {
    group: "special",
    name: "mkfifo: a writer and a reader pass bytes through it, as root and as a user",
    script: `chmod 777 .; mkfifo p && (echo through root > p &) && cat p
$U sh -c 'mkfifo q && (echo through user > q &) && cat q'; ${STAT} p q`,
  },
  {
    group: "special",
    rootOnly: true,
    name: "mknod of a regular file and of a FIFO",
    script: `mknod p p && $PY -c "import os, stat; os.mknod('r', 0o640 | stat.S_IFREG)" && echo data >> r && cat r; ${STAT} p r`,
  },
  {
    group: "special",
    name: "an AF_UNIX socket bound in the tree: connect, send, receive; a user's socket is the user's",
    script: `chmod 777 .
SOCK='import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1)
c = socket.socket(socket.AF_UNIX); c.connect(sys.argv[1]); a, _ = s.accept()
c.sendall(b"ping " + sys.argv[1].encode()); print(a.recv(64).decode())'
$PY -c "$SOCK" s && $U $PY -c "$SOCK" us && ${STAT} s us && rm s us && ls`,
  },
  {
    group: "special",
    rootOnly: true,
    otherNames: true,
    name: "FIFOs in listings, renames, hard links and removals; a directory holding one is not empty",
    script: `mkdir d && mkfifo d/p && echo x > d/f
ls -l d | cut -c1 | sort | tr -d '\\n'; echo
rmdir d; echo rmdir=$?
mv d/p d/q && ln d/q d/r && ${STAT} d/q d/r
mv d/f d/q && ${STAT} d/q && mkfifo d/s && mv d/s d/r && ${STAT} d/r
rm d/q d/r && rmdir d && echo gone`,
  },
  {
    group: "links",
    rootOnly: true,
    name: "a directory's link count is 2 plus its subdirectories, through mkdir, rmdir and rename",
    script: `mkdir -p d/a d/b d/c && echo > d/f && ln -s a d/l && stat -c '%n %h' d d/a
rmdir d/a && stat -c '%n %h' d && mv d/b . && stat -c '%n %h' d . && mv b d/c/ && stat -c '%n %h' d d/c`,
  },
  {
    group: "links",
    // A hard link of a symlink is a copy on the mount (docs/computerd.md): its target and type, not its link count.
    name: "cp -al copies a tree with a symlink in it as hard links",
    script: `mkdir -p s/bin && echo x > s/f && ln -s ../f s/bin/l && cp -al s t && stat -c '%n %h %F' t/f
stat -c '%n %F' t/bin/l && readlink t/bin/l && cat t/bin/l && ln s/bin/l m && readlink m`,
  },
  {
    group: "links",
    rootOnly: true,
    otherNames: true,
    name: "a hard link's count is right at once, on both names, and after one goes",
    script: `echo x > f && ln f g && stat -c '%n %h' f g && ln g h && stat -c '%n %h' f && rm g && stat -c '%n %h' f h`,
  },
  {
    group: "unlinked",
    name: "fstat, fchmod, fchown, ftruncate, futimens and writes on an open file after unlink, as root and as a user",
    script: `chmod 777 .; OPEN='${OPEN_UNLINKED}'; $PY -c "$OPEN" f && $U $PY -c "$OPEN" g && ls`,
  },
  {
    group: "unlinked",
    rootOnly: true,
    name: "fstat, fchmod, fchown, ftruncate, futimens and writes on an open file after unlink, as root",
    script: `OPEN='${OPEN_UNLINKED}'; $PY -c "$OPEN" f && ls`,
  },
  {
    group: "unlinked",
    name: "a FIFO held open after its last name goes: fstat shows it with no links, and bytes still pass",
    script: `mkfifo p && chown 1000:50 p && $PY -c '
import os, stat
fd = os.open("p", os.O_RDWR); os.unlink("p")
s = os.fstat(fd); print(s.st_nlink, stat.S_ISFIFO(s.st_mode), s.st_uid, s.st_gid)
os.write(fd, b"still"); print(os.read(fd, 5))' && ls`,
  },
  {
    group: "tmpfile",
    name: "O_TMPFILE: written with no name, named by linkat, written again through the same descriptor, as root and as a user",
    script: `chmod 777 .
TMP='import ctypes, os, sys
fd = os.open(".", os.O_TMPFILE | os.O_RDWR, 0o640); os.write(fd, b"hello ")
s = os.fstat(fd); print("unnamed", s.st_nlink, s.st_size, oct(s.st_mode), sorted(os.listdir(".")))
# linkat(AT_FDCWD, "/proc/self/fd/N", AT_FDCWD, name, AT_SYMLINK_FOLLOW): os.link would link the magic link itself.
libc = ctypes.CDLL(None, use_errno=True)
assert libc.linkat(-100, f"/proc/self/fd/{fd}".encode(), -100, sys.argv[1].encode(), 0x400) == 0, ctypes.get_errno()
os.write(fd, b"world"); s = os.fstat(fd); print("named", s.st_nlink, s.st_size, s.st_ino == os.stat(sys.argv[1]).st_ino)
os.close(fd); print(open(sys.argv[1]).read())
lost = os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o600); os.write(lost, b"never named"); os.close(lost)
print(sorted(os.listdir(".")))'
$PY -c "$TMP" r && $U $PY -c "$TMP" u && ${STAT} r u && cat r u`,
  },
];

/** What each driver supports (docs/computerd.md, "POSIX"): fuse-native has no caller context. */
const SUPPORTED: Record<string, readonly Group[]> = {
  "fuse-native": ["ownership", "users", "special", "links", "unlinked"],
  kernel: ["ownership", "users", "special", "links", "unlinked", "tmpfile"],
  // libfuse 3's high-level API gives a node with no name left ESTALE before it reaches us.
  "fuse-napi": ["ownership", "users", "special", "links"],
};

describe.each(Object.keys(SUPPORTED))("POSIX on the %s driver", (driver) => {
  let daemon: TestDaemon;
  let tmpfs: string;
  let serial = 0;

  beforeAll(async () => {
    daemon = await startDaemon({ FUSE_MOUNT: "fuse", COMPUTERD_FUSE_DRIVER: driver });
    // Other users must reach the mount point through its temporary parent.
    chmodSync(dirname(daemon.mountPoint), 0o755);
    tmpfs = mkdtempSync("/dev/shm/computerd-posix-");
    chmodSync(tmpfs, 0o755);
  });

  afterAll(() => {
    rmSync(tmpfs, { recursive: true, force: true });
  });

  /** A fresh directory on each side, root's and 0755 as a new directory is. */
  function fresh(): { mount: string; reference: string } {
    serial += 1;
    const name = `case-${serial}`;
    run(`mkdir ${name} && chmod 755 ${name}`, daemon.mountPoint);
    run(`mkdir ${name} && chmod 755 ${name}`, tmpfs);
    return { mount: `${daemon.mountPoint}/${name}`, reference: `${tmpfs}/${name}` };
  }

  const cases = CASES.filter(
    (c) =>
      SUPPORTED[driver]?.includes(c.group) &&
      (c.kernelOnly === undefined || driver === "kernel") &&
      (driver !== "fuse-native" || ((c.rootOnly === true || c.rootCreates === true) && c.otherNames === undefined)),
  );
  test.each(cases)("$group: $name, as on tmpfs", ({ script }) => {
    const { mount, reference } = fresh();
    const expected = run(script, reference);
    // The reference must have run to its end: a broken script would compare two failures.
    expect(expected).toMatch(/exit=0\n$/);
    expect(run(script, mount)).toBe(expected);
  });

  test("special: device nodes are made as root only (the kernel checks CAP_MKNOD) and never opened (nodev)", () => {
    const { mount } = fresh();
    const options = readFileSync("/proc/self/mounts", "utf8")
      .split("\n")
      .find((line) => line.split(" ")[1] === daemon.mountPoint)
      ?.split(" ")[3];
    expect(options?.split(",")).toContain("nodev");
    expect(
      run("chmod 777 . && mknod c c 1 3 && echo hi > c; echo write=$?; $U mknod u c 1 3; echo user=$?; ls", mount),
    ).toBe("bash: line 2: c: Permission denied\nwrite=1\nmknod: u: Operation not permitted\nuser=1\nc\nexit=0\n");
  });
});

describe("what sync carries", () => {
  let daemon: TestDaemon;
  let client: WorkspaceClient;

  beforeAll(async () => {
    daemon = await startDaemon({ FUSE_MOUNT: "fuse", COMPUTERD_FUSE_DRIVER: "kernel" });
    client = await createWorkspaceClient({ url: `${daemon.url}/api` });
  });

  afterAll(async () => {
    await client?.close();
  });

  test("FIFOs and sockets stay in the container; a user's file arrives with its mode, its owner stays local; a named O_TMPFILE file arrives", async () => {
    chmodSync(dirname(daemon.mountPoint), 0o755);
    const script = `mkdir shared && chmod 1777 shared && mkfifo shared/p && $U sh -c 'echo mine > shared/f && chmod 4750 shared/f'
$PY -c "import socket; socket.socket(socket.AF_UNIX).bind('shared/s')" && ls shared
$PY -c "import ctypes, os; fd = os.open('shared', os.O_TMPFILE | os.O_RDWR, 0o600); os.write(fd, b'unnamed first'); assert ctypes.CDLL(None).linkat(-100, f'/proc/self/fd/{fd}'.encode(), -100, b'shared/t', 0x400) == 0"`;
    expect(run(script, daemon.mountPoint)).toBe("f\np\ns\nexit=0\n");
    const store = openNodeDatabase();
    await pullOnce({ db: store }, client.sync);
    const durable = new WorkspaceFilesystem(store);
    const entries = await durable.readdir(`${daemon.mountPoint}/shared`);
    // An O_TMPFILE file named by linkat is an ordinary file of the store.
    expect(entries.map((entry) => entry.name)).toEqual(["f", "t"]);
    expect(new TextDecoder().decode(await durable.readFileBytes(`${daemon.mountPoint}/shared/t`))).toBe(
      "unnamed first",
    );
    const stat = await durable.stat(`${daemon.mountPoint}/shared/f`);
    expect(stat.mode).toBe(0o4750);
    expect(new TextDecoder().decode(await durable.readFileBytes(`${daemon.mountPoint}/shared/f`))).toBe("mine\n");
    // On the mount the owner is still the user's.
    expect(run("stat -c '%u:%g %a' shared/f", daemon.mountPoint)).toBe("1000:1000 4750\nexit=0\n");
  });
});
