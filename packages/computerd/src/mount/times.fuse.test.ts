/**
 * Timestamps on a real FUSE mount, driven by real tools and compared with
 * the same steps on tmpfs (/dev/shm): which of atime, mtime and ctime each
 * operation moves, on the file and on the directories it names, and the
 * nanoseconds utimensat asks for coming back exactly. Run once per driver.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startDaemon, stopAll, type TestDaemon } from "../../test/daemon.js";

afterAll(async () => {
  await stopAll();
});

/** Runs a shell line in `cwd`; throws with its stderr when it fails. */
function sh(script: string, cwd: string): string {
  const result = spawnSync("bash", ["-c", script], { cwd, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`${script}: ${result.stderr}`);
  return result.stdout;
}

interface Times {
  atime: bigint;
  mtime: bigint;
  ctime: bigint;
}

/** lstat of each path, in nanoseconds (python's os.lstat keeps st_*_ns exact). */
function timesOf(cwd: string, paths: readonly string[]): Times[] {
  const script =
    "import os,sys\nfor p in sys.argv[1:]:\n s=os.lstat(p); print(s.st_atime_ns, s.st_mtime_ns, s.st_ctime_ns)";
  const result = spawnSync("python3", ["-c", script, ...paths], { cwd, encoding: "utf8" });
  if (result.status !== 0) throw new Error(result.stderr);
  return result.stdout
    .trim()
    .split("\n")
    .map((line) => {
      const [atime, mtime, ctime] = line.split(" ").map(BigInt);
      return { atime: atime ?? 0n, mtime: mtime ?? 0n, ctime: ctime ?? 0n };
    });
}

type Moved = Record<string, string>;

/**
 * Runs `setup`, waits past the clock's tick, runs `step`, and answers which
 * times of each watched path moved ("amc" letters, "-" for one that stayed).
 */
function moved(cwd: string, setup: string, step: string, watched: readonly string[]): Moved {
  sh(setup, cwd);
  sh("sleep 0.05", cwd);
  const before = timesOf(cwd, watched);
  sh(step, cwd);
  const after = timesOf(cwd, watched);
  const result: Moved = {};
  watched.forEach((path, i) => {
    const was = before[i] as Times;
    const now = after[i] as Times;
    result[path] =
      (now.atime !== was.atime ? "a" : "-") +
      (now.mtime !== was.mtime ? "m" : "-") +
      (now.ctime !== was.ctime ? "c" : "-");
  });
  return result;
}

/**
 * Each case runs in a fresh directory of its own, on the mount and on
 * tmpfs; `drivers` limits one to those drivers.
 */
const CASES: readonly {
  name: string;
  setup: string;
  step: string;
  watched: string[];
  expected: Moved;
  drivers?: readonly string[];
}[] = [
  { name: "create", setup: "mkdir d", step: ": > d/f", watched: ["d"], expected: { d: "-mc" } },
  { name: "mkdir", setup: "mkdir d", step: "mkdir d/e", watched: ["d"], expected: { d: "-mc" } },
  { name: "unlink", setup: "mkdir d && echo x > d/f", step: "rm d/f", watched: ["d"], expected: { d: "-mc" } },
  { name: "rmdir", setup: "mkdir -p d/e", step: "rmdir d/e", watched: ["d"], expected: { d: "-mc" } },
  {
    name: "rename across directories",
    // A second name of the moved file shows its ctime (the moved name itself is not there before).
    setup: "mkdir a b && echo x > a/f && ln a/f keep",
    step: "mv a/f b/g",
    watched: ["a", "b", "keep"],
    expected: { a: "-mc", b: "-mc", keep: "--c" },
  },
  {
    name: "rename over another file",
    // `moved` is the moved file's second name, `kept` the replaced one's.
    setup: "mkdir d && echo x > d/f && ln d/f moved && echo y > d/g && ln d/g kept",
    step: "mv d/f d/g",
    watched: ["d", "moved", "kept"],
    expected: { d: "-mc", moved: "--c", kept: "--c" },
  },
  {
    name: "link",
    setup: "mkdir d && echo x > f",
    step: "ln f d/g",
    watched: ["d", "f"],
    expected: { d: "-mc", f: "--c" },
  },
  {
    name: "unlink of one of two names",
    setup: "mkdir d && echo x > f && ln f d/g",
    step: "rm d/g",
    watched: ["d", "f"],
    expected: { d: "-mc", f: "--c" },
  },
  { name: "symlink", setup: "mkdir d", step: "ln -s nowhere d/l", watched: ["d"], expected: { d: "-mc" } },
  { name: "chmod", setup: "echo x > f", step: "chmod 600 f", watched: ["f"], expected: { f: "--c" } },
  { name: "chmod +x of a directory", setup: "mkdir d", step: "chmod 700 d", watched: ["d"], expected: { d: "--c" } },
  { name: "write", setup: "echo x > f", step: "echo y >> f", watched: ["f"], expected: { f: "-mc" } },
  { name: "truncate", setup: "echo x > f", step: "truncate -s 100 f", watched: ["f"], expected: { f: "-mc" } },
  // coreutils' truncate is ftruncate, which moves both even to the size a file has (FUSE sends no time with it).
  {
    name: "truncate -s to the size a file has",
    setup: "echo x > f",
    step: "truncate -s 2 f",
    watched: ["f"],
    expected: { f: "-mc" },
  },
  { name: "O_TRUNC of an empty file", setup: ": > f", step: ": > f", watched: ["f"], expected: { f: "-mc" } },
  { name: "touch -a", setup: "echo x > f", step: "touch -a f", watched: ["f"], expected: { f: "a-c" } },
  { name: "touch -m", setup: "echo x > f", step: "touch -m f", watched: ["f"], expected: { f: "-mc" } },
  { name: "touch", setup: "echo x > f", step: "touch f", watched: ["f"], expected: { f: "amc" } },
  { name: "touch of a directory", setup: "mkdir d", step: "touch d", watched: ["d"], expected: { d: "amc" } },
  {
    name: "a read with the atime older than the mtime (relatime)",
    setup: "echo x > f && touch -a -d @1000000000 f",
    step: "cat f > /dev/null",
    watched: ["f"],
    expected: { f: "a--" },
  },
  {
    name: "a read with a recent atime newer than the mtime (relatime)",
    setup: "echo x > f && touch -m -d @1000000000 f && cat f > /dev/null",
    step: "cat f > /dev/null",
    watched: ["f"],
    expected: { f: "---" },
  },
  // Reads the kernel could answer from pages it keeps (kernel/relatime.ts drops them when an atime is due).
  {
    name: "a read of a file written in whole pages, its atime old (relatime)",
    setup: "head -c 8192 /dev/zero > f && touch -a -d @1000000000 f",
    step: "cat f > /dev/null",
    watched: ["f"],
    expected: { f: "a--" },
    drivers: ["kernel"],
  },
  {
    name: "a second read after the atime was set back (relatime)",
    setup: "echo x > f && cat f > /dev/null && touch -a -d @1000000000 f",
    step: "cat f > /dev/null",
    watched: ["f"],
    expected: { f: "a--" },
    drivers: ["kernel"],
  },
  {
    name: "a second read after an append (relatime)",
    setup: "echo x > f && cat f > /dev/null && sleep 0.05 && echo y >> f",
    step: "cat f > /dev/null",
    watched: ["f"],
    expected: { f: "a--" },
    drivers: ["kernel"],
  },
  {
    name: "a second read of 1 MiB after one byte in its middle changed (relatime)",
    setup:
      "head -c 1048576 /dev/zero > f && cat f > /dev/null && sleep 0.05 && printf y | dd of=f bs=1 seek=500000 conv=notrunc status=none",
    step: "cat f > /dev/null",
    watched: ["f"],
    expected: { f: "a--" },
    drivers: ["kernel"],
  },
  {
    name: "second reads after a rename over another file (relatime)",
    // Both inodes' ctimes move (the moved one and the replaced one, kept by its second name).
    setup: "echo x > f && ln f f2 && echo y > g && ln g g2 && cat f g > /dev/null && sleep 0.05 && mv f g",
    step: "cat f2 g2 > /dev/null",
    watched: ["f2", "g2"],
    expected: { f2: "a--", g2: "a--" },
    drivers: ["kernel"],
  },
  {
    name: "a second listing after an entry was created (relatime)",
    setup: "mkdir d && ls d > /dev/null && sleep 0.05 && touch d/x",
    step: "ls d > /dev/null",
    watched: ["d"],
    expected: { d: "a--" },
  },
  {
    name: "a second listing after a chmod (relatime)",
    setup: "mkdir d && touch d/x && ls d > /dev/null && sleep 0.05 && chmod 700 d",
    step: "ls d > /dev/null",
    watched: ["d"],
    expected: { d: "a--" },
    drivers: ["kernel"],
  },
  {
    name: "a second listing (relatime)",
    setup: "mkdir d && touch d/x && ls d > /dev/null",
    step: "ls d > /dev/null",
    watched: ["d"],
    expected: { d: "---" },
  },
];

describe.each(["fuse-napi", "kernel"])("timestamps on the %s driver", (driver) => {
  let daemon: TestDaemon;
  let tmpfs: string;
  let serial = 0;

  beforeAll(async () => {
    daemon = await startDaemon({ FUSE_MOUNT: "fuse", COMPUTERD_FUSE_DRIVER: driver });
    tmpfs = mkdtempSync("/dev/shm/computerd-times-");
  });

  afterAll(() => {
    rmSync(tmpfs, { recursive: true, force: true });
  });

  /** A fresh directory on each side. */
  function fresh(): { mount: string; reference: string } {
    serial += 1;
    const name = `case-${serial}`;
    sh(`mkdir ${name}`, daemon.mountPoint);
    sh(`mkdir ${name}`, tmpfs);
    return { mount: `${daemon.mountPoint}/${name}`, reference: `${tmpfs}/${name}` };
  }

  const cases = CASES.filter((entry) => entry.drivers === undefined || entry.drivers.includes(driver));
  test.each(cases)("$name moves the times tmpfs moves", ({ setup, step, watched, expected }) => {
    const { mount, reference } = fresh();
    const onTmpfs = moved(reference, setup, step, watched);
    // The expectation is Linux's (tmpfs); the mount must agree with it.
    expect(onTmpfs).toEqual(expected);
    expect(moved(mount, setup, step, watched)).toEqual(expected);
  });

  test("ctime is its own time: a chmod leaves the mtime where it was and moves the ctime past it", () => {
    const { mount } = fresh();
    sh("echo x > f && touch -d @1500000000 f && chmod 600 f", mount);
    const [times] = timesOf(mount, ["f"]);
    expect(times?.mtime).toBe(1_500_000_000_000_000_000n);
    expect(times?.atime).toBe(1_500_000_000_000_000_000n);
    expect(Number(times?.ctime) / 1e9).toBeGreaterThan(Date.now() / 1000 - 60);
    // stat(1) agrees, in seconds.
    expect(sh("stat -c '%X %Y' f", mount).trim()).toBe("1500000000 1500000000");
  });

  test("utimensat's nanoseconds come back exactly, for atime and mtime apart, as on tmpfs", () => {
    const { mount, reference } = fresh();
    const script =
      "echo x > f && touch -m -d @1500000000.123456789 f && touch -a -d @1400000000.987654321 f && mkdir d && touch -d @1300000000.000000001 d";
    for (const cwd of [reference, mount]) {
      sh(script, cwd);
      const [file, dir] = timesOf(cwd, ["f", "d"]);
      expect([cwd, file?.mtime, file?.atime]).toEqual([cwd, 1_500_000_000_123_456_789n, 1_400_000_000_987_654_321n]);
      expect([cwd, dir?.mtime, dir?.atime]).toEqual([cwd, 1_300_000_000_000_000_001n, 1_300_000_000_000_000_001n]);
    }
  });

  test("times before 1970 and a directory's new mtime after an entry change keep their nanoseconds", () => {
    const { mount } = fresh();
    sh("echo x > old && touch -d '1960-01-01 00:00:00.5 UTC' old && mkdir d && : > d/f", mount);
    const [old, dir] = timesOf(mount, ["old", "d"]);
    expect(old?.mtime).toBe(-315_619_199_500_000_000n);
    // Moved with the daemon's nanosecond clock, mtime and ctime together: not a whole millisecond (one in a million is).
    expect(dir?.mtime).toBe(dir?.ctime);
    expect((dir?.mtime ?? 0n) % 1_000_000n).not.toBe(0n);
  });
});
