/**
 * The container backend's own rules, against a scripted container seam (the
 * one part Cloudflare owns): handleFetch's answers, the connect stages and
 * their errors, launch decisions, and egress. The end-to-end path with real
 * computerd processes is in test/container/.
 */
import { describe, expect, it } from "vitest";
import { MemoryStorage } from "../../../../test/memory-storage.js";
import { waitFor } from "../../../../test/wait.js";
import { CloudflareContainerBackend } from "./backend.worker.js";
import { EGRESS_TOKEN_HEADER, EGRESS_URL_HEADER } from "./egress.js";
import { CONTAINER_STORAGE_KEYS, decideLaunch, recordExit, recordLaunch } from "./launch.js";
import type { ContainerExit, ContainerLaunch, WorkspaceContainer } from "./types.js";

/** A container whose port answers with `answer`; records launches and restarts. */
class ScriptedContainer implements WorkspaceContainer {
  readonly port = 8080;
  readonly launches: ContainerLaunch[] = [];
  restarts = 0;
  exit: ContainerExit | undefined;
  readonly intercepted: string[] = [];

  constructor(readonly answer: (request: Request) => Response | Promise<Response>) {}

  async start(launch: ContainerLaunch) {
    this.launches.push(launch);
    return { status: "launched" as const, runtimeId: "r1" };
  }
  async restart(launch: ContainerLaunch) {
    this.launches.push(launch);
    this.restarts++;
    return { status: "relaunched" as const, runtimeId: `r${this.restarts + 1}` };
  }
  async status() {
    return "running" as const;
  }
  async exitInfo() {
    return this.exit;
  }
  async fetchPort(_port: number, request: Request) {
    return this.answer(request);
  }
  async setInactivityTimeout() {}
  async interceptOutboundHttp(host: string) {
    this.intercepted.push(host);
  }
  async interceptAllOutboundHttp() {
    this.intercepted.push("*");
  }
  async secret() {
    return "s3cret";
  }
}

const upgrade = (headers: Record<string, string> = {}) =>
  new Request("http://computer.internal/api", { headers: { upgrade: "websocket", ...headers } });

describe("handleFetch (27)", () => {
  it("answers 404, 400, 401 and 409 in that order, and 101 when a connect is waiting", async () => {
    let connectBody: unknown;
    const container = new ScriptedContainer(async (request) => {
      const path = new URL(request.url).pathname;
      if (path === "/health") return new Response(null, { status: 200 });
      if (path === "/api") return new Response("no", { status: 401 });
      connectBody = await request.json();
      return Response.json({ ok: true });
    });
    const backend = new CloudflareContainerBackend({ container: () => container, heartbeatIntervalMs: 0 });
    expect((await backend.handleFetch(new Request("http://computer.internal/other"))).status).toBe(404);
    expect((await backend.handleFetch(new Request("http://computer.internal/api"))).status).toBe(400);
    // Before any connect there is no secret yet: nobody is let in.
    expect((await backend.handleFetch(upgrade({ authorization: "Bearer s3cret" }))).status).toBe(401);

    const connecting = backend.connect();
    await waitFor(() => connectBody !== undefined, "the POST /connect");
    expect(connectBody).toEqual({
      base: "http://computer.internal",
      health: "/health",
      api: "/api",
      healthTimeoutMs: expect.any(Number),
    });
    const refused = await backend.handleFetch(upgrade({ authorization: "Bearer wrong" }));
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe("Bearer");
    const accepted = await backend.handleFetch(upgrade({ authorization: "bEaReR s3cret" }));
    expect(accepted.status).toBe(101);
    accepted.webSocket?.accept();
    expect((await backend.handleFetch(upgrade({ authorization: "Bearer s3cret" }))).status).toBe(409);
    const handle = await connecting;
    expect(handle.runtimeId).toBe("r1");
    expect(container.intercepted).toEqual(["computer.internal"]);
    expect(container.launches[0]?.env).toMatchObject({
      PORT: "8080",
      MOUNT_POINT: "/workspace",
      RPC_CLIENT_SECRET: "s3cret",
    });
    accepted.webSocket?.close();
    await handle.close();
  });
});

