import { describe, expect, it } from "vitest";
import { withFs } from "#harness";
import { revOf } from "../test/util.js";
import { mountState, setMount, stampMountRoot } from "./mounts.js";

describe("mount bookkeeping", () => {
  it("mountState reads back what setMount recorded", () =>
    withFs(async ({ fs, db }) => {
      await fs.stat("/");
      expect(mountState(db, "/m")).toBeUndefined();
      setMount(db, "/m", "r2", "read-write", false);
      expect(mountState(db, "/m")).toEqual({ kind: "r2", mode: "read-write", indexed: false });
      setMount(db, "/m", "r2", "read-only", true);
      expect(mountState(db, "/m")).toEqual({ kind: "r2", mode: "read-only", indexed: true });
    }));

  it("stampMountRoot marks the root and everything below it, nothing else, and uses no rev", () =>
    withFs(async ({ fs, db }) => {
      await fs.mkdir("/m/a/b", { recursive: true });
      await fs.writeFile("/m/a/b/f", "x");
      await fs.writeFile("/m/g", "y");
      await fs.writeFile("/other", "z");
      const rev = revOf(db);
      expect(stampMountRoot(db, "/m")).toBe(5);
      expect(revOf(db)).toBe(rev);
      const stamped = db.all<{ n: number }>("SELECT count(*) AS n FROM vfs_nodes WHERE mount_root = '/m'");
      expect(Number(stamped[0]?.n)).toBe(5);
      expect(stampMountRoot(db, "/missing")).toBe(0);
    }));
});
