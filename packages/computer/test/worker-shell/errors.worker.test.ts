/**
 * One failure, one text: reading or stat-ing a missing file reports Node's
 * exact message (`ENOENT: no such file or directory, open '/workspace/x'`)
 * and the same `code`/`syscall`/`path` on every surface — the Workspace's fs
 * in the Durable Object and over Workers RPC, the shell's fs adapter, the
 * JavaScript sandbox's `node:fs/promises` in a real Dynamic Worker.
 * just-bash branches on the text, isomorphic-git on `code`. The AI SDK
 * tools answer the model in the original's words instead (`No such file:
 * <path>`, test/differential/tools.worker.test.ts).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { WorkspaceFsAdapter } from "../../src/backends/worker-shell/index.js";
import { createAITools } from "../../src/tools/index.js";
import { getWorkspace } from "../../src/workspace/client.js";
import { callTool } from "../tools/scripted-model.js";
import { inShell } from "./harness.worker.js";

const MISSING = "/workspace/missing.txt";
const OPEN = `ENOENT: no such file or directory, open '${MISSING}'`;
const STAT = `ENOENT: no such file or directory, stat '${MISSING}'`;

interface Shape {
  message: string;
  code?: unknown;
  syscall?: unknown;
  path?: unknown;
}

function shapeOf(error: unknown): Shape {
  const { message, code, syscall, path } = error as Shape;
  return { message, code, syscall, path };
}

async function failure(body: () => Promise<unknown>): Promise<Shape> {
  try {
    await body();
  } catch (error) {
    return shapeOf(error);
  }
  throw new Error("expected a failure");
}

const JS = { backend: "worker-javascript", encoding: "utf8" } as const;
/** Runs in the Dynamic Worker: the error as the user's module sees it. */
const READ_IN_SANDBOX = `import { readFile, stat } from "node:fs/promises";
const shape = async (body) => { try { await body(); return null; } catch (e) { return { message: e.message, code: e.code, syscall: e.syscall, path: e.path }; } };
export default async () => ({ read: await shape(() => readFile(${JSON.stringify(MISSING)}, "utf8")), stat: await shape(() => stat(${JSON.stringify(MISSING)})) });`;

describe("one error shape on every surface", () => {
  it("a missing file reads the same in the DO and the JS sandbox, and as the original in the tools", async () => {
    await inShell(async ({ workspace }) => {
      const open = { message: OPEN, code: "ENOENT", syscall: "open", path: MISSING };
      const stat = { message: STAT, code: "ENOENT", syscall: "stat", path: MISSING };

      expect(await failure(() => workspace.fs.readFile(MISSING, "utf8"))).toEqual(open);
      expect(await failure(() => workspace.fs.stat(MISSING))).toEqual(stat);

      const result = await (await workspace.runtime.exec(READ_IN_SANDBOX, JS)).result();
      expect(result.exitCode, String(result.stderr)).toBe(0);
      expect(result.value).toEqual({ read: open, stat });

      const tools = createAITools({ workspace, assets: false });
      expect((await callTool(tools, "read", { path: MISSING })).output).toEqual({ error: `No such file: ${MISSING}` });
      expect(
        (await callTool(tools, "edit", { path: MISSING, edits: [{ oldText: "a", newText: "b" }] })).output,
      ).toEqual({ error: `No such file: ${MISSING}` });
    });
  });

  it("over Workers RPC, and through the shell's fs adapter, the error keeps its text, code, syscall and path", async () => {
    const client = await getWorkspace(env.SHELL_WORKSPACE.get(env.SHELL_WORKSPACE.newUniqueId()));
    await client.fs.mkdir("/workspace", { recursive: true });
    expect(await failure(() => client.fs.readFile(MISSING, "utf8"))).toEqual({
      message: OPEN,
      code: "ENOENT",
      syscall: "open",
      path: MISSING,
    });
    expect(await failure(() => client.fs.stat(MISSING))).toEqual({
      message: STAT,
      code: "ENOENT",
      syscall: "stat",
      path: MISSING,
    });

    // The shell's adapter over the same RPC fs, as in the sandbox: readFile passes the Workspace's error on,
    // stat throws its own through the factory.
    const adapter = new WorkspaceFsAdapter(client.fs);
    expect(await failure(() => adapter.readFile(MISSING))).toMatchObject({ message: OPEN, code: "ENOENT" });
    expect(await failure(() => adapter.stat(MISSING))).toEqual({
      message: STAT,
      code: "ENOENT",
      syscall: "stat",
      path: MISSING,
    });
    client[Symbol.dispose]();
  });
});
