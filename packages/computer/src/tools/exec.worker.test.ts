/**
 * `exec` through the AI SDK against a real Workspace and the test-only fake shell backend:
 * what `docs/tools.md` says of `exec`, snapshots under an injected clock, abort.
 */
import { describe, expect, it } from "vitest";
import { inToolsWorkspace } from "../../test/tools/harness.worker.js";
import { callTool, streamTool } from "../../test/tools/scripted-model.js";
import type { ExecOptions } from "../runtime/types.js";
import { createAITools } from "./create-ai-tools.js";
import { createExecTool, type ExecSnapshot } from "./exec.js";
import type { ToolRuntime } from "./types.js";

const backends = { "test-shell": { description: "A small POSIX-like shell." } };

describe("exec", () => {
  it("runs on the default backend and returns the final snapshot", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      const tools = createAITools({ workspace, shell: { backends } });
      const { output } = await callTool(tools, "exec", { command: "echo hi; echo oops >&2; exit 3" });
      expect(output).toEqual({
        command: "echo hi; echo oops >&2; exit 3",
        cwd: null,
        backend: "test-shell",
        exitCode: 3,
        stdout: "hi\n",
        stderr: "oops\n",
      });
      await workspace.fs.mkdir("/workspace/sub", { recursive: true });
      const inSub = await callTool(tools, "exec", {
        command: "echo $X > f.txt",
        cwd: "/workspace/sub",
        env: { X: "y" },
      });
      expect(inSub.output).toMatchObject({ exitCode: 0, cwd: "/workspace/sub" });
      expect(await workspace.fs.readFile("/workspace/sub/f.txt", "utf8")).toBe("y\n");
    });
  });

  it("(28) input to a non-callable backend fails without a runtime call; a bad defaultBackend throws", async () => {
    await inToolsWorkspace(async ({ workspace, backend }) => {
      const tools = createAITools({ workspace, shell: { backends } });
      const { output } = await callTool(tools, "exec", { command: "echo", input: { n: 1 } });
      // The error names the call like every exec output does.
      expect(output).toEqual({
        command: "echo",
        cwd: null,
        backend: "test-shell",
        error: expect.stringMatching(/^Backend "test-shell" is not callable/),
      });
      expect(backend.calls["shell.exec"]).toBe(0);
      expect(backend.calls.connect).toBe(0);
      expect(() => createExecTool({ workspace, backends, defaultBackend: "nope" })).toThrow(/defaultBackend "nope"/);
      expect(() => createExecTool({ workspace, backends: {} })).toThrow(/at least one backend/);
    });
  });

  it("describes every backend, tags callable ones, and says to retry elsewhere", async () => {
    const runtime: ToolRuntime = {
      backends: ["sh", "js"],
      isCallable: (id) => id === "js",
      exec: async () => {
        throw new Error("not used");
      },
    };
    const tool = createExecTool({
      workspace: { runtime },
      backends: { sh: { description: "Shell." }, js: { description: "JavaScript." } },
    });
    expect(tool.description).toContain("- sh (default): Shell.");
    expect(tool.description).toContain("- js (callable: takes input): JavaScript.");
    expect(tool.description).toMatch(/not found on one backend, retry it on another/);
  });

  it("(29) 100 KiB of output comes back as 64 KiB cut on a UTF-8 boundary plus [truncated, N more bytes]", async () => {
    await inToolsWorkspace(
      async ({ workspace }) => {
        await workspace.fs.mkdir("/workspace", { recursive: true });
        // "a" then 2-byte characters: byte 65 536 falls inside one.
        await workspace.fs.writeFile("/workspace/big.txt", `a${"é".repeat(51_200)}`);
        const { output } = await callTool(createAITools({ workspace, shell: { backends } }), "exec", {
          command: "cat big.txt",
        });
        const { stdout } = output as ExecSnapshot;
        const [kept, blank, marker] = stdout.split("\n");
        expect(blank).toBe("");
        expect(new TextEncoder().encode(kept).byteLength).toBe(65_535);
        expect(kept).toBe(`a${"é".repeat(32_767)}`);
        expect(marker).toBe(`[truncated, ${102_401 - 65_535} more bytes]`);
        // 0.2.1's cut: with 0.8.0's bounded output the runtime saves the stream and exec shows its tail and the file.
      },
      { output: false },
    );
  });

  it("streams running snapshots at most once per 100 ms of the injected clock, then the final one", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      const command = "echo 1; echo 2; echo 3; echo 4";
      // The window starts at time 0, as in the original: a clock that never moves never opens one.
      const frozen = createAITools({ workspace, shell: { backends, now: () => 0 } });
      const still = await streamTool(frozen, "exec", { command });
      expect((still.preliminary as ExecSnapshot[]).filter((s) => s.exitCode === null)).toEqual([]);
      expect(still.final).toEqual({
        command,
        cwd: null,
        backend: "test-shell",
        exitCode: 0,
        stdout: "1\n2\n3\n4\n",
        stderr: "",
      });

      let t = 0;
      const ticking = createAITools({ workspace, shell: { backends, now: () => (t += 50) } });
      const half = await streamTool(ticking, "exec", { command });
      const stdouts = (half.preliminary as ExecSnapshot[]).filter((s) => s.exitCode === null).map((s) => s.stdout);
      // Four output events read at 50, 100, 150 and 200 ms: the 2nd and 4th open a new 100 ms window.
      expect(stdouts).toEqual(["1\n2\n", "1\n2\n3\n4\n"]);
    });
  });

  it("an aborted call kills the execution", async () => {
    await inToolsWorkspace(async ({ workspace }) => {
      const kills: string[] = [];
      const runtime: ToolRuntime = {
        backends: workspace.runtime.backends,
        isCallable: (id) => workspace.runtime.isCallable(id),
        exec: async (source: string, options?: ExecOptions) => {
          const handle = await workspace.runtime.exec(source, options);
          const kill = handle.kill.bind(handle);
          handle.kill = async (signal) => {
            kills.push(handle.id);
            return kill(signal);
          };
          return handle;
        },
      };
      const tool = createExecTool({ workspace: { runtime }, backends });
      const controller = new AbortController();
      controller.abort();
      const results: unknown[] = [];
      const execute = tool.execute as (input: unknown, options: unknown) => AsyncIterable<unknown>;
      for await (const snapshot of execute(
        { command: "sleep 30; echo never" },
        { abortSignal: controller.signal, toolCallId: "t", messages: [] },
      )) {
        results.push(snapshot);
      }
      expect(kills).toHaveLength(1);
      expect(results.at(-1)).toMatchObject({ exitCode: 143, stdout: "" });
    });
  });
});
