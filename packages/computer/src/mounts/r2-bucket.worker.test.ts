/**
 * Mounts against Miniflare's local R2: what `docs/mounts.md` describes, plus
 * paging, prefixes, caps with rollback and EROFS on ancestors.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { inToolsWorkspace } from "../../test/tools/harness.worker.js";
import { Workspace } from "../workspace/workspace.worker.js";
import { R2Bucket } from "./r2-bucket.js";

const bucket = env.MOUNT_BUCKET;

async function seed(prefix: string, files: Record<string, string>): Promise<void> {
  for (const [key, body] of Object.entries(files)) await bucket.put(`${prefix}${key}`, body);
}

describe("R2Bucket mounts", () => {
  it("(42) a read-only mount: EROFS at, under and above the root; writes outside work", async () => {
    await seed("skills42/", { "a.md": "A", "dir/b.md": "B", "": "marker" });
    await inToolsWorkspace(
      async ({ workspace }) => {
        await workspace.ready();
        expect(await workspace.fs.readFile("/workspace/skills/a.md", "utf8")).toBe("A");
        expect(await workspace.fs.readFile("/workspace/skills/dir/b.md", "utf8")).toBe("B");
        expect((await workspace.fs.readdir("/workspace/skills")).map((e) => e.name)).toEqual(["a.md", "dir"]);
        const erofs = { code: "EROFS" };
        await expect(workspace.fs.writeFile("/workspace/skills/new.md", "x")).rejects.toMatchObject(erofs);
        await expect(workspace.fs.writeFile("/workspace/skills/a.md", "x")).rejects.toMatchObject(erofs);
        await expect(workspace.fs.mkdir("/workspace/skills/d")).rejects.toMatchObject(erofs);
        await expect(workspace.fs.rm("/workspace/skills/a.md")).rejects.toMatchObject(erofs);
        await expect(workspace.fs.rm("/workspace", { recursive: true })).rejects.toMatchObject(erofs);
        await expect(workspace.fs.chmod("/workspace", 0o700)).rejects.toMatchObject(erofs);
        await workspace.fs.writeFile("/workspace/ok.txt", "fine");
        expect(await workspace.fs.readFile("/workspace/ok.txt", "utf8")).toBe("fine");
      },
      { mounts: { "/workspace/skills": R2Bucket(bucket, { prefix: "skills42" }) } },
    );
  });

  it("(43) a container write under a read-only root is skipped on pull; the DO is unchanged", async () => {
    await seed("skills43/", { "a.md": "A" });
    await inToolsWorkspace(
      async ({ workspace }) => {
        await workspace.ready();
        await workspace.fs.writeFile("/workspace/seen.txt", "x");
        const result = await (
          await workspace.runtime.exec("echo sneaky > /workspace/skills/a.md; echo fine > out.txt", {
            encoding: "utf8",
          })
        ).result();
        expect(result.exitCode).toBe(0);
        expect(result.skipped).toEqual([
          expect.objectContaining({
            path: "/workspace/skills/a.md",
            reason: "read-only",
            mountRoot: "/workspace/skills",
          }),
        ]);
        expect(await workspace.fs.readFile("/workspace/skills/a.md", "utf8")).toBe("A");
        expect(await workspace.fs.readFile("/workspace/out.txt", "utf8")).toBe("fine\n");
      },
      { mounts: { "/workspace/skills": R2Bucket(bucket, { prefix: "skills43/" }) } },
    );
  });

  it("(44) materialized once per store, in one shared pass; over maxBytes rolls back and stays unindexed", async () => {
    await seed("once44/", { "a.txt": "1" });
    await seed("big44/", { "x.bin": "0123456789", "y.bin": "0123456789" });
    await inToolsWorkspace(async ({ storage, reopen }) => {
      let calls = 0;
      const counting = (ctx: { root: string }) => {
        const inner = R2Bucket(bucket, { prefix: "once44" });
        return {
          ...inner,
          materialize: async (context: Parameters<typeof inner.materialize>[0]) => {
            calls++;
            expect(context.root).toBe(ctx.root);
            return inner.materialize(context);
          },
        };
      };
      const first = reopen({ mounts: { "/data": counting } });
      await Promise.all([first.ready(), first.ready()]);
      await first.ready();
      expect(calls).toBe(1);
      // The next incarnation over the same storage does not copy again.
      await reopen({ mounts: { "/data": counting } }).ready();
      expect(calls).toBe(1);
      const rows = storage.sql
        .exec<{ root: string; indexed: number; mode: string }>("SELECT root, indexed, mode FROM _vfs_mounts")
        .toArray();
      expect(rows).toEqual([{ root: "/data", indexed: 1, mode: "read-only" }]);
      const stamped = storage.sql
        .exec<{ n: number }>("SELECT count(*) AS n FROM vfs_nodes WHERE mount_root = '/data'")
        .one().n;
      expect(stamped).toBe(2); // the root and a.txt

      // Listing says 20 bytes, the cap 15: nothing is left and the mount is not indexed.
      const capped = reopen({ mounts: { "/big": R2Bucket(bucket, { prefix: "big44", maxBytes: 15 }) } });
      await expect(capped.ready()).rejects.toThrow(/maxBytes \(15\)/);
      await expect(capped.fs.stat("/big")).rejects.toMatchObject({ code: "ENOENT" });
      const big = storage.sql.exec<{ indexed: number }>("SELECT indexed FROM _vfs_mounts WHERE root = '/big'").one();
      expect(big.indexed).toBe(0);
      // A cap the listing cannot see (bytes actually written) rolls back the same way.
      const entries = reopen({
        mounts: {
          "/custom": {
            strategy: "eager",
            maxEntries: 1,
            materialize: async (context) => {
              await context.writeFile("/custom/one", "1");
              await context.writeFile("/custom/two", "2");
            },
          },
        },
      });
      await expect(entries.ready()).rejects.toThrow(/maxEntries \(1\)/);
      await expect(entries.fs.stat("/custom")).rejects.toMatchObject({ code: "ENOENT" });
      // Writable afterwards (the row stayed read-write), and the next ready() retries.
      await entries.fs.mkdir("/custom");
      await entries.fs.rm("/custom");
    });
  });

  it("(45) nested, relative or trailing-slash roots make the constructor throw", async () => {
    await inToolsWorkspace(async ({ storage }) => {
      const mount = R2Bucket(bucket);
      expect(() => new Workspace({ storage, mounts: { "/a": mount, "/a/b": mount } })).toThrow(/nested/);
      expect(() => new Workspace({ storage, mounts: { "/": mount, "/x": mount } })).toThrow(/nested/);
      expect(() => new Workspace({ storage, mounts: { "a/b": mount } })).toThrow(/absolute/);
      expect(() => new Workspace({ storage, mounts: { "/a/": mount } })).toThrow(/must not end with "\/"/);
      expect(() => new Workspace({ storage, mounts: { "/a//b": mount } })).toThrow(/normalized/);
      let factoryCalls = 0;
      const workspace = new Workspace({
        storage,
        sessionId: "s",
        mounts: {
          "/m": (ctx) => {
            factoryCalls++;
            expect(ctx).toMatchObject({ sessionId: "s", root: "/m" });
            return mount;
          },
        },
      });
      expect(factoryCalls).toBe(1);
      // Indexing happens only via ready(), not on the first fs call.
      await expect(workspace.fs.stat("/m")).rejects.toMatchObject({ code: "ENOENT" });
    });
  });

  it("lists every page, skips the prefix marker, writes outside the root throw, a vanished object fails", async () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < 7; i++) many[`f${i}.txt`] = String(i);
    await seed("paged/", many);
    await inToolsWorkspace(async ({ reopen }) => {
      const paged = reopen({ mounts: { "/p": R2Bucket(bucket, { prefix: "paged/", listLimit: 2, concurrency: 3 }) } });
      await paged.ready();
      expect((await paged.fs.readdir("/p")).map((e) => e.name)).toEqual(Object.keys(many));

      const escaping = reopen({
        mounts: {
          "/e": { strategy: "eager", mode: "read-write", materialize: (c) => c.writeFile("/elsewhere", "x") },
        },
      });
      await expect(escaping.ready()).rejects.toThrow(/outside the mount root/);

      const vanishing = reopen({
        mounts: {
          "/v": R2Bucket({ list: bucket.list.bind(bucket), get: async () => null }, { prefix: "paged" }),
        },
      });
      await expect(vanishing.ready()).rejects.toThrow(/disappeared/);
      await expect(vanishing.fs.stat("/v")).rejects.toMatchObject({ code: "ENOENT" });
    });
  });

  it("a read-write mount accepts writes (no write-back)", async () => {
    await seed("rw/", { "a.txt": "A" });
    await inToolsWorkspace(
      async ({ workspace }) => {
        await workspace.ready();
        await workspace.fs.writeFile("/rw/a.txt", "changed");
        expect(await workspace.fs.readFile("/rw/a.txt", "utf8")).toBe("changed");
        expect(await (await bucket.get("rw/a.txt"))?.text()).toBe("A");
      },
      { mounts: { "/rw": R2Bucket(bucket, { prefix: "rw", mode: "read-write" }) } },
    );
  });
});
