/**
 * `getWorkspace` over real Workers RPC: the test runs in the Worker and talks
 * to a `withWorkspace` Durable Object (test/main.worker.ts) through its stub,
 * and, inside `runInDurableObject`, to the same object in-isolate. A number in a test
 * name is a stable case id; `docs/runtime.md` describes the behavior.
 */
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { WorkspaceFsError } from "@cloudflare/dofs";
import { describe, expect, it } from "vitest";
import { readAll } from "../../test/events.js";
import type { WorkspaceObject } from "../../test/main.worker.js";
import { waitFor } from "../../test/wait.js";
import type { ExecEvent } from "../runtime/types.js";
import { getWorkspace, WORKSPACE_INSTANCE, type WorkspaceClient } from "./client.js";
import { isThinkWorkspace } from "./think.js";
import type { Workspace } from "./workspace.worker.js";

const objectNamed = (name: string = crypto.randomUUID()) => env.WORKSPACE.get(env.WORKSPACE.idFromName(name));

/**
 * Runs `body` with a remote client and disposes it afterwards, as `using`
 * would. `/workspace` is created first: the fake shell backend runs commands there.
 */
async function withClient<T>(body: (client: WorkspaceClient) => Promise<T>, object = objectNamed()): Promise<T> {
  const client = await getWorkspace(object);
  try {
    await client.fs.mkdir("/workspace", { recursive: true });
    return await body(client);
  } finally {
    client[Symbol.dispose]();
  }
}

const inObject = <T>(object: DurableObjectStub<WorkspaceObject>, body: (instance: WorkspaceObject) => Promise<T>) =>
  runInDurableObject(object, (instance: WorkspaceObject) => body(instance));

const workspaceOf = (instance: WorkspaceObject): Workspace =>
  (instance as unknown as { [WORKSPACE_INSTANCE]: Workspace })[WORKSPACE_INSTANCE];

const script = (steps: unknown[]): string => JSON.stringify(steps);

