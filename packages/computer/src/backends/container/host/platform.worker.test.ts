/**
 * The Cloudflare side of the container seam against a stand-in for
 * `ctx.container` (the platform's control plane cannot run here): launch,
 * adopt and relaunch (24, 25), exit records and stale monitors, and the
 * mixin's choice between the platform and the local container host.
 */
import { describe, expect, it } from "vitest";
import { MemoryStorage } from "../../../../test/memory-storage.js";
import { waitFor } from "../../../../test/wait.js";
import { containerFromAPI, seamOf, WorkspaceContainerAPI } from "./container-api.worker.js";
import { CONTAINER_HOST_ENV, withWorkspaceContainer } from "./mixin.worker.js";
import { CloudflarePlatformContainer, type PlatformContainer } from "./platform.worker.js";

/** A stand-in for `ctx.container`: one process at a time, whose end the test decides. */
class FakePlatform implements PlatformContainer {
  running = false;
  starts: { env?: Record<string, string>; enableInternet?: boolean }[] = [];
  destroys = 0;
  intercepted: string[] = [];
  #end: ((error?: Error) => void) | undefined;

  start(options?: { env?: Record<string, string>; enableInternet?: boolean }): void {
    this.running = true;
    this.starts.push(options ?? {});
  }
  monitor(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#end = (error) => {
        this.running = false;
        if (error) reject(error);
        else resolve();
      };
    });
  }
  /** The process ends: cleanly, or with an error carrying an exit code. */
  exit(code?: number): void {
    this.#end?.(code === undefined ? undefined : Object.assign(new Error(`exited ${code}`), { exitCode: code }));
  }
  async destroy(): Promise<void> {
    this.destroys++;
    this.exit(137);
  }
  getTcpPort(port: number) {
    return { fetch: async (request: Request) => new Response(`${port} ${new URL(request.url).pathname}`) };
  }
  async setInactivityTimeout(): Promise<void> {}
  async interceptOutboundHttp(addr: string): Promise<void> {
    this.intercepted.push(addr);
  }
  async interceptAllOutboundHttp(): Promise<void> {
    this.intercepted.push("*");
  }
  async interceptOutboundHttps(addr: string): Promise<void> {
    this.intercepted.push(`https:${addr}`);
  }
}

const launch = { env: { PORT: "8080", RPC_CLIENT_SECRET: "k" }, enableInternet: false };
const fetcher = {} as Fetcher;

describe("CloudflarePlatformContainer", () => {
  it("launches, adopts a matching container after a restart of the object, relaunches on change (24, 25)", async () => {
    const platform = new FakePlatform();
    const storage = new MemoryStorage();
    const first = new CloudflarePlatformContainer({ container: platform, storage, proxy: () => fetcher });
    const launched = await first.start(launch);
    expect(launched.status).toBe("launched");
    expect(platform.starts).toEqual([{ env: launch.env, enableInternet: false }]);

    // A new incarnation of the object sees the same running container and the same storage.
    const second = new CloudflarePlatformContainer({ container: platform, storage, proxy: () => fetcher });
    expect(await second.start(launch)).toEqual({ status: "adopted", runtimeId: launched.runtimeId });
    expect(platform.starts).toHaveLength(1);

    const changed = await second.start({ ...launch, env: { ...launch.env, EXTRA: "1" } });
    expect(changed.status).toBe("relaunched");
    expect(changed.runtimeId).not.toBe(launched.runtimeId);
    expect(platform.destroys).toBe(1);
    const internet = await second.start({ ...launch, env: { ...launch.env, EXTRA: "1" }, enableInternet: true });
    expect(internet.status).toBe("relaunched");
  });

  it("records how the container ended, ignores a stale monitor, and refuses port fetches after an exit", async () => {
    const platform = new FakePlatform();
    const storage = new MemoryStorage();
    const container = new CloudflarePlatformContainer({ container: platform, storage, proxy: () => fetcher });
    const first = await container.start(launch);
    expect(await (await container.fetchPort(8080, new Request("http://c/health"))).text()).toBe("8080 /health");
    platform.exit(3);
    await waitFor(async () => (await container.exitInfo()) !== undefined, "the monitor to record the exit");
    expect(await container.exitInfo()).toMatchObject({ runtimeId: first.runtimeId, exitCode: 3 });
    await expect(container.fetchPort(8080, new Request("http://c/health"))).rejects.toThrow(/container exited: 3/);

    const restarted = await container.restart(launch);
    expect(restarted.status).toBe("relaunched");
    expect(await container.start(launch)).toEqual({ status: "adopted", runtimeId: restarted.runtimeId });
  });

  it("routes outbound interception to the proxy with the gateway token in its props", async () => {
    const platform = new FakePlatform();
    const seen: unknown[] = [];
    const container = new CloudflarePlatformContainer({
      container: platform,
      storage: new MemoryStorage(),
      proxy: (props, workspace) => {
        seen.push(workspace === undefined ? props : { ...props, workspace });
        return fetcher;
      },
    });
    await container.interceptOutboundHttp("computer.internal");
    await container.interceptAllOutboundHttp("t0k3n");
    expect(platform.intercepted).toEqual(["computer.internal", "*", "https:*"]);
    // The original's prop name, egressToken.
    expect(seen).toEqual([{}, { egressToken: "t0k3n" }]);
    // The backend's `workspace` option reaches the proxy (binding and id for WorkspaceProxy).
    container.useWorkspace({ binding: "AGENT", id: "abc" });
    await container.interceptOutboundHttp("computer.internal");
    expect(seen.at(-1)).toEqual({ workspace: { binding: "AGENT", id: "abc" } });
    expect((await container.dispatch(new Request("http://computer.internal/api"))).status).toBe(404);
    container.serve(async () => new Response("handled"));
    expect(await (await container.dispatch(new Request("http://computer.internal/api"))).text()).toBe("handled");
  });
});

