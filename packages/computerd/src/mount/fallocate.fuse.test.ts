/**
 * fallocate(2) on a real mount (fallocate.ts), with util-linux's
 * `fallocate` and glibc's posix_fallocate, on the kernel driver and on
 * fuse-napi: mode 0 grows a file, KEEP_SIZE changes nothing, PUNCH_HOLE
 * and ZERO_RANGE read back as zeros (the latter growing the file unless
 * KEEP_SIZE), COLLAPSE_RANGE is EOPNOTSUPP. Mode 0, KEEP_SIZE and
 * PUNCH_HOLE are compared with tmpfs (which has no ZERO_RANGE); the bytes
 * reach the Durable Object side through a pull.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createWorkspaceClient, type WorkspaceClient } from "@cloudflare/computer-rpc/client";
import { pullOnce } from "@cloudflare/computer-rpc/driver";
import { WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startDaemon, stopAll, type TestDaemon } from "../../test/daemon.js";

function run(script: string, cwd: string): string {
  const result = spawnSync("bash", ["-c", `exec 2>&1\n${script}`], {
    cwd,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C" },
  });
  return `${result.stdout}exit=${result.status}\n`;
}

/** Sizes after each step and the bytes as hex, with what tmpfs can do too. */
const COMMON = `printf 'abcdefghij' > f
fallocate -l 4096 f; stat -c %s f
fallocate -n -o 0 -l 100000 f; stat -c %s f
fallocate -l 10 f; stat -c %s f
fallocate -p -o 2 -l 3 f; stat -c %s f; head -c 10 f | od -An -c
printf 'x' > big; fallocate -p -o 0 -l 2000000 big; stat -c %s big; od -An -c big
python3 -c "import os; fd = os.open('g', os.O_CREAT | os.O_WRONLY, 0o644); os.posix_fallocate(fd, 1000, 600000); os.close(fd)"
stat -c %s g; cmp g <(head -c 601000 /dev/zero) && echo zeros`;

/** What tmpfs refuses (ZERO_RANGE) and no one supports here (COLLAPSE_RANGE). */
const OURS = `printf 'abcdefghij' > z
fallocate -z -o 8 -l 4 z; stat -c %s z; od -An -c z
fallocate -z -n -o 1 -l 100 z; stat -c %s z; od -An -c z
fallocate -c -o 0 -l 4096 z; echo collapse=$?`;

const drivers = ["kernel", "fuse-napi"];

describe.each(drivers)("fallocate on the %s driver", (driver) => {
  let daemon: TestDaemon;
  let client: WorkspaceClient;
  let tmpfs: string;

  beforeAll(async () => {
    daemon = await startDaemon({ FUSE_MOUNT: "fuse", COMPUTERD_FUSE_DRIVER: driver });
    client = await createWorkspaceClient({ url: `${daemon.url}/api` });
    tmpfs = mkdtempSync("/dev/shm/computerd-fallocate-");
  });

  afterAll(async () => {
    rmSync(tmpfs, { recursive: true, force: true });
    await client?.close();
    await stopAll();
  });

  test("mode 0, KEEP_SIZE, PUNCH_HOLE and posix_fallocate as on tmpfs", () => {
    const expected = run(COMMON, tmpfs);
    expect(expected).toMatch(/zeros\nexit=0\n$/);
    expect(run(COMMON, daemon.mountPoint)).toBe(expected);
  });

  test("ZERO_RANGE grows unless KEEP_SIZE; COLLAPSE_RANGE is EOPNOTSUPP; the Durable Object gets the zeros", async () => {
    expect(run(OURS, daemon.mountPoint)).toBe(
      [
        "12",
        "   a   b   c   d   e   f   g   h  \\0  \\0  \\0  \\0",
        "12",
        "   a  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0  \\0",
        "fallocate: fallocate failed: Operation not supported",
        "collapse=1",
        "exit=0",
        "",
      ].join("\n"),
    );
    const store = openNodeDatabase();
    await pullOnce({ db: store }, client.sync);
    const bytes = await new WorkspaceFilesystem(store).readFileBytes(join(daemon.mountPoint, "z"));
    expect(Buffer.from(bytes).toString("latin1")).toBe(`a${"\0".repeat(11)}`);
  });
});
