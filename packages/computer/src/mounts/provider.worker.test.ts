/**
 * `workspace.provider()` and a mount factory's `vfs` (the original's
 * `SQLiteWorkspaceProvider`) on a Durable Object's storage: one tree with
 * `workspace.fs`, and writes through it reach the sync stream like any other.
 */
import { describe, expect, it } from "vitest";
import { inToolsWorkspace } from "../../test/tools/harness.worker.js";
import type { MountContext } from "./types.js";

describe("the provider", () => {
  it("is one tree with workspace.fs: sync writes show through fs, fs writes through the provider", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      const provider = workspace.provider();
      expect(workspace.provider()).toBe(provider);
      provider.mkdirSync("/workspace/p", { recursive: true });
      provider.writeFileSync("/workspace/p/a.txt", "from the provider");
      expect(await workspace.fs.readFile("/workspace/p/a.txt", "utf8")).toBe("from the provider");
      await workspace.fs.writeFile("/workspace/p/b.txt", "from fs");
      expect(provider.readFileSync("/workspace/p/b.txt", "utf8")).toBe("from fs");
      expect(provider.readdirSync("/workspace/p")).toEqual(["a.txt", "b.txt"]);
      expect(() => provider.statSync("/workspace/none")).toThrow(
        "ENOENT: no such file or directory, stat '/workspace/none'",
      );
      // A provider write is a change like any other: the next push carries it.
      expect(await workspace.push()).toBeGreaterThan(0);
    });
  });

  it("is what a mount factory gets as vfs, beside fs, sessionId and root", async () => {
    const seen: Partial<MountContext>[] = [];
    await inToolsWorkspace(
      async ({ workspace }) => {
        await workspace.ready();
        expect(seen).toHaveLength(1);
        expect(seen[0]?.vfs).toBe(workspace.provider());
        expect(seen[0]?.fs).toBe(workspace.fs);
        expect(seen[0]).toMatchObject({ sessionId: "s1", root: "/workspace/m" });
        expect(workspace.provider().readFileSync("/workspace/m/x", "utf8")).toBe("made");
      },
      {
        sessionId: "s1",
        mounts: {
          "/workspace/m": (ctx) => {
            seen.push(ctx);
            return {
              strategy: "eager",
              kind: "custom",
              mode: "read-only",
              materialize: (api) => api.writeFile("/workspace/m/x", "made"),
            };
          },
        },
      },
    );
  });
});
