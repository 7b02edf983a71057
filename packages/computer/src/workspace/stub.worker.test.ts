/**
 * `WorkspaceStub` and its children as RPC targets: the raw surface a client
 * (or a Dynamic Worker through `WorkspaceServiceProxy`) sees, below what
 * `getWorkspace` builds on it.
 */
import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { readAll } from "../../test/events.js";
import type { WorkspaceObject } from "../../test/main.worker.js";
import { ExecHandle } from "../runtime/handle.js";
import type { ExecEvent } from "../runtime/types.js";
import { getWorkspace, WORKSPACE_INSTANCE } from "./client.js";
import { WorkspaceRuntimeExecHandleStub, type WorkspaceStub } from "./stub.worker.js";
import type { Workspace } from "./workspace.worker.js";

const freshObject = () => env.WORKSPACE.get(env.WORKSPACE.newUniqueId());
const workspaceOf = (instance: WorkspaceObject): Workspace =>
  (instance as unknown as { [WORKSPACE_INSTANCE]: Workspace })[WORKSPACE_INSTANCE];
const script = (steps: unknown[]): string => JSON.stringify(steps);

/**
 * Awaits an RPC call inside an async function. An RPC promise handed to
 * `expect(…).rejects` as it is leaves an internal rejection that vitest
 * reports as unhandled even though the test handled it.
 */
const settled = async <T>(call: PromiseLike<T>): Promise<T> => await call;

describe("WorkspaceStub over RPC", () => {
  it("streams NDJSON lines with enc, fractional seqs and the exit's code and result", async () => {
    using stub = await freshObject().__getWorkspaceStub();
    using runtime = await stub.runtime;
    using handle = await runtime.exec(
      script([
        { name: "stdout", text: "a" },
        { name: "stdout", bytes: [0xe2, 0x82] },
        { name: "exit", code: 0, result: 42 },
      ]),
      { backend: "scripted", id: "lines", encoding: "utf8" },
    );
    expect(await handle.id).toBe("lines");
    expect(await handle.backend).toBe("scripted");
    const text = await new Response(await handle.stream()).text();
    expect(text.split("\n")).toEqual([
      '{"id":"lines","seq":1,"name":"stdout","enc":"utf8","value":"a"}',
      '{"id":"lines","seq":2.5,"name":"stdout","enc":"utf8","value":"\ufffd"}',
      '{"id":"lines","seq":3,"name":"exit","code":0,"result":42}',
      "",
    ]);
    await expect(settled(handle.result())).rejects.toThrow(/result\(\) cannot be called after stream\(\)/);
  });

  it("gives result() once, and stream() not after it", async () => {
    using stub = await freshObject().__getWorkspaceStub();
    using runtime = await stub.runtime;
    using handle = await runtime.exec(script([{ name: "exit", code: 2 }]), { backend: "scripted" });
    expect(await handle.result()).toMatchObject({ status: "failed", exitCode: 2 });
    await expect(settled(handle.result())).rejects.toThrow(/result\(\) cannot be called after result\(\)/);
    await expect(settled(handle.stream())).rejects.toThrow(/stream\(\) cannot be called after result\(\)/);
    expect(await runtime.isCallable("scripted")).toBe(true);
    expect(await runtime.isCallable("test-shell")).toBe(false);
    expect(await runtime.backends).toEqual(["test-shell", "scripted"]);
  });

  it("stream() hands back a ReadableStream of NDJSON bytes, not a promise", async () => {
    const events: ExecEvent[] = [{ id: "s", seq: 1, name: "exit", code: 0 }];
    const source = new ReadableStream<ExecEvent>({
      start(controller) {
        for (const event of events) controller.enqueue(event);
        controller.close();
      },
    });
    const stub = new WorkspaceRuntimeExecHandleStub(
      new ExecHandle(source, { id: "s", backend: "a", kill: async () => {} }),
    );
    const stream = stub.stream();
    expect(stream).toBeInstanceOf(ReadableStream);
    expect(await new Response(stream).text()).toBe('{"id":"s","seq":1,"name":"exit","code":0}\n');
    expect(() => stub.stream()).toThrow(/stream\(\) cannot be called after stream\(\)/);
  });

  it("answers lstatOrNull without following a link, and null for a miss", async () => {
    const object = freshObject();
    await runInDurableObject(object, async (instance: WorkspaceObject) => {
      await workspaceOf(instance).fs.symlink("/nowhere", "/link");
    });
    using stub = await object.__getWorkspaceStub();
    using fs = await stub.fs;
    expect(await fs.lstatOrNull("/link")).toMatchObject({ isSymbolicLink: true });
    expect(await fs.statOrNull("/link")).toBeNull();
    expect(await fs.lstatOrNull("/missing")).toBeNull();
  });

  it("refuses a handle for another execution or backend than the one requested", () => {
    const handle = new ExecHandle(new ReadableStream<ExecEvent>(), { id: "x", backend: "a", kill: async () => {} });
    expect(() => new WorkspaceRuntimeExecHandleStub(handle, { backend: "b" })).toThrow(
      'Execution "x": asked for backend "b" but it runs on "a"',
    );
    expect(() => new WorkspaceRuntimeExecHandleStub(handle, { id: "y" })).toThrow(
      "backend ran exec as x, not the requested id y",
    );
    expect(new WorkspaceRuntimeExecHandleStub(handle, { id: "x", backend: "a" }).backend).toBe("a");
  });

  it("reports useThink, and an unset assets client as undefined (null through assetsOrNull)", async () => {
    using stub = await env.PLAIN_WORKSPACE.get(env.PLAIN_WORKSPACE.newUniqueId()).__getWorkspaceStub();
    expect(await stub.useThink).toBe(false);
    expect(await stub.assetsOrNull).toBeNull();
    // `assets` is undefined, as the original's: RPC cannot read an undefined property, theirs neither.
    await expect(settled(stub.assets)).rejects.toThrow('The RPC receiver does not implement the method "assets"');
    expect(await stub.sessionId).toBeNull();
    await expect(settled(stub.readFile("/a"))).rejects.toThrow(
      /Think methods need new Workspace\(\{ useThink: true \}\)/,
    );
  });
});