describe("getWorkspace over RPC", () => {
  it("(42) writes through the client are files of the object, and survive a restart", async () => {
    const name = crypto.randomUUID();
    const object = objectNamed(name);
    await withClient(async (client) => {
      await client.fs.writeFile("/workspace/a.txt", "from the worker");
      await client.fs.writeFile("/workspace/b.bin", Uint8Array.of(0, 1, 2, 255));
      await client.fs.writeFile(
        "/workspace/c.txt",
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode("streamed "));
            controller.enqueue(new TextEncoder().encode("bytes"));
            controller.close();
          },
        }),
      );
    }, object);
    await inObject(object, async (instance) => {
      const fs = workspaceOf(instance).fs;
      expect(await fs.readFile("/workspace/a.txt", "utf8")).toBe("from the worker");
      expect(await fs.readFile("/workspace/c.txt", "utf8")).toBe("streamed bytes");
    });
    await abortAllDurableObjects();
    // The abort breaks the old stub; a new one reaches the object's next incarnation.
    await withClient(async (client) => {
      expect(await client.fs.readFile("/workspace/a.txt", "utf8")).toBe("from the worker");
      const stream = await client.fs.readFile("/workspace/b.bin");
      expect(new Uint8Array(await new Response(stream).arrayBuffer())).toEqual(Uint8Array.of(0, 1, 2, 255));
      expect((await client.fs.readdir("/workspace")).map((entry) => entry.name)).toEqual(["a.txt", "b.bin", "c.txt"]);
    }, objectNamed(name));
  });

  it("answers expected misses with null/false and rebuilds fs errors so .code works", async () => {
    await withClient(async (client) => {
      await client.fs.writeFile("/f", "x");
      expect(await client.fs.exists("/f")).toBe(true);
      expect(await client.fs.exists("/nope")).toBe(false);
      expect(await client.fs.exists("/f/under-a-file")).toBe(false);
      expect(await client.fs.statOrNull("/nope")).toBeNull();
      expect(await client.fs.statOrNull("/f")).toMatchObject({ name: "f", size: 1, isFile: true });

      const missing = await client.fs.readFile("/nope", "utf8").catch((error: unknown) => error);
      expect(missing).toBeInstanceOf(WorkspaceFsError);
      expect(missing).toMatchObject({
        code: "ENOENT",
        syscall: "open",
        path: "/nope",
        message: "ENOENT: no such file or directory, open '/nope'",
      });
      await expect(client.fs.mkdir("/f")).rejects.toMatchObject({ code: "EEXIST" });
      await expect(client.fs.readdir("/f")).rejects.toMatchObject({ code: "ENOTDIR" });
      await expect(client.fs.stat("relative")).rejects.toMatchObject({ code: "EINVAL" });
    });
  });

  it("(42) streams an execution's events, and result() after streaming started throws", async () => {
    await withClient(async (client) => {
      const handle = await client.runtime.exec("echo hi", { encoding: "utf8" });
      expect(handle.backend).toBe("test-shell");
      expect(handle.id).toMatch(/^[0-9a-f-]{36}$/);
      const reader = handle.getReader();
      const first = await reader.read();
      expect(first.value).toEqual({ id: handle.id, seq: 1, name: "stdout", value: "hi\n" });
      expect(() => handle.result()).toThrow(/result\(\) cannot be called after reading the stream started/);
      const rest: ExecEvent[] = [];
      for (let next = await reader.read(); !next.done; next = await reader.read()) rest.push(next.value);
      expect(rest).toEqual([{ id: handle.id, seq: 2, name: "exit", code: 0 }]);
    });
  });

  it("(42) after result() the stream errors, and result() is memoized", async () => {
    await withClient(async (client) => {
      await client.fs.writeFile("/workspace/a.txt", "contents");
      const handle = await client.runtime.exec("cat /workspace/a.txt", { id: "cat-1", encoding: "utf8" });
      expect(handle.id).toBe("cat-1");
      const pending = handle.result();
      expect(handle.result()).toBe(pending);
      await expect(handle.getReader().read()).rejects.toThrow(/cannot be read after result\(\) was called/);
      expect(await pending).toMatchObject({ status: "completed", exitCode: 0, stdout: "contents", stderr: "" });
    });
  });

  it("carries raw bytes, fractional seqs and callable results through NDJSON", async () => {
    await withClient(async (client) => {
      // "é" split over two events, then a dangling lead byte of "😀" that the utf8 decoder flushes before exit.
      const steps = script([
        { name: "stdout", bytes: [0xc3] },
        { name: "stdout", bytes: [0xa9, 0x21] },
        { name: "stderr", bytes: [0xf0, 0x9f] },
        { name: "exit", code: 3, result: { ok: [1, 2] } },
      ]);
      const decoded = await client.runtime.exec(steps, { backend: "scripted", encoding: "utf8" });
      const id = decoded.id;
      expect(await readAll(decoded)).toEqual([
        { id, seq: 2, name: "stdout", value: "é!" },
        { id, seq: 3.75, name: "stderr", value: "\ufffd" },
        { id, seq: 4, name: "exit", code: 3, result: { ok: [1, 2] } },
      ]);

      const raw = await client.runtime.exec(steps, { backend: "scripted" });
      const events = await readAll(raw);
      expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4]);
      expect(events[0]).toEqual({ id: raw.id, seq: 1, name: "stdout", value: Uint8Array.of(0xc3) });
      expect(events[2]).toEqual({ id: raw.id, seq: 3, name: "stderr", value: Uint8Array.of(0xf0, 0x9f) });

      const result = await (await client.runtime.exec(steps, { backend: "scripted" })).result();
      expect(result).toMatchObject({ status: "failed", exitCode: 3, value: { ok: [1, 2] } });
      expect(result.stdout).toEqual(Uint8Array.of(0xc3, 0xa9, 0x21));
    });
  });

  it("(43) a tagged template is quoted on the client and decodes utf8", async () => {
    await withClient(async (client) => {
      await client.fs.writeFile("/workspace/a b", "spaced");
      const handle = await client.runtime.exec`cat ${"a b"}`;
      const result = await handle.result();
      expect(result).toMatchObject({ status: "completed", stdout: "spaced" });
      expect(typeof result.stdout).toBe("string");
      // The command the backend saw is the quoted one: ask the same execution again by id.
      const again = await client.runtime.getExec(handle.id);
      expect(again.backend).toBe("test-shell");
      expect((await again.result()).exitCode).toBe(0);
    });
  });

  it("kills, disposes and looks up executions by id", async () => {
    await withClient(async (client) => {
      const steps = script([
        { name: "stdout", text: "x" },
        { name: "exit", code: 0 },
      ]);
      const handle = await client.runtime.exec(steps, { backend: "scripted", id: "again" });
      await readAll(handle);
      const replay = await client.runtime.getExec("again", { backend: "scripted", encoding: "utf8" });
      expect(await readAll(replay)).toEqual([
        { id: "again", seq: 1, name: "stdout", value: "x" },
        { id: "again", seq: 2, name: "exit", code: 0 },
      ]);
      await handle.kill("SIGTERM");
      await client.runtime.killExec("again", { backend: "scripted" });
      await client.runtime.disposeExec("again", { backend: "scripted" });
      await expect(client.runtime.getExec("again", { backend: "scripted" })).rejects.toThrow(/no such execution/);
      await expect(client.runtime.exec("echo", { backend: "nope" })).rejects.toThrow(/Unknown backend "nope"/);
    });
  });

  it("(42) dispose releases the stub and its children in the object", async () => {
    const object = objectNamed();
    const client = await getWorkspace(object);
    await client.fs.writeFile("/kept", "1");
    client[Symbol.dispose]();
    client[Symbol.dispose]();
    await expect(client.fs.readFile("/kept", "utf8")).rejects.toThrow(/disposed/);
    await expect(client.runtime.exec("echo hi")).rejects.toThrow(/disposed/);
    await inObject(object, async (instance) => {
      // The release crosses RPC asynchronously; the object sees it soon after.
      await waitFor(() => instance.stubs.every((stub) => stub.disposed), "the object to see the release");
      expect(instance.stubs).toHaveLength(1);
      expect(instance.stubs[0]?.disposed).toBe(true);
    });
  });

  it("exposes git (not configured), assets and artifacts like the workspace does", async () => {
    await withClient(async (client) => {
      await expect(client.git.cli({ argv: ["status"] })).rejects.toThrow(/Workspace git is not configured/);
      expect(await client.artifacts.cli({ argv: ["repo", "list"] })).toMatchObject({
        exitCode: 1,
        stderr: expect.stringMatching(/^artifacts repo list: Workspace Artifacts binding is not configured/),
      });
      // The test object's publisher answers { url }; publish gives the URL itself, as the original's stub.
      expect(await client.assets?.publish("/workspace/a.png", { expiresAfter: 1000 })).toBe(
        "https://assets.test/workspace/a.png?expiresAfter=1000",
      );
    });
    const plain = await getWorkspace(env.PLAIN_WORKSPACE.get(env.PLAIN_WORKSPACE.newUniqueId()));
    try {
      expect(plain.assets).toBeUndefined();
      expect(plain.useThink).toBe(false);
      expect("readFile" in plain).toBe(false);
      await expect(plain.runtime.exec("echo hi")).rejects.toThrow(/no execution backends/);
    } finally {
      plain[Symbol.dispose]();
    }
  });
});