describe("heartbeat (29)", () => {
  it("a peer that stops answering fails the heartbeat, which closes the connection", async () => {
    let connected = false;
    const container = new ScriptedContainer(async (request) => {
      const path = new URL(request.url).pathname;
      if (path === "/health") return new Response(null);
      if (path === "/api") return new Response("no", { status: 401 });
      connected = true;
      return Response.json({ ok: true });
    });
    const backend = new CloudflareContainerBackend({ container: () => container, heartbeatIntervalMs: 50 });
    const connecting = backend.connect();
    await waitFor(() => connected, "the POST /connect");
    const accepted = await backend.handleFetch(upgrade({ authorization: "Bearer s3cret" }));
    // The container end is accepted but never answers: a wedged daemon.
    accepted.webSocket?.accept();
    const handle = await connecting;
    let closed = false;
    void handle.closed.then(() => {
      closed = true;
    });
    await handle.closed;
    expect(closed).toBe(true);
  });
});

describe("connect stages", () => {
  it("(26) fails at stage=auth when /api answers strangers with anything but 401", async () => {
    const container = new ScriptedContainer((request) =>
      new URL(request.url).pathname === "/health" ? new Response(null) : new Response("welcome"),
    );
    const backend = new CloudflareContainerBackend({ container: () => container, heartbeatIntervalMs: 0 });
    await expect(backend.connect()).rejects.toMatchObject({
      name: "WorkspaceTransportError",
      stage: "auth",
      message: expect.stringMatching(/connect failed at stage=auth port=8080 .*expected 401/),
    });
  });

  it("(28) restarts once when /health never answers, then reports stage=health with the prior exit", async () => {
    const container = new ScriptedContainer(() => {
      throw new Error("connection refused");
    });
    container.exit = { exitCode: 137, at: 1, message: "oom" };
    const backend = new CloudflareContainerBackend({
      container: () => container,
      heartbeatIntervalMs: 0,
      connectTimeoutMs: 600,
    });
    await expect(backend.connect()).rejects.toThrow(
      /connect failed at stage=health port=8080 attempt=2\/2 restarts=1 timeoutMs=600 priorExit=137\(oom\) lastError=.*refused/,
    );
    expect(container.restarts).toBe(1);
  });

  it("names the start stage when the container cannot start", async () => {
    const container = new ScriptedContainer(() => new Response(null));
    container.start = async () => {
      throw new Error("no capacity");
    };
    const backend = new CloudflareContainerBackend({ container: () => container, heartbeatIntervalMs: 0 });
    await expect(backend.connect()).rejects.toMatchObject({ stage: "start", message: /stage=start .*no capacity/ });
  });

  it("rejects bad options clearly", () => {
    const container = () => new ScriptedContainer(() => new Response(null));
    expect(() => new CloudflareContainerBackend({ container, port: 70_000 })).toThrow(/port/);
    expect(() => new CloudflareContainerBackend({ container, connectTimeoutMs: 0 })).toThrow(/connectTimeoutMs/);
    expect(() => new CloudflareContainerBackend({} as never)).toThrow(/needs container/);
  });
});

