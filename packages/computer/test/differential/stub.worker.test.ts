/**
 * Differential tests of the Workers RPC stubs (issue 19 row 15): the same
 * calls on `workspace.stub()` of the published `@cloudflare/computer@0.2.1`
 * (`computer-reference`) and of ours, each Workspace in a fresh SQLite
 * Durable Object with the same original-shaped command backend, must give
 * the same answers: `fs.lstatOrNull`, the NDJSON bytes of `stream()` (a
 * `ReadableStream` handed back synchronously), and the rejection when the
 * backend ignores the requested execution id.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Workspace as ReferenceWorkspace } from "computer-reference";
import { describe, expect, it } from "vitest";
import { Workspace } from "../../src/workspace/workspace.worker.js";
import { referenceStorage } from "./main.worker.js";

type Side = "reference" | "ours";

interface StubLike {
  fs: {
    symlink(target: string, path: string): Promise<void>;
    writeFile(path: string, content: string): Promise<void>;
    lstatOrNull(path: string): Promise<unknown>;
    statOrNull(path: string): Promise<unknown>;
  };
  runtime: {
    exec(source: string, options: { id?: string; backend?: string }): Promise<{ stream(): unknown }>;
  };
}

function streamOf<T>(items: readonly T[]): ReadableStream<T> {
  return new ReadableStream<T>({
    start(controller) {
      for (const item of items) controller.enqueue(item);
      controller.close();
    },
  });
}

/**
 * An original-shaped command backend on the workspace's own storage
 * (`sync: "none"`). `source` picks what it does: `"rename"` runs the
 * execution under another id than the one requested; anything else prints
 * fixed output and exits 3.
 */
function scriptedCommandBackend() {
  const encoder = new TextEncoder();
  const shell = {
    async exec(input: { id?: string; source: string }) {
      const id = input.source === "rename" ? `${input.id}-renamed` : (input.id as string);
      const events = [
        { id, seq: 1, name: "stdout" as const, value: encoder.encode("out é\n") },
        { id, seq: 2, name: "stderr" as const, value: Uint8Array.of(0xff, 0x00) },
        { id, seq: 3, name: "exit" as const, code: 3 },
      ];
      return { id, events: streamOf(events) };
    },
    getExec: async () => {
      throw new Error("not used");
    },
    killExec: async () => {},
    disposeExec: async () => {},
  };
  const sync = new Proxy({}, { get: () => () => Promise.reject(new Error("sync is not used")) });
  return {
    id: "scripted",
    type: "scripted",
    async connect() {
      return { rpc: { sync, shell }, sync: "none" as const, close: async () => {} };
    },
  };
}

async function onStub<T>(side: Side, body: (stub: StubLike) => Promise<T>): Promise<T> {
  const object = env.COMPAT_SCRATCH.get(env.COMPAT_SCRATCH.newUniqueId());
  return runInDurableObject(object, async (_instance, state) => {
    // Cast: the backend is typed loosely here; at run time it is a backend of either package.
    const backends = [scriptedCommandBackend() as never];
    const workspace =
      side === "reference"
        ? new ReferenceWorkspace({ storage: referenceStorage(state.storage), backends })
        : new Workspace({ storage: state.storage, backends });
    return body(workspace.stub() as unknown as StubLike);
  });
}

/** The value, or the error's message: what a caller across RPC would see. */
async function settle<T>(run: () => Promise<T>): Promise<{ value: T } | { error: string }> {
  try {
    return { value: await run() };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

async function both<T>(body: (stub: StubLike) => Promise<T>): Promise<[T, T]> {
  return [await onStub("reference", body), await onStub("ours", body)];
}

describe("the stubs against the original's", () => {
  it("fs.lstatOrNull answers a link without following it, and null for a miss", async () => {
    const [theirs, ours] = await both(async (stub) => {
      await stub.fs.writeFile("/file", "x");
      await stub.fs.symlink("/nowhere", "/dangling");
      const pick = (stat: unknown) =>
        stat === null
          ? null
          : (({ isFile, isDirectory, isSymbolicLink }) => ({ isFile, isDirectory, isSymbolicLink }))(
              stat as { isFile: boolean; isDirectory: boolean; isSymbolicLink: boolean },
            );
      return {
        link: pick(await stub.fs.lstatOrNull("/dangling")),
        followed: await stub.fs.statOrNull("/dangling"),
        file: pick(await stub.fs.lstatOrNull("/file")),
        missing: await stub.fs.lstatOrNull("/missing"),
      };
    });
    expect(ours).toEqual(theirs);
    expect(ours.link).toEqual({ isFile: false, isDirectory: false, isSymbolicLink: true });
    expect(ours.missing).toBeNull();
  });

  it("stream() hands back a ReadableStream at once, with the same NDJSON bytes", async () => {
    const [theirs, ours] = await both(async (stub) => {
      const handle = await stub.runtime.exec("print", { id: "run-1", backend: "scripted" });
      const stream = handle.stream();
      const isStream = stream instanceof ReadableStream;
      return { isStream, text: await new Response(stream as ReadableStream<Uint8Array>).text() };
    });
    expect(ours).toEqual(theirs);
    expect(ours.isStream).toBe(true);
    expect(ours.text).toContain('{"id":"run-1","seq":3,"name":"exit","code":3}\n');
  });

  it("exec rejects when the backend ran the execution under another id than the one requested", async () => {
    const [theirs, ours] = await both((stub) =>
      settle(() => stub.runtime.exec("rename", { id: "mine", backend: "scripted" })),
    );
    expect(ours).toEqual(theirs);
    expect(ours).toEqual({ error: "backend ran exec as mine-renamed, not the requested id mine" });
  });
});