describe("disposal", () => {
  it("disposing a WorkspaceStub disposes the stubs it handed out, and handles left unread detach", async () => {
    await runInDurableObject(freshObject(), async (instance: WorkspaceObject) => {
      const workspace = workspaceOf(instance);
      const stub: WorkspaceStub = workspace.stub();
      const fs = stub.fs;
      const runtime = stub.runtime;
      const handle = await runtime.exec(
        script([
          { name: "stdout", text: "a" },
          { name: "exit", code: 0 },
        ]),
        {
          backend: "scripted",
        },
      );
      expect(await fs.exists("/")).toBe(true);
      stub[Symbol.dispose]();
      expect([stub.disposed, fs.disposed, runtime.disposed, handle.disposed]).toEqual([true, true, true, true]);
      await expect(fs.exists("/")).rejects.toThrow("fs.exists: this stub was disposed");
      await expect(handle.result()).rejects.toThrow("exec.result: this stub was disposed");
      expect(() => stub.fs).toThrow("workspace.fs: this stub was disposed");
      // A child disposed on its own leaves its parent and siblings alone.
      const other = workspace.stub();
      const first = other.fs;
      const second = other.fs;
      first[Symbol.dispose]();
      expect([other.disposed, first.disposed, second.disposed]).toEqual([false, true, false]);
      expect(await second.exists("/")).toBe(true);
    });
  });

  it("workspace.stub() refuses a closed workspace", async () => {
    await runInDurableObject(freshObject(), async (instance: WorkspaceObject) => {
      const workspace = workspaceOf(instance);
      await workspace.close();
      expect(() => workspace.stub()).toThrow(/workspace\.stub/);
    });
  });
});

describe("WorkspaceServiceProxy", () => {
  it("answers the named object's artifacts CLI through getArtifacts() and artifactsCLI(), as the original's proxy does", async () => {
    const id = env.WORKSPACE.newUniqueId();
    const proxy = exports.WorkspaceServiceProxy({ props: { binding: "WORKSPACE", id: id.toString() } });
    // env.WORKSPACE has no Artifacts binding: the Workspace's own not-configured answer comes back.
    const notConfigured = {
      stdout: "",
      stderr: "artifacts repo list: Workspace Artifacts binding is not configured\n",
      exitCode: 1,
    };
    expect(await settled(proxy.artifactsCLI({ argv: ["repo", "list"] }))).toEqual(notConfigured);
    using target = await settled(proxy.getArtifacts());
    expect(await settled(target.cli({ argv: ["repo", "list"] }))).toEqual(notConfigured);
    const help = await settled(target.cli({ argv: ["--help"] }));
    expect(help).toMatchObject({ exitCode: 0, stdout: expect.stringMatching(/^usage: artifacts/) });
  });

  it("serves the workspace of the object its props name, for getWorkspace", async () => {
    const id = env.WORKSPACE.newUniqueId();
    const proxy = exports.WorkspaceServiceProxy({ props: { binding: "WORKSPACE", id: id.toString() } });
    const client = await getWorkspace(proxy);
    try {
      await client.fs.writeFile("/via-proxy", "ok");
      const handle = await client.runtime.exec(
        script([
          { name: "stdout", text: "p" },
          { name: "exit", code: 0 },
        ]),
        {
          backend: "scripted",
          encoding: "utf8",
        },
      );
      expect((await readAll(handle)).map((event) => event.name)).toEqual(["stdout", "exit"]);
    } finally {
      client[Symbol.dispose]();
    }
    await runInDurableObject(env.WORKSPACE.get(id), async (instance: WorkspaceObject) => {
      expect(await workspaceOf(instance).fs.readFile("/via-proxy", "utf8")).toBe("ok");
    });
    const bad = exports.WorkspaceServiceProxy({ props: { binding: "NOPE", id: id.toString() } });
    await expect(settled(bad.getWorkspace())).rejects.toThrow(
      "WorkspaceServiceProxy: env.NOPE is not a Durable Object namespace",
    );
  });
});
