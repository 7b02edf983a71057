/**
 * The container backend end to end: a Workspace DO in workerd, computerd as a
 * real process with a real FUSE mount under the local container host, and
 * the capnweb session over computerd's dial-back.
 */
import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { WorkspaceContainerAPI } from "../../src/backends/container/host/container-api.worker.js";
import { EGRESS_TOKEN_HEADER, EGRESS_URL_HEADER } from "../../src/backends/container/host/egress.js";
import { WORKSPACE_INSTANCE } from "../../src/workspace/client.js";
import type { Workspace } from "../../src/workspace/workspace.worker.js";
import type { ContainerWorkspaceObject, OriginalWiringWorkspaceObject } from "./main.worker.js";

const utf8 = { encoding: "utf8" } as const;

type ContainerStub = DurableObjectStub<ContainerWorkspaceObject>;

type Egress = "none" | "direct" | "http-gateway";

function namespaceOf(egress: Egress): DurableObjectNamespace<ContainerWorkspaceObject> {
  const bindings = {
    none: env.CONTAINER_WORKSPACE,
    direct: env.DIRECT_CONTAINER_WORKSPACE,
    "http-gateway": env.GATEWAY_CONTAINER_WORKSPACE,
  };
  return bindings[egress] as unknown as DurableObjectNamespace<ContainerWorkspaceObject>;
}

function newObject(egress: Egress = "none"): ContainerStub {
  const namespace = namespaceOf(egress);
  return namespace.get(namespace.newUniqueId());
}

/** Runs `body` inside the object with its Workspace. The workspace stays open: the object may outlive the call. */
async function inObject<T>(stub: ContainerStub, body: (workspace: Workspace, name: string) => Promise<T>): Promise<T> {
  await stub.connectTo(inject("containerHost"));
  return runInDurableObject(stub, async (instance: ContainerWorkspaceObject, state) => {
    const workspace = (instance as unknown as Record<typeof WORKSPACE_INSTANCE, Workspace>)[WORKSPACE_INSTANCE];
    return body(workspace, state.id.toString());
  });
}

async function inContainerWorkspace(
  body: (workspace: Workspace, name: string) => Promise<void>,
  egress: Egress = "none",
): Promise<void> {
  const stub = newObject(egress);
  try {
    await inObject(stub, body);
  } finally {
    await hostCall(await inObject(stub, async (_workspace, name) => name), "stop");
  }
}

/** Tells the local container host to stop (clean) or kill (crash) this object's container. */
async function hostCall(name: string, action: "stop" | "kill"): Promise<void> {
  const response = await fetch(`${inject("containerHost")}/v1/containers/${name}/${action}`, { method: "POST" });
  expect(response.status).toBe(204);
}

/**
 * Arms a crash of this object's next computerd at an exact sync step
 * (`COMPUTERD_CRASH_AT`, e.g. `pushObjects:2`); the relaunch after it runs clean.
 */
async function crashAt(name: string, at: string): Promise<void> {
  const response = await fetch(`${inject("containerHost")}/v1/containers/${name}/crash-at`, {
    method: "POST",
    body: JSON.stringify({ at }),
  });
  expect(response.status).toBe(204);
}

async function collect(handle: ReadableStream<{ name: string }>): Promise<{ name: string }[]> {
  const events = [];
  for await (const event of handle) events.push(event);
  return events;
}

