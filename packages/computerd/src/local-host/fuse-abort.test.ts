import { readdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startDaemon, stopAll, type TestDaemon } from "../../test/daemon.js";
import { abortFuseConnection, fuseConnectionOf, stillMounted } from "./fuse-abort.js";

// A real computerd FUSE mount in this process's mount namespace.
let daemon: TestDaemon;

beforeAll(async () => {
  daemon = await startDaemon({ FUSE_MOUNT: "fuse" });
});

afterAll(async () => {
  await stopAll();
});

describe("fuse-abort", () => {
  test("finds the connection of a live mount, and nothing where no FUSE mount is", () => {
    const connection = fuseConnectionOf(process.pid, daemon.mountPoint);
    expect(connection?.id).toBeGreaterThan(0);
    expect(connection?.mountNamespace).toMatch(/^mnt:\[\d+\]$/);
    expect(connection && stillMounted(connection)).toBe(true);
    expect(fuseConnectionOf(process.pid, "/")).toBeUndefined();
  });

  test("never aborts a connection id that now belongs to someone else's mount", () => {
    const live = fuseConnectionOf(process.pid, daemon.mountPoint);
    if (!live) throw new Error("no FUSE mount");
    // The same id seen by a namespace that no longer has it (a container that ended, its id reused by this mount).
    const gone = { ...live, mountNamespace: "mnt:[1]" };
    expect(stillMounted(gone)).toBe(false);
    abortFuseConnection(gone);
    // Same namespace, but the id was at another mount point.
    abortFuseConnection({ ...live, mountPoint: "/elsewhere" });
    // An abort would make the mount answer ENOTCONN.
    expect(readdirSync(daemon.mountPoint)).toEqual(expect.any(Array));
  });
});
