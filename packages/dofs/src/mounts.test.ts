import { describe, expect, it } from "vitest";
import { withFs } from "#harness";
import { revOf } from "../test/util.js";
import { assertWritable, mountState, readOnlyRoots, setMount, stampMountRoot } from "./mounts.js";

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

  it("the read-only roots every write checks follow setMount, and a setMount rolled back leaves none behind", () =>
    withFs(async ({ fs, db }) => {
      await fs.mkdir("/m/a", { recursive: true });
      expect(readOnlyRoots(db)).toEqual([]);
      expect(() => assertWritable(db, "/m/a/f", "open")).not.toThrow();
      setMount(db, "/m", "r2", "read-only", true);
      expect(() => assertWritable(db, "/m/a/f", "open")).toThrow(expect.objectContaining({ code: "EROFS" }));
      await expect(fs.writeFile("/m/a/f", "x")).rejects.toMatchObject({ code: "EROFS" });
      setMount(db, "/m", "r2", "read-write", true);
      expect(readOnlyRoots(db)).toEqual([]);
      await fs.writeFile("/m/a/f", "x");
      // Read inside the transaction that then rolls back: nothing of it is kept.
      expect(() =>
        db.transaction(() => {
          setMount(db, "/n", "r2", "read-only", false);
          expect(readOnlyRoots(db)).toEqual(["/n"]);
          throw new Error("roll back");
        }),
      ).toThrow("roll back");
      expect(readOnlyRoots(db)).toEqual([]);
      expect(() => assertWritable(db, "/n/x", "open")).not.toThrow();
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
