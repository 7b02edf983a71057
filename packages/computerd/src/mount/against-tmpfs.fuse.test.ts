/**
 * The mount against tmpfs, at random: test/against-tmpfs.py runs the same
 * random operations on a tmpfs directory and on the mount, step by step,
 * and after each compares the results (errno names for refusals) and every
 * name's type, mode, link count, size, owner and which of its three times
 * moved. As root and as another user (setpriv, in a directory of theirs).
 * On the default driver. A fresh seed each run, printed on a failure;
 * COMPUTERD_TMPFS_SEED replays one.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startDaemon, stopAll, type TestDaemon } from "../../test/daemon.js";

const EXERCISER = fileURLToPath(new URL("../../test/against-tmpfs.py", import.meta.url));
const STEPS = 300;
const USER = 1000;

describe("the mount against tmpfs, random operations", () => {
  let daemon: TestDaemon;
  let tmpfs: string;
  /** The exerciser where every user may read it (the repository may not be). */
  let script: string;

  beforeAll(async () => {
    daemon = await startDaemon({ FUSE_MOUNT: "fuse" });
    // Other users reach the mount point through its parent.
    chmodSync(dirname(daemon.mountPoint), 0o755);
    tmpfs = mkdtempSync("/dev/shm/computerd-against-");
    chmodSync(tmpfs, 0o755);
    script = join(tmpfs, "against-tmpfs.py");
    copyFileSync(EXERCISER, script);
  });

  afterAll(async () => {
    rmSync(tmpfs, { recursive: true, force: true });
    await stopAll();
  });

  /** A fresh directory on each side, owned by `uid`; the exerciser's output and status. */
  function exercise(name: string, uid: number, seed: number): { output: string; status: number | null } {
    const sides = [join(tmpfs, name), join(daemon.mountPoint, name)];
    for (const side of sides) {
      mkdirSync(side);
      chownSync(side, uid, uid);
    }
    const user = uid === 0 ? [] : ["setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups"];
    // The system's python3: a user may not read root's own installs.
    const [command, ...args] = [...user, "/usr/bin/python3", script, ...sides, String(seed), String(STEPS)];
    const result = spawnSync(command as string, args, { encoding: "utf8", timeout: 120_000 });
    return { output: `${result.stdout}${result.stderr}`, status: result.status };
  }

  const seedOf = (offset: number): number =>
    process.env.COMPUTERD_TMPFS_SEED !== undefined
      ? Number(process.env.COMPUTERD_TMPFS_SEED)
      : Math.floor(Math.random() * 1_000_000) + offset;

  test.each([
    { who: "root", uid: 0, offset: 0 },
    { who: "root, another seed", uid: 0, offset: 1 },
    { who: `uid ${USER}`, uid: USER, offset: 2 },
  ])(
    "as $who, every step leaves the mount as it leaves tmpfs",
    ({ who, uid, offset }) => {
      const seed = seedOf(offset);
      const { output, status } = exercise(`run-${offset}`, uid, seed);
      // The output names the seed and each step that differed.
      expect(output, `as ${who}, seed ${seed} (COMPUTERD_TMPFS_SEED=${seed} replays it)`).toContain(
        `seed ${seed}: ${STEPS} steps, 0 differed`,
      );
      expect(status).toBe(0);
    },
    180_000,
  );
});
