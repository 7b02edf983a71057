/**
 * Bounded output on the worker-shell: just-bash in a Dynamic Worker prints
 * past the limits; the result keeps the tail, the Durable Object saves the
 * whole stream, and a remote client sees the same result.
 */
import { env } from "cloudflare:workers";
import { describe, expect, test } from "vitest";
import { getWorkspace } from "../../src/workspace/client.js";
import { inShell } from "./harness.worker.js";

const numbers = (count: number) => `${Array.from({ length: count }, (_, i) => i + 1).join("\n")}\n`;

describe("bounded output on worker-shell", () => {
  test("the result keeps the last lines, the saved file every line", async () => {
    await inShell(async ({ run, read }) => {
      const result = await run("seq 1 3000", { id: "seq", output: { maxLines: 5 } });
      expect(result.stdout).toBe("2996\n2997\n2998\n2999\n3000\n");
      const path = "/.computer/output/worker-shell.seq.stdout.log";
      expect(result.truncated).toEqual({
        stdout: {
          status: "saved",
          path,
          totalBytes: numbers(3000).length,
          totalLines: 3000,
          firstLine: 2996,
          partialLine: false,
        },
      });
      expect(await read(path)).toBe(numbers(3000));
    });
  });

  test("both streams are bounded on their own; a stream that fit is absent", async () => {
    await inShell(async ({ run }) => {
      const result = await run("seq 1 10 >&2; echo ok", { output: { maxBytes: 4 } });
      expect(result.stdout).toBe("ok\n");
      expect(result.stderr).toBe("\n10\n");
      expect(Object.keys(result.truncated ?? {})).toEqual(["stderr"]);
      expect(result.truncated?.stderr).toMatchObject({ totalLines: 10, firstLine: 9, partialLine: true });
    });
  });

  test("a remote client's result carries the same truncation", async () => {
    const stub = env.SHELL_WORKSPACE.get(env.SHELL_WORKSPACE.newUniqueId());
    const client = await getWorkspace(stub);
    await client.fs.mkdir("/workspace", { recursive: true });
    const handle = await client.runtime.exec("seq 1 3000", { encoding: "utf8", id: "remote" });
    const result = await handle.result();
    expect(result.stdout.split("\n")[0]).toBe("1001");
    expect(result.truncated?.stdout).toMatchObject({
      status: "saved",
      path: "/.computer/output/worker-shell.remote.stdout.log",
      totalLines: 3000,
      firstLine: 1001,
    });
    expect(await client.fs.readFile("/.computer/output/worker-shell.remote.stdout.log", "utf8")).toBe(numbers(3000));
  });
});
