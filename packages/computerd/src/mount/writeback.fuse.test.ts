/**
 * The kernel driver with the kernel's writeback cache
 * (COMPUTERD_FUSE_WRITEBACK_CACHE=1), on a real mount driven by real
 * tools: pages a write filled serve the reads after it; bytes the kernel
 * still holds (a file held open, never flushed) reach the store before a
 * pull; and a push that changes a file the kernel holds shows its new size
 * and bytes at once, though the kernel never takes a size from us for a
 * node it caches that way (the inode gets a fresh node id).
 */
import { spawn } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { pullOnce, pushOnce } from "@cloudflare/computer-rpc/driver";
import { describe, expect, test } from "vitest";
import { useMountedDaemon } from "../../test/mounted.js";
import { waitFor } from "../../test/wait.js";

const mounted = useMountedDaemon({
  FUSE_MOUNT: "fuse",
  COMPUTERD_FUSE_DRIVER: "kernel",
  COMPUTERD_FUSE_WRITEBACK_CACHE: "1",
});
const { sh } = mounted;

async function requests(): Promise<number> {
  const response = await fetch(`${mounted.daemon.url}/__computerd/stats`);
  return ((await response.json()) as { kernel_requests: number }).kernel_requests;
}

describe("the kernel driver with the writeback cache", () => {
  test("says so when it mounts", () => {
    expect(mounted.daemon.output()).toMatch(/\(kernel, .*writeback cache on/);
  });

  test("files just written read back from the kernel's pages, not the daemon", async () => {
    sh("mkdir -p fresh && for i in $(seq 1 40); do printf 'line %s\\n' $i > fresh/f$i; done");
    const before = await requests();
    expect(sh("cat fresh/f*  | wc -l")).toBe("40\n");
    // Without the cache each file's tail page would be a READ (write-through leaves it not up to date).
    expect((await requests()) - before).toBeLessThan(10);
    await pullOnce({ db: mounted.store }, mounted.client.sync);
    expect(await mounted.doFs.readFile(join(mounted.daemon.mountPoint, "fresh/f40"), "utf8")).toBe("line 40\n");
  });

  test("bytes a process still holds in the kernel's pages reach the store before a pull", async () => {
    const holder = spawn("bash", ["-c", "exec 3> held.txt; printf 'not flushed yet' >&3; sleep 60"], {
      cwd: mounted.daemon.mountPoint,
      stdio: "ignore",
    });
    try {
      await waitFor(
        () => statSync(join(mounted.daemon.mountPoint, "held.txt"), { throwIfNoEntry: false })?.size === 15,
        "the holder's write",
      );
      await pullOnce({ db: mounted.store }, mounted.client.sync);
      expect(await mounted.doFs.readFile(join(mounted.daemon.mountPoint, "held.txt"), "utf8")).toBe("not flushed yet");
    } finally {
      holder.kill("SIGKILL");
    }
  });

  test("a push that grows, then shrinks, a file the kernel holds shows its size and bytes at once", async () => {
    sh("printf 'short' > pushed.txt && cat pushed.txt > /dev/null && stat -c %s pushed.txt > /dev/null");
    await pullOnce({ db: mounted.store }, mounted.client.sync);
    const path = join(mounted.daemon.mountPoint, "pushed.txt");
    const longer = "a much longer body than before\n".repeat(300);
    await mounted.doFs.writeFile(path, longer);
    await pushOnce({ db: mounted.store }, mounted.client.sync);
    expect(statSync(path).size).toBe(longer.length);
    expect(readFileSync(path, "utf8")).toBe(longer);
    expect(sh("wc -c < pushed.txt")).toBe(`${longer.length}\n`);
    await mounted.doFs.writeFile(path, "tiny");
    await pushOnce({ db: mounted.store }, mounted.client.sync);
    expect(sh("stat -c %s pushed.txt && cat pushed.txt")).toBe("4\ntiny");
    // Written here again afterwards: the write and a pull carry it back.
    sh("printf ' and more' >> pushed.txt");
    await pullOnce({ db: mounted.store }, mounted.client.sync);
    expect(await mounted.doFs.readFile(path, "utf8")).toBe("tiny and more");
  });

  test("tar -x then tar -c of a tree round-trips; a pull has every file", async () => {
    sh(
      "mkdir -p src/a/b && for i in $(seq 1 30); do head -c $((i * 700)) /dev/urandom > src/a/b/r$i; done && tar -cf /tmp/writeback-test.tar -C src . && mkdir out && tar -xf /tmp/writeback-test.tar -C out && rm /tmp/writeback-test.tar",
    );
    expect(sh("cd src && find . -type f -exec sha256sum {} + | sort")).toBe(
      sh("cd out && find . -type f -exec sha256sum {} + | sort"),
    );
    await pullOnce({ db: mounted.store }, mounted.client.sync);
    const stored = Buffer.from(
      await new Response(await mounted.doFs.readFile(join(mounted.daemon.mountPoint, "out/a/b/r30"))).arrayBuffer(),
    );
    expect(stored.equals(readFileSync(join(mounted.daemon.mountPoint, "src/a/b/r30")))).toBe(true);
  });
});
