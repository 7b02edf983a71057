/**
 * Issue 19 row 6: `WorkerShellBackend` and its helpers take the shapes the
 * original `@cloudflare/computer@0.2.1` declares (its types are imported from
 * `computer-reference`; nothing of its code runs here), and they work: a flat
 * options object with `ctx: unknown`, an external runtime with no
 * `disposeExec`, `assembleShellModules(groups)`, an assets host whose
 * `publish` resolves to the URL string; and `connect()`'s handle is the
 * original's `BackendHandle` by type.
 */
import { env } from "cloudflare:workers";
import type { BackendHandle as ReferenceHandle } from "computer-reference";
import type {
  AssetsCommandHost as ReferenceAssetsHost,
  WorkerShellBackendOptions as ReferenceOptions,
  WorkerShellRuntime as ReferenceRuntime,
} from "computer-reference/backends/worker-shell";
import { describe, expect, test } from "vitest";
import jq from "#sandbox/worker-shell/jq";
import {
  assembleShellModules,
  defineAssetsCommand,
  SHELL_CORE_MODULES,
  SHELL_RUNTIME_MODULES,
  type ShellWorkerLoaderLike,
  WorkerShellBackend,
} from "../../src/backends/worker-shell/index.js";
import type { BackendHandle, WireExecEvent } from "../../src/runtime/backend.js";
import { inShell } from "./harness.worker.js";

async function run(handle: BackendHandle, id: string, source: string): Promise<WireExecEvent[]> {
  const shell = handle.rpc.shell;
  const exec = await shell.exec({ id, source, cwd: "/workspace" });
  const events: WireExecEvent[] = [];
  for await (const event of exec.events) events.push(event);
  await shell.disposeExec({ id });
  return events;
}

describe("worker-shell takes the original's option shapes", () => {
  test("a flat options object typed as the original's (ctx: unknown) builds a backend that runs commands", async () => {
    await inShell(async ({ state, write }) => {
      await write("/workspace/x.txt", "from the host\n");
      const ctx: unknown = state;
      const options: ReferenceOptions = {
        loader: env.LOADER,
        workspace: { binding: "SHELL_WORKSPACE", id: state.id.toString() },
        ctx,
      };
      const backend = new WorkerShellBackend(options);
      const handle = await backend.connect();
      try {
        const events = await run(handle, "flat", "cat x.txt");
        expect(events.map((event) => event.name)).toEqual(["stdout", "exit"]);
        expect(events.at(-1)).toMatchObject({ name: "exit", code: 0 });
      } finally {
        handle.close();
      }
    });
  });

  test("connect() gives the original's BackendHandle: its shell request shape runs, sync refuses", async () => {
    await inShell(async ({ state, write }) => {
      await write("/workspace/y.txt", "why\n");
      const backend = new WorkerShellBackend({
        loader: env.LOADER,
        workspace: { binding: "SHELL_WORKSPACE", id: state.id.toString() },
        ctx: state,
      });
      const handle: ReferenceHandle = await backend.connect();
      try {
        expect(handle.sync).toBe("none");
        // The original's request: no id (the shell picks one), stdin as bytes, `input` ignored.
        const exec = await handle.rpc.shell.exec({
          source: "cat y.txt; cat",
          cwd: "/workspace",
          stdin: new TextEncoder().encode("piped"),
          input: { ignored: true },
        });
        expect(exec.id).not.toBe("");
        const events = [];
        for await (const event of exec.events) events.push(event);
        const stdout = events.flatMap((event) =>
          event.name === "stdout" ? [new TextDecoder().decode(event.value)] : [],
        );
        expect(stdout.join("")).toBe("why\npiped");
        expect(events.at(-1)).toEqual({ id: exec.id, seq: events.length, name: "exit", code: 0 });
        expect(() => handle.rpc.sync.watermarks()).toThrow(/worker-shell has no sync \(watermarks\)/);
        expect(() => handle.rpc.sync.fetchObjects([])).toThrow(/no sync \(fetchObjects\)/);
      } finally {
        await handle.close();
      }
    });
  });

  test("options missing ctx still fail at construction, naming what is missing", () => {
    const options: ReferenceOptions = { loader: env.LOADER, workspace: { binding: "SHELL_WORKSPACE", id: "x" } };
    expect(() => new WorkerShellBackend(options)).toThrow(/needs ctx/);
  });

  test("an external runtime of the original's shape (no disposeExec) runs and disposes cleanly", async () => {
    await inShell(async ({ state }) => {
      const loaded = new WorkerShellBackend({
        loader: env.LOADER,
        workspace: { binding: "SHELL_WORKSPACE", id: state.id.toString() },
        ctx: state,
      });
      const loader: ShellWorkerLoaderLike = env.LOADER;
      const entrypoint = loader
        .get(loaded.loaderId as string, () => loaded.workerCode())
        .getEntrypoint("ShellWorker") as unknown as ReferenceRuntime;
      const runtime: ReferenceRuntime = {
        exec: (input) => entrypoint.exec(input),
        getExec: (input) => entrypoint.getExec(input),
        killExec: (input) => entrypoint.killExec(input),
      };
      const backend = new WorkerShellBackend({ source: { type: "external-runtime", connect: () => runtime } });
      const handle = await backend.connect();
      try {
        const events = await run(handle, "external", "echo hi");
        expect(events[0]).toMatchObject({ name: "stdout" });
        expect(events.at(-1)).toMatchObject({ name: "exit", code: 0 });
      } finally {
        handle.close();
      }
    });
  });

  test("assembleShellModules(groups) is core plus the groups; SHELL_RUNTIME_MODULES adds nothing", () => {
    const modules = assembleShellModules([jq]);
    expect(Object.keys(modules).sort()).toEqual(Object.keys({ ...SHELL_CORE_MODULES, ...jq }).sort());
    expect(assembleShellModules()).toEqual({ ...SHELL_CORE_MODULES });
    expect(assembleShellModules(SHELL_CORE_MODULES, [jq])).toEqual(modules);
    expect(Object.keys(SHELL_RUNTIME_MODULES)).toEqual([]);
    expect(Object.isFrozen(SHELL_RUNTIME_MODULES)).toBe(true);
  });

  test("the assets command prints the URL an original-shaped host's publish resolves to", async () => {
    const calls: unknown[] = [];
    const host: ReferenceAssetsHost = {
      assets: {
        publish: async (path, options) => {
          calls.push({ path, ...options });
          return `https://assets.test${path}`;
        },
      },
    };
    const command = defineAssetsCommand(host);
    const result = await command.execute(["publish", "a.png", "30s"], { cwd: "/workspace" } as never);
    expect(result).toMatchObject({ exitCode: 0, stdout: "https://assets.test/workspace/a.png\n" });
    expect(calls).toEqual([{ path: "/workspace/a.png", expiresAfter: 30_000 }]);
    const without = await defineAssetsCommand({}).execute(["publish", "a.png"], { cwd: "/" } as never);
    expect(without).toMatchObject({ exitCode: 1 });
  });
});