describe("container-shell on the local container host", () => {
  it("works wired the original's way: withWorkspaceContainer(Base), container: () => this, workspace", async () => {
    const stub = env.ORIGINAL_WIRING_WORKSPACE.get(env.ORIGINAL_WIRING_WORKSPACE.newUniqueId());
    await stub.connectTo(inject("containerHost"));
    const name = await runInDurableObject(stub, async (instance: OriginalWiringWorkspaceObject, state) => {
      const workspace = (instance as unknown as Record<typeof WORKSPACE_INSTANCE, Workspace>)[WORKSPACE_INSTANCE];
      await workspace.fs.mkdir("/workspace", { recursive: true });
      await workspace.fs.writeFile("/workspace/in.txt", "wired\n");
      const result = await (await workspace.runtime.exec("cat in.txt && echo back > out.txt", utf8)).result();
      expect(result).toMatchObject({ status: "completed", exitCode: 0, stdout: "wired\n" });
      expect(await workspace.fs.readFile("/workspace/out.txt", "utf8")).toBe("back\n");
      // The original's container API over the same container.
      const api = instance.getWorkspaceContainer();
      expect(api).toBeInstanceOf(WorkspaceContainerAPI);
      expect(await api.status()).toEqual({ running: true, exit: null });
      expect((await api.port(8080).fetch("http://container/health")).status).toBe(200);
      return state.id.toString();
    });
    await hostCall(name, "stop");
  });

  it("runs a command on a real computerd and brings its writes back", async () => {
    await inContainerWorkspace(async (workspace) => {
      await workspace.fs.mkdir("/workspace", { recursive: true });
      await workspace.fs.writeFile("/workspace/hello.txt", "from the durable object\n");
      const result = await (
        await workspace.runtime.exec("cat hello.txt && echo made > out.txt && uname -s", utf8)
      ).result();
      expect(result).toMatchObject({ status: "completed", exitCode: 0, stdout: "from the durable object\nLinux\n" });
      expect(result.pushed).toBeGreaterThan(0);
      expect(await workspace.fs.readFile("/workspace/out.txt", "utf8")).toBe("made\n");
    });
  });

  it("runs real tools in the mount: npm init, node, git", async () => {
    await inContainerWorkspace(async (workspace) => {
      const result = await (
        await workspace.runtime.exec(
          [
            "mkdir -p app && cd app",
            "npm init -y >/dev/null",
            "node -e 'const p=require(\"./package.json\"); console.log(p.name, p.version)'",
            "git init -q && git add package.json",
            "git -c user.name=t -c user.email=t@e commit -qm init && git log --format=%s",
          ].join(" && "),
          { ...utf8, timeoutMs: 60_000 },
        )
      ).result();
      expect(result).toMatchObject({ status: "completed", exitCode: 0, stdout: "app 1.0.0\ninit\n" });
      const manifest = JSON.parse(await workspace.fs.readFile("/workspace/app/package.json", "utf8")) as {
        name: string;
      };
      expect(manifest.name).toBe("app");
      expect((await workspace.fs.stat("/workspace/app/.git/HEAD")).isFile).toBe(true);
    });
  });

  it("streams output while the command runs, and kills it (143, cancelled)", async () => {
    await inContainerWorkspace(async (workspace) => {
      const handle = await workspace.runtime.exec("echo first; sleep 30; echo never", { ...utf8, id: "stream" });
      const reader = handle.getReader();
      expect((await reader.read()).value).toMatchObject({ name: "stdout", value: "first\n" });
      await workspace.runtime.killExec("stream");
      const rest = [];
      for (;;) {
        const next = await reader.read();
        if (next.done) break;
        rest.push(next.value);
      }
      expect(rest.at(-1)).toMatchObject({ name: "exit", code: 143 });
      const replay = await (await workspace.runtime.getExec("stream", utf8)).result();
      expect(replay).toMatchObject({ status: "cancelled", exitCode: 143, stdout: "first\n" });
    });
  });

  it("maps exits, timeouts, env and stdin like computerd does", async () => {
    await inContainerWorkspace(async (workspace) => {
      const run = async (source: string, options = {}) =>
        (await workspace.runtime.exec(source, { ...utf8, ...options })).result();
      expect(await run("exit 3")).toMatchObject({ status: "failed", exitCode: 3 });
      expect(await run("sleep 5", { timeoutMs: 100 })).toMatchObject({ status: "cancelled", exitCode: 143 });
      expect((await run("echo $WHO", { env: { WHO: "x" } })).stdout).toBe("x\n");
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a JS template
      expect((await run("echo ${WHO:-unset}")).stdout).toBe("unset\n");
      expect((await run("cat", { stdin: "piped" })).stdout).toBe("piped");
      expect(String((await run("echo $RPC_CLIENT_SECRET | wc -c")).stdout).trim()).toBe("1");
    });
  });

  it("survives a computerd crash: old executions are lost, the next exec relaunches", async () => {
    await inContainerWorkspace(async (workspace, name) => {
      await workspace.fs.mkdir("/workspace", { recursive: true });
      await workspace.fs.writeFile("/workspace/kept.txt", "durable\n");
      await (await workspace.runtime.exec("echo before > before.txt", { id: "before" })).result();
      const running = await workspace.runtime.exec("sleep 30", { id: "crashed" });
      const events = collect(running).catch((error: unknown) => error);
      await hostCall(name, "kill");
      await events;
      // Everything written before the crash was pulled already, or is still in the DO.
      const after = await (await workspace.runtime.exec("cat kept.txt before.txt", utf8)).result();
      expect(after).toMatchObject({ status: "completed", stdout: "durable\nbefore\n" });
      for (const id of ["before", "crashed"]) {
        await expect(workspace.runtime.getExec(id)).rejects.toMatchObject({ code: "EEXEC_LOST" });
      }
    });
  });

  it("adopts the running container after the Durable Object restarts, and reattaches", async () => {
    const id = env.CONTAINER_WORKSPACE.newUniqueId();
    const name = await inObject(env.CONTAINER_WORKSPACE.get(id), async (workspace, name) => {
      const handle = await workspace.runtime.exec("echo started; sleep 1; echo done > finished.txt", {
        ...utf8,
        id: "across",
      });
      const reader = handle.getReader();
      expect((await reader.read()).value).toMatchObject({ value: "started\n" });
      reader.releaseLock();
      return name;
    });
    await abortAllDurableObjects();
    // A stub from before the abort is broken for good; a new one reaches the new incarnation.
    const stub = env.CONTAINER_WORKSPACE.get(id);
    const result = await inObject(stub, async (workspace) =>
      (await workspace.runtime.getExec("across", utf8)).result(),
    );
    expect(result).toMatchObject({ status: "completed", exitCode: 0, stdout: "started\n" });
    expect(await inObject(stub, (workspace) => workspace.fs.readFile("/workspace/finished.txt", "utf8"))).toBe(
      "done\n",
    );
    await hostCall(name, "stop");
  });

  it("completes a deferred pull from the Durable Object's alarm", async () => {
    const stub = newObject();
    const name = await inObject(stub, async (workspace, name) => {
      const result = await (await workspace.runtime.exec("echo via-alarm > alarm.txt", { sync: "defer" })).result();
      expect(result.sync).toMatchObject({ status: "pending" });
      await expect(workspace.fs.stat("/workspace/alarm.txt")).rejects.toMatchObject({ code: "ENOENT" });
      return name;
    });
    // The scheduler set the alarm; running it retries the pending sync.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await inObject(stub, (workspace) => workspace.fs.readFile("/workspace/alarm.txt", "utf8"))).toBe(
      "via-alarm\n",
    );
    // Completed: the intent is gone, and so is the alarm.
    expect(await runDurableObjectAlarm(stub)).toBe(false);
    await hostCall(name, "stop");
  });

  it('defers the pull with sync: "defer" and completes it with retryPendingSync', async () => {
    await inContainerWorkspace(async (workspace) => {
      const result = await (await workspace.runtime.exec("echo later > deferred.txt", { sync: "defer" })).result();
      expect(result.sync).toMatchObject({ status: "pending", backend: "container-shell" });
      await expect(workspace.fs.stat("/workspace/deferred.txt")).rejects.toMatchObject({ code: "ENOENT" });
      expect(await workspace.retryPendingSync()).toMatchObject({ status: "complete" });
      expect(await workspace.fs.readFile("/workspace/deferred.txt", "utf8")).toBe("later\n");
    });
  });

  it("egress none: a command reaches nothing, not even a server on the host's loopback; direct reaches it", async () => {
    // The container host itself is a server on 127.0.0.1 outside the container.
    const probe = `node -e 'fetch("${inject("containerHost")}/health").then(() => console.log("reached"), () => process.exit(7))'`;
    await inContainerWorkspace(async (workspace) => {
      expect(await (await workspace.runtime.exec(probe, utf8)).result()).toMatchObject({ exitCode: 7, stdout: "" });
    });
    await inContainerWorkspace(async (workspace) => {
      expect(await (await workspace.runtime.exec(probe, utf8)).result()).toMatchObject({
        exitCode: 0,
        stdout: "reached\n",
      });
    }, "direct");
  });

  it("egress http-gateway: every HTTP(S) request of a command reaches the gateway, and nothing else is reachable", async () => {
    const host = inject("containerHost");
    await inContainerWorkspace(async (workspace) => {
      const run = async (source: string) => {
        const result = await (await workspace.runtime.exec(source, utf8)).result();
        return { ...result, stdout: String(result.stdout) };
      };
      // A server on the host's loopback, by address: answered by the gateway, not by the server.
      const posted = await run(`curl -sS --max-time 20 -X POST --data-binary 'sent body' ${host}/x?q=1`);
      expect(posted).toMatchObject({ exitCode: 0 });
      expect(JSON.parse(posted.stdout)).toEqual({
        url: `${host}/x?q=1`,
        method: "POST",
        body: "sent body",
        headers: expect.any(Array),
      });
      const headers = (JSON.parse(posted.stdout) as { headers: string[] }).headers;
      expect(headers).toContain("content-type");
      expect(headers).not.toContain(EGRESS_TOKEN_HEADER);
      expect(headers).not.toContain(EGRESS_URL_HEADER);
      // HTTPS to a name: no internet is needed, TLS ends at the host with a certificate the command trusts.
      const secure = await run("curl -sS --max-time 20 -i https://example.com/");
      expect(secure).toMatchObject({ exitCode: 0 });
      expect(secure.stdout).toMatch(/x-gateway: echo/i);
      expect(JSON.parse(secure.stdout.slice(secure.stdout.indexOf("{")))).toMatchObject({
        url: "https://example.com/",
        method: "GET",
        body: "",
      });
      // workerd holds bodies decoded: the gzip header is dropped rather than handed to curl over plain bytes.
      expect(await run("curl -sS --max-time 20 --compressed https://example.com/gzip")).toMatchObject({
        exitCode: 0,
        stdout: "decoded by workerd\n",
      });
      // Node's fetch, through the preload computerd gives node processes.
      const node = await run(
        `node -e 'fetch("https://example.com/n", { method: "PUT", body: "js" }).then((r) => r.json()).then((j) => console.log(j.method, j.url, j.body))'`,
      );
      expect(node).toMatchObject({ exitCode: 0, stdout: "PUT https://example.com/n js\n" });
      // Around the proxy there is nothing: not the host's loopback, not a name.
      expect(await run(`curl -sS --max-time 10 --noproxy '*' ${host}/health`)).toMatchObject({ exitCode: 7 });
      expect((await run("curl -sS --max-time 10 --noproxy '*' https://example.com/")).exitCode).not.toBe(0);
    }, "http-gateway");
  });

  it("egress http-gateway: a restarted Durable Object adopts its container and opens a new channel", async () => {
    const id = env.GATEWAY_CONTAINER_WORKSPACE.newUniqueId();
    const probe = "curl -sS --max-time 20 https://example.com/again";
    const first = env.GATEWAY_CONTAINER_WORKSPACE.get(id) as unknown as ContainerStub;
    const name = await inObject(first, async (workspace, name) => {
      const result = await (await workspace.runtime.exec(probe, { ...utf8, id: "before" })).result();
      expect(JSON.parse(String(result.stdout))).toMatchObject({ url: "https://example.com/again" });
      return name;
    });
    await abortAllDurableObjects();
    const again = env.GATEWAY_CONTAINER_WORKSPACE.get(id) as unknown as ContainerStub;
    await inObject(again, async (workspace) => {
      const result = await (await workspace.runtime.exec(probe, utf8)).result();
      expect(JSON.parse(String(result.stdout))).toMatchObject({ url: "https://example.com/again" });
      // Adopted, not relaunched: the execution from before the restart is still known.
      expect(await (await workspace.runtime.getExec("before", utf8)).result()).toMatchObject({ exitCode: 0 });
    });
    await hostCall(name, "stop");
  });

  it("a crash in the middle of a push loses nothing the Durable Object holds", async () => {
    await inContainerWorkspace(async (workspace, name) => {
      const big = new Uint8Array(24 * 1024 * 1024).map((_, i) => (i * 7) % 251);
      await workspace.fs.mkdir("/workspace", { recursive: true });
      await workspace.fs.writeFile("/workspace/big.bin", big);
      // 24 MiB is six 4 MiB blob batches: the daemon dies receiving the second, one batch staged, no entry applied.
      await crashAt(name, "pushObjects:2");
      // Nothing ran yet, so the runtime relaunches and repeats the push: the new container must get all of it,
      // although the dead one had staged a batch and the push cursor must not have moved.
      const first = await (await workspace.runtime.exec("wc -c < big.bin", utf8)).result();
      expect(first).toMatchObject({ status: "completed", stdout: `${big.byteLength}\n` });
      const again = await (await workspace.runtime.exec("wc -c < big.bin", utf8)).result();
      expect(again).toMatchObject({ status: "completed", stdout: `${big.byteLength}\n` });
      const stored = await workspace.fs.stat("/workspace/big.bin");
      expect(stored.size).toBe(big.byteLength);
    });
  });

  it("a crash in the middle of a pull leaves none of the file, and the pull pending", async () => {
    await inContainerWorkspace(async (workspace, name) => {
      const size = 24 * 1024 * 1024;
      // The daemon dies when the post-exec pull asks for the first blobs: the entries were listed, no chunk came.
      await crashAt(name, "fetchObjects:1");
      const handle = await workspace.runtime.exec(`head -c ${size} /dev/urandom > made.bin; sha256sum made.bin`, utf8);
      const result = await handle.result().catch((error: unknown) => error);
      // Nothing of the file: not a prefix, not an empty inode; the pull is pending, not complete.
      await expect(workspace.fs.stat("/workspace/made.bin")).rejects.toMatchObject({ code: "ENOENT" });
      expect(result).toMatchObject({ sync: { status: "pending" } });
      // Either way the workspace goes on working on the relaunched container.
      const after = await (await workspace.runtime.exec("echo alive", utf8)).result();
      expect(after).toMatchObject({ status: "completed", stdout: "alive\n" });
    });
  });
});
