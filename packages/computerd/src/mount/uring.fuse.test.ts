/**
 * FUSE over io_uring on a real mount (mount/kernel/uring.ts): on by
 * default where the kernel has it (the daemon, root here, turns the fuse
 * module's enable_uring on), real tools see the same files through it,
 * including ops that answer with a promise and 1 MiB reads and writes, and
 * COMPUTERD_FUSE_URING=off keeps every request on /dev/fuse reads with one
 * line saying why. COMPUTERD_TEST_FUSE_URING=off runs the other FUSE test
 * files that way too.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { get } from "node:http";
import { afterAll, describe, expect, test } from "vitest";
import { startDaemon, stopAll, type TestDaemon } from "../../test/daemon.js";
import { ENABLE_URING } from "./kernel/uring.js";

afterAll(async () => {
  await stopAll();
});

function stats(daemon: TestDaemon): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    get({ host: "127.0.0.1", port: daemon.port, path: "/__computerd/stats", agent: false }, (response) => {
      let body = "";
      response.on("data", (data) => (body += data));
      response.on("end", () => resolve(JSON.parse(body) as Record<string, number>));
    }).on("error", reject);
  });
}

// A tree packed, removed and unpacked (renames, links and unlinks answer with promises), then 8 MiB
// written and read back in 1 MiB requests, each byte checked.
const WORKLOAD = `
mkdir -p src/a/b src/c
for i in $(seq 1 200); do printf 'file %s\\n' "$i" > src/a/b/f$i; done
ln src/a/b/f1 src/c/hard && ln -s ../a/b/f2 src/c/soft && mv src/a/b/f3 src/c/moved
tar -cf tree.tar src && sha=$(tar -xOf tree.tar | sha256sum)
rm -rf src && tar -xf tree.tar
test "$(tar -xOf tree.tar | sha256sum)" = "$sha"
cat src/c/soft src/c/hard src/c/moved
head -c 8388608 /dev/urandom > /tmp/uring-big.$$
dd if=/tmp/uring-big.$$ of=big bs=1M status=none
cmp big /tmp/uring-big.$$ && rm /tmp/uring-big.$$
ls src/a/b | wc -l
rm -rf src tree.tar big && ls -A | wc -l
`;

function run(daemon: TestDaemon): string {
  return execFileSync("bash", ["-euo", "pipefail", "-c", WORKLOAD], { cwd: daemon.mountPoint, encoding: "utf8" });
}

// Where the kernel has FUSE over io_uring and the daemon is root (as here), it is the default.
const available = existsSync(ENABLE_URING) && process.getuid?.() === 0;
const forcedOff = process.env.COMPUTERD_TEST_FUSE_URING === "off";

describe("FUSE over io_uring", () => {
  test("is the default where the kernel has it: requests come through the ring, tools see the same files", async () => {
    const daemon = await startDaemon({ FUSE_MOUNT: "fuse", COMPUTERD_FUSE_DRIVER: "kernel" });
    const before = await stats(daemon);
    expect(run(daemon)).toBe("file 2\nfile 1\nfile 3\n199\n0\n");
    const after = await stats(daemon);
    if (!available || forcedOff) {
      // Elsewhere (or COMPUTERD_TEST_FUSE_URING=off): /dev/fuse reads, and one line says why.
      expect(daemon.output()).toMatch(/FUSE over io_uring off: .+; requests come from \/dev\/fuse reads/);
      expect(daemon.output()).toMatch(/, \/dev\/fuse reads, busy polling/);
      expect(after.kernel_uring_requests).toBe(0);
      return;
    }
    expect(daemon.output()).toMatch(/, io_uring \d+ queues x \d+ entries, busy polling/);
    expect(daemon.output()).not.toMatch(/FUSE over io_uring off/);
    const requests = (after.kernel_requests ?? 0) - (before.kernel_requests ?? 0);
    const ring = (after.kernel_uring_requests ?? 0) - (before.kernel_uring_requests ?? 0);
    // FORGETs and interrupts still come on /dev/fuse; everything that takes a reply comes on the ring.
    expect(ring).toBeGreaterThan(requests / 2);
    expect(after.kernel_uring_entries).toBeGreaterThan(0);
  });

  test("COMPUTERD_FUSE_URING=off: every request from /dev/fuse reads, one line says so", async () => {
    const daemon = await startDaemon({
      FUSE_MOUNT: "fuse",
      COMPUTERD_FUSE_DRIVER: "kernel",
      COMPUTERD_FUSE_URING: "off",
    });
    const lines = daemon
      .output()
      .split("\n")
      .filter((line) => /io_uring|\/dev\/fuse reads/.test(line));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/FUSE over io_uring off: COMPUTERD_FUSE_URING=off; requests come from \/dev\/fuse reads/);
    expect(lines[1]).toMatch(/, \/dev\/fuse reads, busy polling/);
    expect(run(daemon)).toBe("file 2\nfile 1\nfile 3\n199\n0\n");
    const counts = await stats(daemon);
    expect(counts.kernel_uring_requests).toBe(0);
    expect(counts.kernel_requests).toBeGreaterThan(0);
  });
});