describe("useThink", () => {
  it("(44) through the client: readFile('/missing') is null, stat(dir).type is directory", async () => {
    await withClient(async (client) => {
      if (!isThinkWorkspace(client)) throw new Error("expected a Think workspace");
      expect(await client.readFile("/missing")).toBeNull();
      expect(await client.readFileBytes("/missing")).toBeNull();
      expect(await client.stat("/missing")).toBeNull();
      await client.writeFile("notes/todo.md", "- ship");
      expect(await client.readFile("/workspace/notes/todo.md")).toBe("- ship");
      expect(await client.readFileBytes("notes/todo.md")).toEqual(new TextEncoder().encode("- ship"));
      expect(await client.stat("/workspace/notes")).toMatchObject({
        path: "/workspace/notes",
        name: "notes",
        type: "directory",
        mimeType: "inode/directory",
        size: 0,
      });
      const file = await client.stat("notes/todo.md");
      expect(file).toMatchObject({
        path: "/workspace/notes/todo.md",
        type: "file",
        mimeType: "text/markdown",
        size: 6,
      });
      expect(file?.createdAt).toBe(file?.updatedAt);
      expect((await client.readDir("notes")).map((info) => info.path)).toEqual(["/workspace/notes/todo.md"]);
      expect((await client.glob("**/*.md")).map((info) => info.path)).toEqual(["/workspace/notes/todo.md"]);
      await client.mkdir("/workspace/empty");
      await expect(client.mkdir("/workspace/empty")).rejects.toMatchObject({ code: "EEXIST" });
      await client.rm("/workspace/notes", { recursive: true });
      expect(await client.stat("notes")).toBeNull();
    });
  });

  it("(44) on the Workspace itself, and only with useThink", async () => {
    const object = objectNamed();
    await inObject(object, async (instance) => {
      const workspace = workspaceOf(instance);
      if (!isThinkWorkspace(workspace)) throw new Error("expected a Think workspace");
      expect(await workspace.readFile("/missing")).toBeNull();
      await workspace.mkdir("/workspace/src", { recursive: true });
      expect(await workspace.stat("/workspace/src")).toMatchObject({ type: "directory" });
      await workspace.writeFile("src/app.ts", "export {}");
      await workspace.writeFile("/workspace/src/b.ts", "");
      await workspace.writeFile("/workspace/src/lib/c.json", "{}");
      const [info] = await workspace.readDir("/workspace/src", { limit: 1 });
      expect(info).toMatchObject({ name: "app.ts", type: "file", mimeType: "text/typescript" });
      const paged = await workspace.readDir("src", { limit: 5, offset: 1 });
      expect(paged.map((entry) => [entry.name, entry.type])).toEqual([
        ["b.ts", "file"],
        ["lib", "directory"],
      ]);
      const glob = async (pattern: string) => (await workspace.glob(pattern)).map((entry) => entry.path);
      expect(await glob("/workspace/src/?.ts")).toEqual(["/workspace/src/b.ts"]);
      expect(await glob("src/**/*.json")).toEqual(["/workspace/src/lib/c.json"]);
      expect(await glob("/workspace/src/app.ts")).toEqual(["/workspace/src/app.ts"]);
      expect(await glob("/nowhere/**")).toEqual([]);
      expect((await workspace.stat("src/lib/c.json"))?.mimeType).toBe("application/json");
    });
    const plain = env.PLAIN_WORKSPACE.get(env.PLAIN_WORKSPACE.newUniqueId());
    await runInDurableObject(plain, async (instance) => {
      const workspace = (instance as unknown as { [WORKSPACE_INSTANCE]: Workspace })[WORKSPACE_INSTANCE];
      expect(workspace.useThink).toBe(false);
      expect(workspace.readFile).toBeUndefined();
    });
  });
});

