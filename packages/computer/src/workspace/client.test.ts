/**
 * The RPC side of `getWorkspace` against plain objects shaped like stubs, so
 * the release rules are checked without workerd (client.worker.test.ts does
 * the same over real Workers RPC).
 */
import { describe, expect, it } from "vitest";
import { readAll } from "../../test/events.js";
import type { ExecEvent, ExecResult } from "../runtime/types.js";
import { encodeRuntimeEventLine } from "../runtime/wire.js";
import { getWorkspace } from "./client.js";
import { RemoteExecHandle, type RemoteExecHandleStub } from "./remote-handle.js";

function disposable(name: string, log: string[]) {
  return { [Symbol.dispose]: () => log.push(`dispose ${name}`) };
}

const ndjson = (events: ExecEvent[]): ReadableStream<Uint8Array> =>
  new Response(events.map(encodeRuntimeEventLine).join("")).body as ReadableStream<Uint8Array>;

function fakeHandle(events: ExecEvent[], log: string[]): RemoteExecHandleStub {
  return {
    ...disposable("handle", log),
    result: async () => {
      log.push("result");
      return { status: "completed", exitCode: 0, stdout: "", stderr: "" } as ExecResult;
    },
    stream: async () => {
      log.push("stream");
      return ndjson(events);
    },
  };
}

describe("getWorkspace over RPC (fake stubs)", () => {
  it("releases the workspace stub and every child that arrived when initialization fails", async () => {
    const log: string[] = [];
    const stub = {
      ...disposable("workspace", log),
      fs: Promise.resolve(disposable("fs", log)),
      runtime: Promise.reject(new Error("runtime getter failed")),
      git: Promise.resolve(disposable("git", log)),
      assets: Promise.resolve(null),
      artifacts: Promise.resolve(disposable("artifacts", log)),
      useThink: Promise.resolve(false),
    };
    await expect(getWorkspace({ __getWorkspaceStub: async () => stub })).rejects.toThrow("runtime getter failed");
    expect(log.sort()).toEqual(["dispose artifacts", "dispose fs", "dispose git", "dispose workspace"]);
  });

  it("refuses a handle that is neither local nor has __getWorkspaceStub", async () => {
    await expect(getWorkspace({} as never)).rejects.toThrow(/no __getWorkspaceStub/);
  });
});

describe("RemoteExecHandle", () => {
  const events: ExecEvent[] = [
    { id: "r", seq: 1, name: "stdout", value: "a" },
    { id: "r", seq: 2, name: "exit", code: 0 },
  ];
  const make = (log: string[]) =>
    new RemoteExecHandle(fakeHandle(events, log), {
      id: "r",
      backend: "b",
      kill: async (signal) => {
        log.push(`kill ${signal}`);
      },
    });

  it("asks for nothing until read, then streams and releases the remote handle at the end", async () => {
    const log: string[] = [];
    const handle = make(log);
    expect(log).toEqual([]);
    expect(await readAll(handle)).toEqual(events);
    expect(log).toEqual(["stream", "dispose handle"]);
    expect(() => handle.result()).toThrow(/result\(\) cannot be called after reading the stream started/);
  });

  it("result() calls the remote result once, releases, and then the stream errors", async () => {
    const log: string[] = [];
    const handle = make(log);
    const pending = handle.result();
    expect(handle.result()).toBe(pending);
    await pending;
    expect(log).toEqual(["result", "dispose handle"]);
    await expect(handle.getReader().read()).rejects.toThrow(/cannot be read after result\(\) was called/);
  });

  it("dispose releases the remote handle even while result() is pending, as the original's does", async () => {
    const log: string[] = [];
    let finish: (result: ExecResult) => void = () => {};
    const remote: RemoteExecHandleStub = {
      ...disposable("handle", log),
      result: () => new Promise<ExecResult>((resolve) => (finish = resolve)),
      stream: async () => ndjson(events),
    };
    const handle = new RemoteExecHandle(remote, { id: "r", backend: "b", kill: async () => {} });
    const pending = handle.result();
    handle[Symbol.dispose]();
    expect(log).toEqual(["dispose handle"]);
    finish({ status: "completed", exitCode: 0, stdout: "", stderr: "" } as ExecResult);
    await pending;
    expect(log).toEqual(["dispose handle"]);
  });

  it("kill goes to the runtime; dispose before reading releases the remote handle once", async () => {
    const log: string[] = [];
    const handle = make(log);
    await handle.kill("SIGINT");
    handle[Symbol.dispose]();
    handle[Symbol.dispose]();
    await Promise.resolve();
    expect(log).toEqual(["kill SIGINT", "dispose handle"]);
  });
});
