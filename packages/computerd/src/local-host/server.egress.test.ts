/**
 * The local container host's egress routes with a real host and a real
 * computerd launched for `http-gateway` (without a mount, to stay light): the
 * Durable Object's channel and computerd's tunnels open only with the
 * container's bearer, a tunnel without a channel answers 502, and an unknown
 * egress mode is refused at start.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { EGRESS_TOKEN_HEADER } from "@cloudflare/computer-rpc";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { WebSocket } from "ws";
import { EGRESS_TUNNEL_PROTOCOL } from "../egress/tunnel.js";
import { type RunningHost, startHost } from "./main.js";

const SECRET = "0123456789abcdef";
let host: RunningHost;
let dir: string;
let base: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "computerd-host-egress-"));
  host = await startHost({
    port: 0,
    // The tests run sources; the host runs the built daemon, as in production.
    entry: fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url)),
    log: () => {},
  });
  base = `${host.url}/v1/containers/gw`;
  const started = await fetch(`${base}/start`, {
    method: "POST",
    body: JSON.stringify({
      env: { MOUNT_POINT: join(dir, "workspace"), FUSE_MOUNT: "none", RPC_CLIENT_SECRET: SECRET },
      enableInternet: false,
      egress: "http-gateway",
      runtimeId: "r1",
    }),
  });
  expect(started.status).toBe(200);
});

afterAll(async () => {
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The status line the host answers an egress channel upgrade with. */
function openChannel(headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`${base.replace("http:", "ws:")}/egress`, { headers });
    socket.once("open", () => {
      socket.close();
      resolve(101);
    });
    socket.once("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
    socket.once("error", () => {});
  });
}

/** Sends a raw tunnel upgrade, then (once switched) one proxy request; resolves with everything read. */
function tunnel(authorization: string | undefined): Promise<string> {
  const url = new URL(`${base}/egress/tunnel`);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let received = "";
    let sent = false;
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
      if (!sent && received.startsWith("HTTP/1.1 101")) {
        sent = true;
        socket.write("GET http://example.test/ HTTP/1.1\r\nhost: example.test\r\nconnection: close\r\n\r\n");
      }
    });
    socket.on("close", () => resolve(received));
    socket.write(
      `GET ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\nconnection: upgrade\r\nupgrade: ${EGRESS_TUNNEL_PROTOCOL}\r\n` +
        (authorization ? `authorization: ${authorization}\r\n` : "") +
        "\r\n",
    );
  });
}

describe("the host's egress routes", () => {
  test("the egress channel opens only with the container's bearer and a token", async () => {
    expect(await openChannel({ [EGRESS_TOKEN_HEADER]: "t" })).toBe(401);
    expect(await openChannel({ authorization: "Bearer nope", [EGRESS_TOKEN_HEADER]: "t" })).toBe(401);
    expect(await openChannel({ authorization: `Bearer ${SECRET}` })).toBe(400);
    expect(await openChannel({ authorization: `Bearer ${SECRET}`, [EGRESS_TOKEN_HEADER]: "t" })).toBe(101);
  });

  test("a tunnel needs the bearer; without an egress channel its requests get 502", async () => {
    expect(await tunnel(undefined)).toMatch(/^HTTP\/1\.1 401 /);
    expect(await tunnel("Bearer nope")).toMatch(/^HTTP\/1\.1 401 /);
    const served = await tunnel(`Bearer ${SECRET}`);
    expect(served).toMatch(/^HTTP\/1\.1 101 /);
    expect(served).toMatch(/HTTP\/1\.1 502 [\s\S]*no egress channel open/);
  });

  test("an unknown egress mode is refused at start", async () => {
    const response = await fetch(`${host.url}/v1/containers/other/start`, {
      method: "POST",
      body: JSON.stringify({ env: {}, enableInternet: false, egress: "everything", runtimeId: "r2" }),
    });
    expect(response.status).toBe(400);
  });
});