describe("egress (30)", () => {
  it("none launches without internet, direct with it, http-gateway without it and intercepting everything", async () => {
    const gateway = { fetch: async () => new Response() };
    for (const [egress, internet, intercepted] of [
      [{ mode: "none" }, false, ["computer.internal"]],
      [{ mode: "direct" }, true, ["computer.internal"]],
      [{ mode: "http-gateway", gateway }, false, ["computer.internal", "*"]],
    ] as const) {
      const container = new ScriptedContainer(() => {
        throw new Error("stop here");
      });
      const backend = new CloudflareContainerBackend({
        container: () => container,
        egress,
        heartbeatIntervalMs: 0,
        connectTimeoutMs: 300,
        restartAttempts: 0,
      });
      await backend.connect().catch(() => {});
      // The mode travels with the launch: the local container host builds the commands' network from it.
      expect(container.launches[0]).toMatchObject({ enableInternet: internet, egress: egress.mode });
      expect(container.intercepted).toEqual(intercepted);
    }
  });

  it("http-gateway: the gateway sees the original request without the token headers; bad ones never reach it", async () => {
    const seen: { url: string; method: string; body: string; headers: string[] }[] = [];
    const gateway = {
      fetch: async (request: Request) => {
        seen.push({
          url: request.url,
          method: request.method,
          body: await request.text(),
          headers: [...request.headers.keys()],
        });
        return new Response("from gateway");
      },
    };
    const container = new ScriptedContainer(() => new Response(null));
    const backend = new CloudflareContainerBackend({
      container: () => container,
      egress: { mode: "http-gateway", gateway },
    });
    const headers = backend.egressHeaders("https://example.com/data?q=1");
    const response = await backend.handleFetch(
      new Request("http://computer.internal/api", {
        method: "POST",
        headers: { ...headers, "x-app": "1" },
        body: "payload",
      }),
    );
    expect(await response.text()).toBe("from gateway");
    expect(seen).toEqual([
      { url: "https://example.com/data?q=1", method: "POST", body: "payload", headers: expect.any(Array) },
    ]);
    expect(seen[0]?.headers).toContain("x-app");
    expect(seen[0]?.headers).not.toContain(EGRESS_TOKEN_HEADER);
    expect(seen[0]?.headers).not.toContain(EGRESS_URL_HEADER);

    const wrongToken = await backend.handleFetch(
      new Request("http://computer.internal/api", { headers: { ...headers, [EGRESS_TOKEN_HEADER]: "guess" } }),
    );
    expect(wrongToken.status).toBe(404);
    const notHttp = await backend.handleFetch(
      new Request("http://computer.internal/api", { headers: backend.egressHeaders("ftp://example.com/x") }),
    );
    expect(notHttp.status).toBe(400);
    expect(seen).toHaveLength(1);
  });
});

describe("launch records (24, 25)", () => {
  const launch = { env: { PORT: "8080", A: "1", RPC_CLIENT_SECRET: "x" }, enableInternet: false };

  it("launches when nothing runs, adopts a matching container, relaunches on any difference", async () => {
    const storage = new MemoryStorage();
    expect(await decideLaunch(storage, false, launch)).toEqual({ action: "launch" });
    // Running but no record: not ours to trust.
    expect(await decideLaunch(storage, true, launch)).toEqual({ action: "relaunch" });
    const runtimeId = await recordLaunch(storage, launch);
    expect(await decideLaunch(storage, true, launch)).toEqual({ action: "adopt", runtimeId });
    // The secret is not part of the record: rotating it is not a new launch.
    expect(await decideLaunch(storage, true, { ...launch, env: { ...launch.env, RPC_CLIENT_SECRET: "y" } })).toEqual({
      action: "adopt",
      runtimeId,
    });
    expect(await decideLaunch(storage, true, { ...launch, env: { ...launch.env, A: "2" } })).toEqual({
      action: "relaunch",
    });
    expect(await decideLaunch(storage, true, { ...launch, enableInternet: true })).toEqual({ action: "relaunch" });
    // Launched for none, wanted for http-gateway: the local host's network differs, so not adopted.
    expect(await decideLaunch(storage, true, { ...launch, egress: "http-gateway" })).toEqual({ action: "relaunch" });
    expect(await decideLaunch(storage, true, { ...launch, egress: "none" })).toEqual({ action: "adopt", runtimeId });
  });

  it("a record from before egress modes were recorded reads as none or direct, from enableInternet", async () => {
    const storage = new MemoryStorage();
    const runtimeId = await recordLaunch(storage, launch);
    const record = storage.map.get(CONTAINER_STORAGE_KEYS.launchRecord) as Record<string, unknown>;
    expect(record.egress).toBe("none");
    delete record.egress;
    expect(await decideLaunch(storage, true, { ...launch, egress: "none" })).toEqual({ action: "adopt", runtimeId });
    expect(await decideLaunch(storage, true, { ...launch, egress: "http-gateway" })).toEqual({ action: "relaunch" });
  });

  it("an exit clears the runtime id only if it is still the current one", async () => {
    const storage = new MemoryStorage();
    const first = await recordLaunch(storage, launch);
    const second = await recordLaunch(storage, launch);
    await recordExit(storage, first);
    expect(storage.map.get(CONTAINER_STORAGE_KEYS.runtimeIdentity)).toBe(second);
    await recordExit(storage, second);
    expect(storage.map.has(CONTAINER_STORAGE_KEYS.runtimeIdentity)).toBe(false);
  });
});
