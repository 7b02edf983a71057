/**
 * Hostile and careless input against a real local container host (its HTTP
 * server on 127.0.0.1, real computerd containers): every mistake is a 4xx
 * with a JSON `{error, code}` that carries no stack and no path of this
 * machine, nothing starts on a refused body, a launch cannot turn its own
 * isolation off, and nothing is left behind (containers, their state dirs).
 */

import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ExecEvent } from "@cloudflare/computer-rpc";
import { createWorkspaceClient } from "@cloudflare/computer-rpc/client";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type RunningHost, startHost } from "./main.js";

/** The built daemon: this file runs from sources, whose main is not JavaScript. */
const ENTRY = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
let host: RunningHost;
const dir = mkdtempSync(join(tmpdir(), "computerd-host-hostile-"));
const roots = (): string[] => readdirSync(tmpdir()).filter((name) => name.startsWith("computerd-container-hostile-"));

beforeAll(async () => {
  host = await startHost({ port: 0, entry: ENTRY, log: () => {} });
});
afterAll(async () => {
  await host?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function expectRefusal(response: Response, status: number, code: string): Promise<void> {
  const text = await response.text();
  expect({ status: response.status, type: response.headers.get("content-type") }).toEqual({
    status,
    type: "application/json",
  });
  const body = JSON.parse(text) as { error?: unknown; code?: unknown };
  expect(typeof body.error).toBe("string");
  expect(body.code).toBe(code);
  expect(text).not.toMatch(/\n\s+at |node:internal|\/work\/|\/root\/|\/tmp\//);
}

const C = "/v1/containers/hostile";

describe("routes and methods", () => {
  const cases: [string, string, number, string][] = [
    ["GET", "/nope", 404, "ENOENT"],
    ["GET", "/v1", 404, "ENOENT"],
    ["GET", "/v1/containers", 404, "ENOENT"],
    ["GET", "/v1/containers/", 404, "ENOENT"],
    ["GET", "/v1/containers/bad%20name", 404, "ENOENT"],
    ["GET", `/v1/containers/${"n".repeat(129)}`, 404, "ENOENT"],
    ["GET", `${C}/nope`, 404, "ENOENT"],
    ["GET", `${C}/start`, 405, "EMETHOD"],
    ["PUT", `${C}/stop`, 405, "EMETHOD"],
    ["GET", `${C}/kill`, 405, "EMETHOD"],
    ["GET", `${C}/crash-at`, 405, "EMETHOD"],
    ["DELETE", C, 405, "EMETHOD"],
    ["GET", `${C}/port/8080/`, 410, "ECONTAINEREXITED"],
  ];
  test.each(cases)("%s %s is %i %s", async (method, path, status, code) => {
    await expectRefusal(await fetch(`${host.url}${path}`, { method }), status, code);
  });

  test.each(["stop", "kill"])("POST /%s of a container that is not running is a no-op 204", async (what) => {
    const response = await fetch(`${host.url}${C}/${what}`, { method: "POST" });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
  });
});

describe("start and crash-at bodies", () => {
  const ok = { env: { MOUNT_POINT: join(dir, "workspace") }, enableInternet: false, runtimeId: "r1" };
  const starts: [string, string][] = [
    ["not JSON", "{"],
    ["empty", ""],
    ["an array", "[]"],
    ["null", "null"],
    ["no fields", "{}"],
    ["no runtimeId", JSON.stringify({ ...ok, runtimeId: undefined })],
    ["a runtimeId number", JSON.stringify({ ...ok, runtimeId: 5 })],
    ["a runtimeId with NUL", JSON.stringify({ ...ok, runtimeId: "r\0" })],
    ["a runtimeId with a space", JSON.stringify({ ...ok, runtimeId: "r 1" })],
    ["env an array", JSON.stringify({ ...ok, env: ["A=1"] })],
    ["env null", JSON.stringify({ ...ok, env: null })],
    ["an env value number", JSON.stringify({ ...ok, env: { A: 1 } })],
    ["an env name with =", JSON.stringify({ ...ok, env: { "A=B": "1" } })],
    ["an env value with NUL", JSON.stringify({ ...ok, env: { A: "a\0" } })],
    ["enableInternet a string", JSON.stringify({ ...ok, enableInternet: "yes" })],
    ["an unknown egress", JSON.stringify({ ...ok, egress: "bogus" })],
    ["egress a number", JSON.stringify({ ...ok, egress: 5 })],
  ];
  test.each(starts)("start with %s is 400 EINVAL and starts nothing", async (_name, body) => {
    await expectRefusal(await fetch(`${host.url}${C}/start`, { method: "POST", body }), 400, "EINVAL");
    expect(host.containers.names()).toEqual([]);
  });

  test("a start body over 1 MiB is 413 E2BIG", async () => {
    const body = JSON.stringify({ ...ok, env: { PAD: "x".repeat(1024 * 1024) } });
    await expectRefusal(await fetch(`${host.url}${C}/start`, { method: "POST", body }), 413, "E2BIG");
    expect(host.containers.names()).toEqual([]);
  });

  const crashes: [string, string][] = [
    ["not JSON", "{"],
    ["no at", "{}"],
    ["at a number", JSON.stringify({ at: 5 })],
    ["no call", JSON.stringify({ at: "push" })],
    ["call 0", JSON.stringify({ at: "push:0" })],
    ["two calls", JSON.stringify({ at: "push:1:2" })],
  ];
  test.each(crashes)("crash-at with %s is 400 EINVAL", async (_name, body) => {
    await expectRefusal(await fetch(`${host.url}${C}/crash-at`, { method: "POST", body }), 400, "EINVAL");
  });
});

/** The status a raw upgrade request gets. */
function upgradeStatus(path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${host.url}${path}`, {
      headers: {
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
        ...headers,
      },
    });
    req.on("response", (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    req.on("upgrade", (_response, socket) => {
      socket.destroy();
      reject(new Error("upgrade unexpectedly succeeded"));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("upgrades", () => {
  const cases: [string, Record<string, string>, number][] = [
    ["/v1/containers/bad%20name/dial", {}, 404],
    [`${C}/nope`, {}, 404],
    [`${C}/callback/api`, {}, 401],
    [`${C}/callback/api`, { authorization: "Bearer wrong" }, 401],
    [`${C}/egress`, {}, 401],
    [`${C}/port/8080/ws`, {}, 400],
  ];
  test.each(cases)("%s %j is %i", async (path, headers, status) => {
    expect(await upgradeStatus(path, headers)).toBe(status);
  });
});

describe("a launch cannot turn its container's isolation off", () => {
  test("COMPUTERD_EXEC_SANDBOX=none in the launch env still runs commands in the container's root", async () => {
    const body = {
      env: {
        MOUNT_POINT: join(dir, "workspace"),
        FUSE_MOUNT: "fuse",
        COMPUTERD_EXEC_SANDBOX: "none",
        COMPUTERD_EXEC_ROOT: "/",
      },
      enableInternet: false,
      runtimeId: "r1",
    };
    writeFileSync(join(dir, "host-secret"), "host\n");
    const response = await fetch(`${host.url}${C}/start`, { method: "POST", body: JSON.stringify(body) });
    expect(response.status).toBe(200);
    const container = host.containers.get("hostile");
    expect(container).toBeDefined();
    const client = await createWorkspaceClient({ url: `http://127.0.0.1:${container?.port}/api` });
    try {
      const { events } = await client.shell.exec({ source: `test -e ${dir}/host-secret && echo HOST; hostname` });
      let stdout = "";
      for await (const event of events as ReadableStream<ExecEvent>) {
        if (event.name === "stdout") stdout += Buffer.from(event.value).toString();
      }
      expect(stdout).toBe("hostile\n");
    } finally {
      await client.close();
    }
    expect((await fetch(`${host.url}${C}/stop`, { method: "POST" })).status).toBe(204);
  });

  test("after all of it: nothing runs and no container's state dir is left", async () => {
    expect(host.containers.names()).toEqual([]);
    expect(roots()).toEqual([]);
    expect(await (await fetch(`${host.url}/health`)).json()).toEqual({ ok: true, containers: [] });
  });
});
