/**
 * Busy polling on a real mount (mount/kernel/busy-poll.ts): each way
 * serves real tools correctly, including the ops that answer with a
 * promise (the spin waits for their replies before it reads on), and says
 * which way it runs. qos needs root's /dev/cpu_dma_latency; spin nothing.
 */
import { execFileSync } from "node:child_process";
import { get } from "node:http";
import { afterAll, describe, expect, test } from "vitest";
import { startDaemon, stopAll, type TestDaemon } from "../../test/daemon.js";

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

// Makes a tree with files, links and symlinks, packs it, removes it, unpacks it and checks every byte;
// renames, unlinks, symlinks and readlinks answer with promises, the rest at once.
const WORKLOAD = `
mkdir -p src/a/b src/c
for i in $(seq 1 200); do printf 'file %s\\n' "$i" > src/a/b/f$i; done
ln src/a/b/f1 src/c/hard && ln -s ../a/b/f2 src/c/soft && mv src/a/b/f3 src/c/moved
tar -cf tree.tar src && sha=$(tar -xOf tree.tar | sha256sum)
rm -rf src && tar -xf tree.tar
test "$(tar -xOf tree.tar | sha256sum)" = "$sha"
cat src/c/soft src/c/hard src/c/moved
ls src/a/b | wc -l
rm -rf src tree.tar && ls -A | wc -l
`;

describe.each(["spin", "qos", "off"])("COMPUTERD_FUSE_BUSY_POLL=%s", (setting) => {
  let daemon: TestDaemon;

  test("real tools see the same files, and the daemon says how it polls", async () => {
    daemon = await startDaemon({
      FUSE_MOUNT: "fuse",
      COMPUTERD_FUSE_DRIVER: "kernel",
      COMPUTERD_FUSE_BUSY_POLL: setting,
    });
    expect(daemon.output()).toMatch(new RegExp(`busy polling ${setting}\\)`));
    const out = execFileSync("bash", ["-euo", "pipefail", "-c", WORKLOAD], {
      cwd: daemon.mountPoint,
      encoding: "utf8",
    });
    expect(out).toBe("file 2\nfile 1\nfile 3\n199\n0\n");
    const counts = await stats(daemon);
    if (setting === "spin") {
      expect(counts.busy_poll_spin_hits).toBeGreaterThan(0);
      expect(counts.busy_poll_holds).toBe(0);
    } else if (setting === "qos") {
      expect(counts.busy_poll_holds).toBeGreaterThan(0);
      expect(counts.busy_poll_spin_hits).toBe(0);
    } else {
      expect(counts).toMatchObject({ busy_poll_holds: 0, busy_poll_spin_hits: 0, busy_poll_spin_misses: 0 });
    }
  }, 60_000);
});
