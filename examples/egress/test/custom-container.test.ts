/**
 * The container's `curl` under EGRESS_MODE=custom: egress `http-gateway` on
 * the container backend, through the local container host. Every request of
 * the command must reach the example's EgressGateway by way of the Durable
 * Object, so the allowed URL answers and any other URL gets the gateway's
 * 403 without leaving the machine.
 *
 * This needs the local container host's http-gateway support (branch
 * `gateway`); without it, connect fails at stage=egress and this test fails
 * with that message. Needs root (FUSE, namespaces) and the packages built.
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
  await host?.close();
  await server?.close();
});

const { request } = useExampleWorker(example, () => ({
  workerLoaders: { LOADER: {} },
  bindings: {
    EGRESS_MODE: "custom",
    EGRESS_ALLOWED_URL: `${server.origin}/allowed`,
    COMPUTER_CONTAINER_HOST: host.url,
  },
}));

async function containerResult(url: string): Promise<FetchReport["results"]["container-shell"]> {
  const response = await request(`/fetch?url=${encodeURIComponent(url)}`, { method: "POST" });
  expect(response.status).toBe(200);
  return ((await response.json()) as FetchReport).results["container-shell"];
}

describe("EGRESS_MODE=custom (the container)", () => {
  it("curl in the container reaches the allowed URL through the gateway, and gets 403 for any other", async () => {
    expect(await containerResult(`${server.origin}/allowed`)).toEqual({
      status: 200,
      body: "local server saw GET /allowed\n",
    });
    const before = server.seen.length;
    expect(await containerResult(`${server.origin}/other`)).toEqual({
      status: 403,
      body: `egress gateway: ${server.origin}/other is not allowed (only ${server.origin}/allowed)\n`,
    });
    expect(server.seen.slice(before)).toEqual([]);
  });
});
