/**
 * Runs a test body inside a fresh `ShellWorkspaceObject` (or the plain one),
 * with its Workspace at hand: `run(command)` executes on the worker-shell
 * backend and returns the utf8 result.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { ExecOptions, ExecResult } from "../../src/runtime/types.js";
import { WORKSPACE_INSTANCE } from "../../src/workspace/client.js";
import type { Workspace } from "../../src/workspace/workspace.worker.js";
import type { PlainShellWorkspaceObject, ShellWorkspaceObject } from "./main.worker.js";

export interface ShellFixture {
  workspace: Workspace;
  instance: ShellWorkspaceObject;
  state: DurableObjectState;
  run(command: string, options?: ExecOptions): Promise<TextResult>;
  write(path: string, text: string): Promise<void>;
  read(path: string): Promise<string>;
}

export type TextResult = Omit<ExecResult, "stdout" | "stderr"> & { stdout: string; stderr: string };

export function workspaceOf(instance: object): Workspace {
  return (instance as { [WORKSPACE_INSTANCE]: Workspace })[WORKSPACE_INSTANCE];
}

export function fixtureFor(instance: ShellWorkspaceObject | PlainShellWorkspaceObject, state: DurableObjectState) {
  const workspace = workspaceOf(instance);
  return {
    workspace,
    instance: instance as ShellWorkspaceObject,
    state,
    async run(command: string, options: ExecOptions = {}): Promise<TextResult> {
      const result = await (await workspace.runtime.exec(command, { encoding: "utf8", ...options })).result();
      return { ...result, stdout: String(result.stdout), stderr: String(result.stderr) };
    },
    async write(path: string, text: string): Promise<void> {
      const cut = path.lastIndexOf("/");
      if (cut > 0) await workspace.fs.mkdir(path.slice(0, cut), { recursive: true });
      await workspace.fs.writeFile(path, text);
    },
    async read(path: string): Promise<string> {
      return workspace.fs.readFile(path, "utf8");
    },
  } satisfies ShellFixture;
}

/** A fresh object (a new id), with /workspace created. */
export async function inShell(
  body: (fixture: ShellFixture) => Promise<void>,
  stub: DurableObjectStub<ShellWorkspaceObject> = env.SHELL_WORKSPACE.get(env.SHELL_WORKSPACE.newUniqueId()),
): Promise<void> {
  await runInDurableObject(stub, async (instance, state) => {
    const fixture = fixtureFor(instance, state);
    await fixture.workspace.fs.mkdir("/workspace", { recursive: true });
    await body(fixture);
  });
}
