/**
 * A Workspace Durable Object on the container backend, as a user would write
 * it, with the container chosen by configuration: the local container host
 * here (its URL arrives per test through `connectTo`), Cloudflare's container
 * in production.
 */
import { DurableObject } from "cloudflare:workers";
import { CloudflareContainerBackend } from "../../src/backends/container/host/backend.worker.js";
import { localContainer } from "../../src/backends/container/host/local.js";
import { CONTAINER_HOST_ENV, withWorkspaceContainer } from "../../src/backends/container/host/mixin.worker.js";
import type { WorkspaceEgressPolicy } from "../../src/backends/container/host/types.js";
import { sqlSyncRetryScheduler } from "../../src/runtime/retry.js";
import { withWorkspace, workspaceOf } from "../../src/workspace/with-workspace.worker.js";

function containerOptions(egress: WorkspaceEgressPolicy) {
  return (self: { ctx: DurableObjectState; hostUrl?: string }) => ({
    storage: self.ctx.storage,
    backends: [
      new CloudflareContainerBackend({
        container: async () => {
          const url = self.hostUrl ?? (await self.ctx.storage.get<string>("test:host-url"));
          if (!url) throw new Error("test: call connectTo(hostUrl) first");
          return localContainer({ url, name: self.ctx.id.toString(), storage: self.ctx.storage });
        },
        heartbeatIntervalMs: 0,
        connectTimeoutMs: 20_000,
        egress,
      }),
    ],
    // As a host would wire it: every change of the pending intents points the alarm at the next retry.
    retryScheduler: sqlSyncRetryScheduler(self.ctx.storage, {
      onChange: (at) => (at === undefined ? self.ctx.storage.deleteAlarm() : self.ctx.storage.setAlarm(at)),
    }),
  });
}

/** The default egress, `none`: commands reach nothing outside. */
export class ContainerWorkspaceObject extends withWorkspace(DurableObject<Cloudflare.Env>, (self) =>
  containerOptions({ mode: "none" })(self as unknown as { ctx: DurableObjectState; hostUrl?: string }),
) {
  hostUrl: string | undefined;

  /** Points this object at the test's container host (kept in storage so a restarted object still knows). */
  async connectTo(url: string): Promise<void> {
    this.hostUrl = url;
    await this.ctx.storage.put("test:host-url", url);
  }

  /** Pending syncs are retried here. */
  override async alarm(): Promise<void> {
    await workspaceOf(this).retryPendingSync();
  }
}

/** Egress `direct`: the container has the network. */
export class DirectContainerWorkspaceObject extends withWorkspace(DurableObject<Cloudflare.Env>, (self) =>
  containerOptions({ mode: "direct" })(self as unknown as { ctx: DurableObjectState; hostUrl?: string }),
) {
  hostUrl: string | undefined;

  async connectTo(url: string): Promise<void> {
    this.hostUrl = url;
    await this.ctx.storage.put("test:host-url", url);
  }
}

/**
 * The gateway of the `http-gateway` object: it answers every request a
 * command makes with what it saw, so the command's output shows it. `/gzip`
 * answers with a `content-encoding` header over a body workerd holds decoded.
 */
export const echoGateway = {
  async fetch(request: Request): Promise<Response> {
    if (new URL(request.url).pathname === "/gzip") {
      return new Response("decoded by workerd\n", { headers: { "content-encoding": "gzip" } });
    }
    const seen = {
      url: request.url,
      method: request.method,
      // Bytes decoded by hand: request.text() warns about a form content type.
      body: new TextDecoder().decode(await request.arrayBuffer()),
      headers: [...request.headers.keys()],
    };
    return Response.json(seen, { headers: { "x-gateway": "echo" } });
  },
};

/** Egress `http-gateway`: commands reach nothing but `echoGateway`. */
export class GatewayContainerWorkspaceObject extends withWorkspace(DurableObject<Cloudflare.Env>, (self) =>
  containerOptions({ mode: "http-gateway", gateway: echoGateway })(
    self as unknown as { ctx: DurableObjectState; hostUrl?: string },
  ),
) {
  hostUrl: string | undefined;

  async connectTo(url: string): Promise<void> {
    this.hostUrl = url;
    await this.ctx.storage.put("test:host-url", url);
  }
}

/**
 * Wired as the original's docs wire it: `withWorkspaceContainer(Base)` with no
 * options, `container: () => self`, the object named by `workspace`. The
 * container is chosen by `COMPUTER_CONTAINER_HOST` in the environment, which
 * `connectTo` adds here (a deployment sets it in wrangler config, or not at all).
 */
export class OriginalWiringWorkspaceObject extends withWorkspace(
  withWorkspaceContainer(DurableObject<Cloudflare.Env>),
  (self) => ({
    storage: self.ctx.storage,
    backends: [
      new CloudflareContainerBackend({
        container: () => self,
        workspace: { binding: "ORIGINAL_WIRING_WORKSPACE", id: self.ctx.id.toString() },
        containerPort: 8080,
        healthProbeTimeoutMs: 2000,
        heartbeatIntervalMs: 0,
        connectTimeoutMs: 20_000,
      }),
    ],
  }),
) {
  async connectTo(url: string): Promise<void> {
    const env = this.env as unknown as Record<string, unknown>;
    (this as unknown as { env: Record<string, unknown> }).env = { ...env, [CONTAINER_HOST_ENV]: url };
  }
}

export default {
  fetch(): Response {
    return new Response("computer container test worker");
  },
} satisfies ExportedHandler;

/** A bare SQLite Durable Object: the TestBackend tests build a Workspace over its storage themselves. */
export class ScratchObject extends DurableObject<Cloudflare.Env> {}
