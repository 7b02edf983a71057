/**
 * Bounded output through a real Workspace in a Durable Object (FakeShellBackend
 * as the command backend): `result()` keeps the tail, the full stream is saved
 * byte for byte under `/.computer/output`, the exit event and the result say
 * so, old files are pruned, and `output: false` keeps everything.
 */
import { describe, expect, it } from "vitest";
import { inWorkspace } from "../../../test/workspace-harness.worker.js";
import type { ExecEvent } from "../types.js";

const utf8 = { encoding: "utf8" } as const;
const lines = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}\n`).join("");

describe("bounded output", () => {
  it("keeps output that fits whole and saves nothing", async () => {
    await inWorkspace(async ({ workspace }) => {
      const result = await (await workspace.runtime.exec("echo hi", utf8)).result();
      expect(result.stdout).toBe("hi\n");
      expect("truncated" in result).toBe(false);
      expect(workspace.provider().existsSync("/.computer")).toBe(false);
    });
  });

  it("cuts a stream past maxLines to its tail and saves the whole of it", async () => {
    await inWorkspace(async ({ workspace }) => {
      const full = lines(10);
      await workspace.fs.writeFile("/out.txt", full);
      const result = await (
        await workspace.runtime.exec("cat /out.txt", { ...utf8, id: "run.1", output: { maxLines: 3 } })
      ).result();
      expect(result.stdout).toBe("line 8\nline 9\nline 10\n");
      const path = "/.computer/output/test-shell.run%2E1.stdout.log";
      expect(result.truncated).toEqual({
        stdout: { status: "saved", path, totalBytes: full.length, totalLines: 10, firstLine: 8, partialLine: false },
      });
      expect(await workspace.fs.readFile(path, "utf8")).toBe(full);
    });
  });

  it("cuts by bytes mid-line, and reports it on the exit event of the live stream, which is uncut", async () => {
    await inWorkspace(async ({ workspace }) => {
      const full = "x".repeat(100);
      await workspace.fs.writeFile("/out.txt", full);
      const handle = await workspace.runtime.exec("cat /out.txt", { ...utf8, id: "live", output: { maxBytes: 10 } });
      const events: ExecEvent<"utf8">[] = [];
      for await (const event of handle) events.push(event);
      const streamed = events.flatMap((event) => (event.name === "stdout" ? [event.value] : [])).join("");
      expect(streamed).toBe(full);
      const exit = events.at(-1);
      expect(exit).toMatchObject({
        name: "exit",
        truncated: {
          stdout: {
            status: "saved",
            path: "/.computer/output/test-shell.live.stdout.log",
            totalBytes: 100,
            totalLines: 1,
            firstLine: 1,
            partialLine: true,
          },
        },
      });
    });
  });

  it("keeps raw bytes without an encoding, the saved file byte for byte", async () => {
    await inWorkspace(async ({ workspace }) => {
      const full = new Uint8Array(300).map((_, i) => (i * 7) % 256);
      await workspace.fs.writeFile("/out.bin", full);
      const result = await (
        await workspace.runtime.exec("cat /out.bin", { id: "b", output: { maxBytes: 16 } })
      ).result();
      expect([...result.stdout]).toEqual([...full.subarray(284)]);
      const saved = await workspace.fs.readFileBytes("/.computer/output/test-shell.b.stdout.log");
      expect([...saved]).toEqual([...full]);
    });
  });

  it("output: false on a run keeps everything; on the Workspace, a run cannot turn it back on", async () => {
    await inWorkspace(async ({ workspace, reopen }) => {
      await workspace.fs.writeFile("/out.txt", lines(5));
      const kept = await (await workspace.runtime.exec("cat /out.txt", { ...utf8, output: false })).result();
      expect(kept.stdout).toBe(lines(5));
      expect("truncated" in kept).toBe(false);
      const off = reopen({ output: false });
      const stillKept = await (await off.runtime.exec("cat /out.txt", { ...utf8, output: { maxLines: 1 } })).result();
      expect(stillKept.stdout).toBe(lines(5));
      expect(workspace.provider().existsSync("/.computer")).toBe(false);
    });
  });

  it("takes the Workspace's limits and directory, and prunes saved files beyond keep", async () => {
    await inWorkspace(
      async ({ workspace }) => {
        await workspace.fs.writeFile("/out.txt", lines(4));
        for (const id of ["a", "b", "c"]) {
          const result = await (await workspace.runtime.exec("cat /out.txt", { ...utf8, id })).result();
          expect(result.stdout).toBe("line 3\nline 4\n");
          expect(result.truncated?.stdout).toMatchObject({
            status: "saved",
            path: `/logs/test-shell.${id}.stdout.log`,
          });
        }
        expect((await workspace.fs.readdir("/logs")).map((entry) => entry.name).sort()).toEqual([
          "test-shell.b.stdout.log",
          "test-shell.c.stdout.log",
        ]);
      },
      { output: { maxLines: 2, dir: "/logs", keep: 2 } },
    );
  });

  it("says why when the full output could not be saved, and still keeps the tail", async () => {
    await inWorkspace(
      async ({ workspace }) => {
        await workspace.fs.writeFile("/blocked", "a file where the directory would go");
        await workspace.fs.writeFile("/out.txt", lines(3));
        const result = await (await workspace.runtime.exec("cat /out.txt", utf8)).result();
        expect(result.stdout).toBe("line 3\n");
        expect(result.truncated?.stdout).toMatchObject({ status: "not-saved", totalLines: 3, firstLine: 3 });
        const reason = result.truncated?.stdout?.status === "not-saved" ? result.truncated.stdout.reason : "";
        expect(reason).toMatch(/^ENOTDIR/);
      },
      { output: { maxLines: 1, dir: "/blocked/out" } },
    );
  });

  it("refuses bad limits at construction and per run, before anything runs", async () => {
    await inWorkspace(async ({ reopen, workspace, backend }) => {
      expect(() => reopen({ output: { maxLines: 0 } })).toThrow("output.maxLines must be a positive integer; got 0");
      expect(() => reopen({ output: { maxBytes: 1.5 } })).toThrow(/output\.maxBytes must be a positive integer/);
      expect(() => reopen({ output: { dir: "logs" } })).toThrow(/output\.dir must be an absolute path/);
      expect(() => reopen({ output: { dir: "/logs/" } })).toThrow(/without a trailing slash/);
      expect(() => reopen({ output: { keep: -1 } })).toThrow(/output\.keep must be a positive integer/);
      await expect(workspace.runtime.exec("echo", { output: { maxLines: -2 } })).rejects.toThrow(
        "output.maxLines must be a positive integer; got -2",
      );
      await expect(workspace.runtime.exec("echo", { output: "all" as unknown as false })).rejects.toThrow(
        "output must be an object of limits or false",
      );
      expect(backend.calls["shell.exec"]).toBe(0);
    });
  });
});