describe("withWorkspaceContainer", () => {
  class Plain {
    constructor(
      readonly ctx: DurableObjectState,
      readonly env: unknown,
    ) {}
  }
  const state = (extra: Record<string, unknown>) =>
    ({
      id: { toString: () => "a1b2" },
      storage: new MemoryStorage(),
      ...extra,
    }) as unknown as DurableObjectState;

  it("uses ctx.container by default and the local container host when configured", () => {
    const Agent = withWorkspaceContainer(Plain, { binding: "AGENT" });
    const onPlatform = new (
      Agent as unknown as new (
        ctx: DurableObjectState,
        env: unknown,
      ) => InstanceType<typeof Agent>
    )(state({ container: new FakePlatform() }), {});
    expect(onPlatform.getWorkspaceContainer()).toBeInstanceOf(WorkspaceContainerAPI);
    expect(seamOf(onPlatform.getWorkspaceContainer())).toBeInstanceOf(CloudflarePlatformContainer);
    expect(onPlatform.getWorkspaceContainer()).toBe(onPlatform.getWorkspaceContainer());

    const local = new (Agent as unknown as new (ctx: DurableObjectState, env: unknown) => InstanceType<typeof Agent>)(
      state({}),
      { [CONTAINER_HOST_ENV]: "http://127.0.0.1:45600" },
    );
    const container = seamOf(local.getWorkspaceContainer());
    expect(container).not.toBeInstanceOf(CloudflarePlatformContainer);
    expect(container?.dial?.().base).toBe("http://127.0.0.1:45600/v1/containers/a1b2/callback");
  });

  it("says what to configure when there is no container at all", () => {
    const Agent = withWorkspaceContainer(Plain, { binding: "AGENT" });
    const bare = new (Agent as unknown as new (ctx: DurableObjectState, env: unknown) => InstanceType<typeof Agent>)(
      state({}),
      {},
    );
    expect(() => bare.getWorkspaceContainer()).toThrow(/containers.*COMPUTER_CONTAINER_HOST/);
    expect(() => withWorkspaceContainer(Plain, { binding: "" })).toThrow(/binding/);
  });

  it("takes no options, as the original does: the binding then comes from the backend's workspace option", async () => {
    const Agent = withWorkspaceContainer(Plain);
    const made: unknown[] = [];
    const exports = {
      WorkspaceProxy: (init: { props: unknown }) => {
        made.push(init.props);
        return fetcher;
      },
    };
    const object = new (Agent as unknown as new (ctx: DurableObjectState, env: unknown) => InstanceType<typeof Agent>)(
      state({ container: new FakePlatform(), exports }),
      {},
    );
    const container = seamOf(object.getWorkspaceContainer());
    await expect(container?.interceptOutboundHttp("computer.internal")).rejects.toThrow(
      /pass workspace: \{ binding, id \} to CloudflareContainerBackend/,
    );
    // The original's form names the workspace on each call.
    await object.getWorkspaceContainer().interceptAllOutboundHttp({ binding: "AGENT", id: "a1b2" }, "t0k3n");
    expect(made).toEqual([{ binding: "AGENT", id: "a1b2", egressToken: "t0k3n" }]);
  });
});

