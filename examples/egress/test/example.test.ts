/**
 * Drives `POST /fetch` under each EGRESS_MODE against real parts: the Worker
 * bundled the way wrangler would and served by Miniflare (SQLite Durable
 * Object, Worker Loader), a real computerd under a local container host
 * started here, and a local HTTP server on 127.0.0.1 standing in for the
 * allowed URL. One Miniflare per mode, as one deployment per mode would be.
 *
 * The container under `custom` (http-gateway) is in custom-container.test.ts.
 * Needs root (FUSE, namespaces) and the packages built.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningHost, startHost } from "@cloudflare/computerd/host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useExampleWorker } from "../../test-support/worker.js";
import type { FetchReport } from "../src/index.js";
import { type LocalServer, startLocalServer } from "./local-server.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
let host: RunningHost;
let server: LocalServer;
beforeAll(async () => {
  server = await startLocalServer();
  host = await startHost({ port: 0, log: () => {} });
});
afterAll(async () => {
  // Stops every computerd it started, which unmounts their /workspace.
  await host?.close();
  await server?.close();
});

/** The example under `mode`, its allowed URL on the local server; started after the hooks above. */
function exampleIn(mode: string) {
  return useExampleWorker(example, () => ({
    workerLoaders: { LOADER: {} },
    bindings: {
      EGRESS_MODE: mode,
      EGRESS_ALLOWED_URL: `${server.origin}/allowed`,
      COMPUTER_CONTAINER_HOST: host.url,
    },
  }));
}

async function fetchEverywhere(request: ReturnType<typeof exampleIn>["request"], url: string): Promise<FetchReport> {
  const response = await request(`/fetch?url=${encodeURIComponent(url)}`, { method: "POST" });
  expect(response.status).toBe(200);
  return (await response.json()) as FetchReport;
}

describe("EGRESS_MODE=none", () => {
  const { request } = exampleIn("none");

  it("reaches nothing from any backend, not even the allowed URL", async () => {
    const before = server.seen.length;
    const report = await fetchEverywhere(request, `${server.origin}/allowed`);
    expect(report).toMatchObject({ mode: "none", url: `${server.origin}/allowed` });
    for (const result of Object.values(report.results)) expect(result).toEqual({ error: expect.any(String) });
    // Each says why in its own words: curl in an empty network namespace, workerd with globalOutbound null.
    expect(report.results["container-shell"]).toEqual({ error: expect.stringContaining("curl: (7)") });
    expect(report.results["worker-shell"]).toEqual({ error: expect.stringContaining("not permitted to access") });
    expect(report.results["worker-javascript"]).toEqual({ error: expect.stringContaining("not permitted to access") });
    expect(server.seen.length).toBe(before);
  });

  it("answers GET / with the mode and refuses bad requests", async () => {
    const info = await request("/");
    expect(await info.json()).toEqual({
      mode: "none",
      allowed: `${server.origin}/allowed`,
      backends: ["container-shell", "worker-shell", "worker-javascript"],
      routes: ["POST /fetch?url=<url>"],
    });
    expect((await request("/fetch?url=not%20a%20url", { method: "POST" })).status).toBe(400);
    const ftp = await request("/fetch?url=ftp%3A%2F%2F127.0.0.1%2Fx", { method: "POST" });
    expect(ftp.status).toBe(400);
    expect(await ftp.json()).toEqual({ error: "url must be an absolute http(s) URL" });
    expect((await request("/fetch")).status).toBe(405);
    expect((await request("/", { method: "POST" })).status).toBe(405);
    expect((await request("/elsewhere")).status).toBe(404);
  });
});

describe("EGRESS_MODE=all", () => {
  const { request } = exampleIn("all");

  it("reaches any URL from every backend", async () => {
    for (const path of ["/allowed", "/other?x=1"]) {
      const report = await fetchEverywhere(request, `${server.origin}${path}`);
      expect(report.mode).toBe("all");
      expect(report.results).toEqual({
        "container-shell": { status: 200, body: `local server saw GET ${path}\n` },
        "worker-shell": { status: 200, body: `local server saw GET ${path}\n` },
        "worker-javascript": { status: 200, body: `local server saw GET ${path}\n` },
      });
    }
  });

  it("without ?url= fetches the allowed URL", async () => {
    const response = await request("/fetch", { method: "POST" });
    const report = (await response.json()) as FetchReport;
    expect(report.url).toBe(`${server.origin}/allowed`);
    expect(report.results["worker-javascript"]).toEqual({ status: 200, body: "local server saw GET /allowed\n" });
  });
});

describe("EGRESS_MODE=custom (the Dynamic Worker backends)", () => {
  const { request } = exampleIn("custom");

  it("lets the allowed URL through the gateway and answers 403 to any other, which never leaves", async () => {
    const allowed = await fetchEverywhere(request, `${server.origin}/allowed`);
    expect(allowed.mode).toBe("custom");
    expect(allowed.results["worker-shell"]).toEqual({ status: 200, body: "local server saw GET /allowed\n" });
    expect(allowed.results["worker-javascript"]).toEqual({ status: 200, body: "local server saw GET /allowed\n" });

    const before = server.seen.length;
    const refused = await fetchEverywhere(request, `${server.origin}/other`);
    const forbidden = {
      status: 403,
      body: `egress gateway: ${server.origin}/other is not allowed (only ${server.origin}/allowed)\n`,
    };
    expect(refused.results["worker-shell"]).toEqual(forbidden);
    expect(refused.results["worker-javascript"]).toEqual(forbidden);
    // The same origin on another path, and a query on the allowed path, are other URLs.
    const query = await fetchEverywhere(request, `${server.origin}/allowed?x=1`);
    expect(query.results["worker-javascript"]).toMatchObject({ status: 403 });
    expect(server.seen.slice(before)).not.toContain("/other");
    expect(server.seen.slice(before)).not.toContain("/allowed?x=1");
  });
});

describe("EGRESS_MODE=bogus", () => {
  const { request } = exampleIn("bogus");

  it("is a configuration error, reported before any object starts", async () => {
    const response = await request("/fetch", { method: "POST" });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: 'EGRESS_MODE must be none, all or custom; got "bogus"' });
  });
});