describe("getWorkspace in the same isolate", () => {
  it("uses the Workspace directly, with a no-op dispose", async () => {
    const object = objectNamed();
    await inObject(object, async (instance) => {
      const client = await getWorkspace(instance);
      await client.fs.mkdir("/workspace");
      await client.fs.writeFile("/local", "in-isolate");
      expect(await workspaceOf(instance).fs.readFile("/local", "utf8")).toBe("in-isolate");
      expect(instance.stubs).toHaveLength(0);
      client[Symbol.dispose]();
      expect(await client.fs.exists("/local")).toBe(true);
      expect(await client.fs.statOrNull("/nope")).toBeNull();
      const handle = await client.runtime.exec`cat ${"/local"}`;
      expect(handle.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(await handle.result()).toMatchObject({ stdout: "in-isolate", exitCode: 0 });
      if (!client.useThink) throw new Error("expected a Think workspace");
      expect(await client.readFile?.("/missing")).toBeNull();
      await expect(client.git.cli({ argv: [] })).rejects.toThrow(/git is not configured/);
    });
  });
});

describe("client.fs.db and client.fs.now (the original's WorkspaceFilesystem members)", () => {
  it("in the object's own isolate: the workspace's database and clock", async () => {
    const object = objectNamed();
    await inObject(object, async (instance) => {
      const client = await getWorkspace(instance);
      await client.fs.writeFile("/f", "x");
      const workspace = workspaceOf(instance);
      expect(client.fs.db).toBe(workspace.fs.db);
      expect(client.fs.db.scalar<number>("SELECT count(*) FROM vfs_dirents WHERE name = ?", "f")).toBe(1);
      const before = Date.now();
      expect(client.fs.now()).toBeGreaterThanOrEqual(before);
    });
  });

  it("over RPC: a clock, and a clear error for the database", async () => {
    await withClient(async (client) => {
      expect(typeof client.fs.now()).toBe("number");
      expect(() => client.fs.db).toThrow(/only in the Durable Object's own isolate/);
      // The verbs are unaffected.
      await client.fs.writeFile("/g", "y");
      expect(await client.fs.readFile("/g", "utf8")).toBe("y");
    });
  });
});
