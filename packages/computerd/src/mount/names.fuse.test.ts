/**
 * Linux's name limits on a real FUSE mount, driven by real tools: a name over
 * 255 bytes is ENAMETOOLONG for every op that makes or looks up one (it once
 * succeeded and then broke its directory's listing with EIO), a system call's
 * path is limited to PATH_MAX as Linux does (the tree below may be deeper),
 * and a Durable Object push of such a name is
 * refused with a reason (`refused`, beside the read-only `skipped`) instead of
 * breaking the mount root.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { createWorkspaceClient, type WorkspaceClient } from "@cloudflare/computer-rpc/client";
import { pullOnce } from "@cloudflare/computer-rpc/driver";
import { WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import type { ChangeEntry } from "@cloudflare/dofs/sync";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startDaemon, stopAll, type TestDaemon } from "../../test/daemon.js";

let daemon: TestDaemon;
let client: WorkspaceClient;

beforeAll(async () => {
  daemon = await startDaemon({ FUSE_MOUNT: "fuse" });
  client = await createWorkspaceClient({ url: `${daemon.url}/api` });
});

afterAll(async () => {
  await client?.close();
  await stopAll();
});

/** Runs a shell line in `cwd` (the mount); answers status and stderr, never throws. */
function sh(script: string, cwd = daemon.mountPoint): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync("bash", ["-c", script], { cwd, encoding: "utf8" });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const name = (bytes: number, char = "a"): string => char.repeat(bytes);

describe("names over 255 bytes on the mount", () => {
  test("mkdir of 256 bytes is ENAMETOOLONG and ls of the parent still works; 255 bytes works", () => {
    const refused = sh(`mkdir $(printf 'a%.0s' {1..256})`);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/File name too long/);
    expect(sh("ls -la .").status).toBe(0);
    expect(sh(`mkdir $(printf 'a%.0s' {1..255})`).status).toBe(0);
    expect(readdirSync(daemon.mountPoint)).toContain(name(255));
    expect(sh("ls -la . && find . >/dev/null").status).toBe(0);
  });

  test("every op that makes or looks up a name refuses one over 255 bytes, multi-byte names by their bytes", () => {
    sh("mkdir -p ops && echo x > ops/f");
    const long = name(256, "z");
    const wide = "é".repeat(128); // 128 characters, 256 bytes
    for (const [what, script] of [
      ["create", `: > ops/${long}`],
      ["mkdir", `mkdir ops/${wide}`],
      ["symlink", `ln -s f ops/${long}`],
      ["link", `ln ops/f ops/${long}`],
      ["rename", `mv ops/f ops/${long}`],
      ["mknod", `mkfifo ops/${long}`],
      ["lookup", `stat ops/${name(300)}`],
      ["open", `cat ops/${long}`],
    ] as const) {
      const result = sh(script);
      expect([what, result.status === 0, result.stderr]).toEqual([what, false, expect.stringMatching(/too long/)]);
    }
    expect(sh("ls ops").stdout).toBe("f\n");
    expect(sh("cat ops/f").stdout).toBe("x\n");
    // 255 bytes of two-byte characters and one ASCII byte: at the limit, fine.
    expect(sh(`mkdir ops/${"é".repeat(127)}a && ln -s f ops/${name(255, "s")}`).status).toBe(0);
  });

  test("only the path one system call is given is limited (PATH_MAX), not the depth below the mount point", () => {
    // 15 levels of 255-byte names, made with relative paths: the tree's absolute paths pass 4096 bytes.
    const level = name(255, "d");
    const made = sh(`mkdir deep && cd deep && for i in $(seq 15); do mkdir ${level} && cd ${level}; done && pwd`);
    expect(made.status).toBe(0);
    const cwd = made.stdout.trim();
    expect(Buffer.byteLength(cwd)).toBeLessThan(4096);
    const deeper = sh(`mkdir ${level} && cd ${level} && echo below > f && cat f && ls`, cwd);
    expect(deeper.stdout).toBe(`below\nf\n`);
    // A 4095-byte relative path (the most a syscall takes) works from the mount point; 4096 is the kernel's refusal.
    const script = `import os
rel = "/".join(["r" * 254] * 17)[:4095 - 2] + "/x"
os.makedirs(os.path.dirname(rel)); open(rel, "w").write("at 4095"); print(len(rel.encode()), open(rel).read())
try:
    open(rel + "y", "w")
except OSError as error:
    print(error.strerror)`;
    const result = spawnSync("python3", ["-c", script], { cwd: daemon.mountPoint, encoding: "utf8" });
    expect(result.stdout).toBe("4095 at 4095\nFile name too long\n");
  });

  test("what the mount made arrives in the Durable Object's store, the 255-byte names included", async () => {
    const store = new WorkspaceFilesystem(openNodeDatabase());
    await pullOnce({ db: store.db }, client.sync);
    const root = daemon.mountPoint;
    expect((await store.readdir(root)).map((entry) => entry.name)).toEqual(readdirSync(root).sort());
    expect((await store.stat(`${root}/${name(255)}`)).isDirectory).toBe(true);
    expect(await store.readlink(`${root}/ops/${name(255, "s")}`)).toBe("f");
  });
});

describe("a Durable Object push of a name over 255 bytes", () => {
  test("is refused with a reason; the mount root still lists, and the rest of the batch applies", async () => {
    const root = daemon.mountPoint;
    const long = `${root}/${name(300, "p")}`;
    const entries: ChangeEntry[] = [
      { rev: 1, path: long, kind: "dir", mode: 0o755, mtime: 1 },
      { rev: 1, path: `${long}/child`, kind: "dir", mode: 0o755, mtime: 1 },
      { rev: 1, path: `${root}/pushed-ok`, kind: "dir", mode: 0o755, mtime: 1 },
    ];
    let i = 0;
    const result = await client.sync.push({
      senderRev: 1,
      senderCursor: { rev: 1, path: null },
      changes: new ReadableStream<ChangeEntry>({
        pull(controller) {
          if (i < entries.length) controller.enqueue(entries[i++] as ChangeEntry);
          else controller.close();
        },
      }),
    });
    expect(result.skipped).toBeUndefined();
    expect(result.refused).toEqual([
      { path: long, op: "write", reason: "name-too-long" },
      { path: `${long}/child`, op: "write", reason: "name-too-long" },
    ]);
    const listing = sh("ls -la . && ls");
    expect(listing.status).toBe(0);
    expect(listing.stdout).toContain("pushed-ok");
    expect(listing.stdout).not.toContain("ppp");
    expect(sh("find . -maxdepth 1 | wc -l").status).toBe(0);
  });
});
