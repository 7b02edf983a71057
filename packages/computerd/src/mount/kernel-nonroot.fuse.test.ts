/**
 * Our own FUSE layer (COMPUTERD_FUSE_DRIVER=kernel) run by a user other
 * than root: mount(2) is out of reach, so the daemon mounts through the
 * setuid fusermount3 and receives the /dev/fuse fd over a Unix socket
 * (kernel/fusermount.ts). Real daemon as `nobody`, real tools as `nobody`
 * on its mount, the store checked through the sync wire.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { createWorkspaceClient, type WorkspaceClient } from "@cloudflare/computer-rpc/client";
import { pullOnce } from "@cloudflare/computer-rpc/driver";
import { type Database, WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { isMounted, startDaemon, stopAll, type TestDaemon } from "../../test/daemon.js";
import { asNobody, NOBODY, nobodysMountPoint } from "../../test/nobody.js";

let daemon: TestDaemon;
let client: WorkspaceClient;
let store: Database;

function mountLine(point: string): string | undefined {
  return readFileSync("/proc/self/mounts", "utf8")
    .split("\n")
    .find((line) => line.split(" ")[1] === point);
}

beforeAll(async () => {
  // fusermount3 opens /dev/fuse as its caller: the device must be usable by everyone (Debian's 0666; scripts/setup).
  expect(statSync("/dev/fuse").mode & 0o006, "/dev/fuse is not open to other users (scripts/setup)").toBe(0o006);
  daemon = await startDaemon({ FUSE_MOUNT: "fuse", COMPUTERD_FUSE_DRIVER: "kernel" }, nobodysMountPoint(), NOBODY);
  client = await createWorkspaceClient({ url: `${daemon.url}/api` });
  store = openNodeDatabase();
});

afterAll(async () => {
  await client?.close();
  await stopAll();
});

describe("the kernel driver without root", () => {
  test("mounts through fusermount3, owned by the daemon's user", () => {
    expect(daemon.output()).toMatch(/mounted \S+ \(kernel, protocol 7\.\d+/);
    const line = mountLine(daemon.mountPoint);
    expect(line).toBeDefined();
    expect(line).toContain("fuse.computerd");
    expect(line).toContain(`user_id=${NOBODY.uid}`);
    expect(line).toContain("default_permissions");
  });

  test("real tools work on it as that user, and what they write reaches the store", async () => {
    const out = asNobody(
      daemon.mountPoint,
      [
        "mkdir -p src/lib && printf 'one\\n' > src/a.txt && printf 'two\\n' > src/lib/b.txt",
        "tar -cf /dev/stdout -C src . | (mkdir copy && tar -xf - -C copy)",
        "chmod 755 copy/a.txt && ln -s a.txt copy/link && mkfifo pipe",
        "git init -q repo && cp -r src/* repo/ && cd repo && git add -A && git commit -qm first && git log --format=%s",
        "cd .. && stat -c '%U %a %F' copy/a.txt pipe && cat copy/lib/b.txt && readlink copy/link",
      ].join(" && "),
    );
    expect(out).toBe("first\nnobody 755 regular file\nnobody 644 fifo\ntwo\na.txt\n");
    await pullOnce({ db: store }, client.sync);
    const fs = new WorkspaceFilesystem(store);
    expect(await fs.readFile(join(daemon.mountPoint, "copy/lib/b.txt"), "utf8")).toBe("two\n");
    expect((await fs.stat(join(daemon.mountPoint, "copy/a.txt"))).mode & 0o777).toBe(0o755);
    expect(await fs.readlink(join(daemon.mountPoint, "copy/link"))).toBe("a.txt");
    expect((await fs.readdir(join(daemon.mountPoint, "repo/.git"))).length).toBeGreaterThan(3);
  });

  test("a SIGTERM unmounts it; a SIGKILL detaches it through fusermount3", async () => {
    daemon.child.kill("SIGTERM");
    expect(await daemon.exited).toBe(143); // main.ts: 143 after a SIGTERM
    expect(isMounted(daemon.mountPoint)).toBe(false);
    await daemon.stop();
    const killed = await startDaemon(
      { FUSE_MOUNT: "fuse", COMPUTERD_FUSE_DRIVER: "kernel" },
      nobodysMountPoint(),
      NOBODY,
    );
    expect(isMounted(killed.mountPoint)).toBe(true);
    killed.child.kill("SIGKILL");
    await killed.exited;
    // The watchdog reads EOF on its pipe and runs `fusermount3 -uz`.
    const deadline = Date.now() + 5_000;
    while (isMounted(killed.mountPoint) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(isMounted(killed.mountPoint)).toBe(false);
  });
});