describe("WorkspaceContainerAPI (the original's container API)", () => {
  const state = (extra: Record<string, unknown>) =>
    ({ id: { toString: () => "c3d4" }, storage: new MemoryStorage(), ...extra }) as unknown as DurableObjectState;

  it("new WorkspaceContainerAPI(ctx) drives ctx.container with the original's methods", async () => {
    const platform = new FakePlatform();
    const made: unknown[] = [];
    const exports = {
      WorkspaceProxy: (init: { props: unknown }) => {
        made.push(init.props);
        return fetcher;
      },
    };
    const api = new WorkspaceContainerAPI(state({ container: platform, exports }));
    expect(await api.status()).toEqual({ running: false, exit: null });
    const { runtimeId } = await api.start({ PORT: "8080" }, true);
    expect(platform.starts).toEqual([{ env: { PORT: "8080" }, enableInternet: true }]);
    // Started again with the same environment, the running container is adopted.
    expect(await api.start({ PORT: "8080" }, true)).toEqual({ runtimeId });
    expect(await api.status()).toEqual({ running: true, exit: null });

    expect(await (await api.fetchPort(8080, "http://container/health", { method: "HEAD" })).text()).toBe(
      "8080 /health",
    );
    // On Cloudflare's container, port(n) is the platform's own Fetcher.
    expect(await (await api.port(9000).fetch(new Request("http://container/x"))).text()).toBe("9000 /x");

    const ref = { binding: "AGENT", id: "c3d4" };
    await api.interceptOutboundHttp("computer.internal", ref);
    await api.interceptAllOutboundHttp(ref, "t0k3n");
    expect(made).toEqual([ref, { ...ref, egressToken: "t0k3n" }]);

    platform.exit(3);
    await waitFor(async () => (await api.exitInfo()) !== null, "the monitor to record the exit");
    const exit = await api.exitInfo();
    expect(exit).toEqual({ exitedAt: expect.any(Number), reason: "exited 3" });
    expect(await api.status()).toEqual({ running: false, exit });
    await expect(api.fetchPort(8080, "http://container/health")).rejects.toThrow(/container exited: 3/);
    const restarted = await api.restart({ PORT: "8080" }, false);
    expect(restarted.runtimeId).not.toBe(runtimeId);
  });

  it("refuses a Durable Object without a container, saying what to configure", () => {
    expect(() => new WorkspaceContainerAPI(state({}))).toThrow(/no container.*COMPUTER_CONTAINER_HOST/);
  });

  it("containerFromAPI drives an object with only the original's methods, replacing what ran before its first start", async () => {
    const calls: unknown[] = [];
    const api = new WorkspaceContainerAPI(state({ container: new FakePlatform(), exports: {} }));
    const recorded = new Proxy(api, {
      get(target, name) {
        const value = Reflect.get(target, name);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          calls.push([name, ...args]);
          return value.apply(target, args);
        };
      },
    });
    const seam = containerFromAPI(recorded, { workspace: { binding: "AGENT", id: "c3d4" }, port: 8080 });
    const secret = await seam.secret();
    expect(secret).toMatch(/^[0-9a-f]{32}$/);
    expect(await seam.secret()).toBe(secret);
    const first = await seam.start({ env: { K: secret }, enableInternet: false });
    expect(first.status).toBe("launched");
    expect(await seam.start({ env: { K: secret }, enableInternet: false })).toEqual({
      status: "adopted",
      runtimeId: first.runtimeId,
    });
    expect(await seam.status()).toBe("running");
    expect(await seam.exitInfo()).toBeUndefined();
    expect(calls.slice(0, 2)).toEqual([
      ["restart", { K: secret }, false],
      ["start", { K: secret }, false],
    ]);
    // Over a seam without a platform Fetcher, port(n) fetches through fetchPort and refuses raw TCP.
    const wrapped = new WorkspaceContainerAPI(state({}), seam);
    expect(await (await wrapped.port(8080).fetch("http://container/y")).text()).toBe("8080 /y");
    expect(() => wrapped.port(8080).connect("container:8080")).toThrow(/raw TCP to the container is not supported/);
    const bare = containerFromAPI(recorded, { workspace: undefined, port: 8080 });
    await expect(bare.interceptOutboundHttp("computer.internal")).rejects.toThrow(/needs workspace: \{ binding, id \}/);
  });
});
