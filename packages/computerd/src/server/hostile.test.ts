/**
 * Hostile and careless input against a real computerd (its built main, a
 * real HTTP server and WebSocket on 127.0.0.1): every HTTP route answers a
 * caller's mistake with a 4xx and a JSON `{error, code}` body that carries no
 * stack and no host path; /connect's wait is bounded and stops with its
 * caller; a WebSocket message over the limit is refused before it is
 * buffered; every RPC argument the runner reads is checked (EPROTOCOL), an
 * unknown id is ENOENT; and after all of it the daemon still works and has
 * nothing left running. docs/limits.md has the limits.
 */
import { readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ExecEvent } from "@cloudflare/computer-rpc";
import { createWorkspaceClient, type WorkspaceClient } from "@cloudflare/computer-rpc/client";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import WebSocket from "ws";
import { startDaemon, stopAll, type TestDaemon, tempDir } from "../../test/daemon.js";
import { waitFor } from "../../test/wait.js";

const SECRET = "hostile-secret";
const auth = { authorization: `Bearer ${SECRET}` };
let daemon: TestDaemon;
let client: WorkspaceClient;
const workdir = tempDir("computerd-hostile-");

/** The daemon's resident memory, from /proc (kB → bytes). */
function residentBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB$/m);
  return Number(line?.[1] ?? Number.NaN) * 1024;
}

/** Its child processes: what a refused input could have left running. */
function childrenOf(pid: number): string[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
}

let residentBefore = 0;

beforeAll(async () => {
  daemon = await startDaemon({ FUSE_MOUNT: "none", RPC_CLIENT_SECRET: SECRET });
  client = await createWorkspaceClient({ url: `${daemon.url}/api`, headers: auth });
  // After one command, so what every daemon loads once (the runner, the shell) is in the baseline.
  await drain((await client.shell.exec({ source: "true" })).events);
  residentBefore = residentBytes(daemon.child.pid as number);
});

afterAll(async () => {
  await client?.close();
  await stopAll();
  rmSync(workdir, { recursive: true, force: true });
});

/** A caller's mistake: the status, a JSON body `{error, code}`, no stack and no path of this machine. */
async function expectRefusal(response: Response, status: number, code: string): Promise<void> {
  const text = await response.text();
  expect({ status: response.status, type: response.headers.get("content-type") }).toEqual({
    status,
    type: "application/json",
  });
  const body = JSON.parse(text) as { error?: unknown; code?: unknown };
  expect(typeof body.error).toBe("string");
  expect(body.code).toBe(code);
  expect(text).not.toMatch(/\n\s+at |node:internal|\/work\/|\/root\/|\/home\//);
}

const ROUTES = ["/", "/api", "/api/watermarks", "/connect", "/__computerd/info", "/__computerd/stats"];
const BAD_AUTH: [string, Record<string, string>][] = [
  ["no header", {}],
  ["a wrong token", { authorization: "Bearer wrong" }],
  ["a bare Bearer", { authorization: "Bearer" }],
  ["Basic", { authorization: `Basic ${Buffer.from(`x:${SECRET}`).toString("base64")}` }],
];

describe("HTTP: authentication", () => {
  const cases = ROUTES.flatMap((path) => BAD_AUTH.map(([name, headers]) => [path, name, headers] as const));
  test.each(cases)("%s with %s is 401", async (path, _name, headers) => {
    const response = await fetch(`${daemon.url}${path}`, { method: path === "/connect" ? "POST" : "GET", headers });
    expect(response.headers.get("www-authenticate")).toBe("Bearer");
    await expectRefusal(response, 401, "EACCES");
  });
});

describe("HTTP: unknown routes and wrong methods", () => {
  const unknown: [string, string, number, string][] = [
    ["GET", "/nope", 404, "ENOENT"],
    ["GET", "/api/nope", 404, "ENOENT"],
    ["GET", "/health/x", 404, "ENOENT"],
    ["GET", "/__computerd", 404, "ENOENT"],
    ["GET", "/__computerd/stubs", 404, "ENOENT"],
    ["GET", "/%00", 404, "ENOENT"],
    ["GET", `/${"a".repeat(4000)}`, 404, "ENOENT"],
    ["HEAD", "/nope", 404, "ENOENT"],
    ["POST", "/nope", 405, "EMETHOD"],
    ["PUT", "/nope", 405, "EMETHOD"],
    ["DELETE", "/api/x", 405, "EMETHOD"],
    ["POST", "/", 405, "EMETHOD"],
    ["PUT", "/api/watermarks", 405, "EMETHOD"],
    ["DELETE", "/__computerd/info", 405, "EMETHOD"],
    ["POST", "/__computerd/stats", 405, "EMETHOD"],
    ["GET", "/connect", 405, "EMETHOD"],
    ["PUT", "/connect", 405, "EMETHOD"],
    ["GET", "/api", 400, "EPROTOCOL"],
    ["POST", "/api", 400, "EPROTOCOL"],
  ];
  test.each(unknown)("%s %s is %i %s", async (method, path, status, code) => {
    const response = await fetch(`${daemon.url}${path}`, { method, headers: auth });
    if (method === "HEAD") {
      expect(response.status).toBe(status);
      return;
    }
    await expectRefusal(response, status, code);
  });
});

describe("HTTP: /connect bodies", () => {
  let upstream: Server;
  let base = "";
  let healthHits = 0;
  beforeAll(async () => {
    // An upstream whose health never turns good: the daemon polls it until its deadline or its caller leaves.
    upstream = createServer((_request, response) => {
      healthHits++;
      response.writeHead(503).end();
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    upstream.closeAllConnections();
    await new Promise((resolve) => upstream.close(resolve));
  });
  const post = (body: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${daemon.url}/connect`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body,
      ...init,
    });

  const ok = { base: "http://127.0.0.1:1", health: "/health", api: "/api" };
  const bodies: [string, string][] = [
    ["not JSON", "{not json"],
    ["empty", ""],
    ["an array", "[]"],
    ["null", "null"],
    ["a string", '"x"'],
    ["a number", "1"],
    ["no fields", "{}"],
    ["base ftp", JSON.stringify({ ...ok, base: "ftp://x" })],
    ["base javascript:", JSON.stringify({ ...ok, base: "javascript:alert(1)" })],
    ["base not a URL", JSON.stringify({ ...ok, base: "not a url" })],
    ["base a number", JSON.stringify({ ...ok, base: 5 })],
    ["no base", JSON.stringify({ health: "/health", api: "/api" })],
    ["health relative", JSON.stringify({ ...ok, health: "health" })],
    ["health protocol-relative", JSON.stringify({ ...ok, health: "//evil/health" })],
    ["health with a space", JSON.stringify({ ...ok, health: "/he alth" })],
    ["api a full URL", JSON.stringify({ ...ok, api: "http://evil/api" })],
    ["no api", JSON.stringify({ base: ok.base, health: "/health" })],
    ["healthTimeoutMs -1", JSON.stringify({ ...ok, healthTimeoutMs: -1 })],
    ["healthTimeoutMs 1e308", JSON.stringify({ ...ok, healthTimeoutMs: 1e308 })],
    ["healthTimeoutMs over the cap", JSON.stringify({ ...ok, healthTimeoutMs: 120_001 })],
    ["healthTimeoutMs a string", JSON.stringify({ ...ok, healthTimeoutMs: "100" })],
    ["healthTimeoutMs null", JSON.stringify({ ...ok, healthTimeoutMs: null })],
  ];
  test.each(bodies)("%s is 400 EINVAL", async (_name, body) => {
    await expectRefusal(await post(body), 400, "EINVAL");
  });

  test("a body over 64 KiB is 413 E2BIG", async () => {
    await expectRefusal(await post(JSON.stringify({ ...ok, pad: "x".repeat(70_000) })), 413, "E2BIG");
  });

  test("an upstream that never gets healthy is 502 ETIMEDOUT within the caller's timeout", async () => {
    await expectRefusal(
      await post(JSON.stringify({ base, health: "/health", api: "/api", healthTimeoutMs: 300 })),
      502,
      "ETIMEDOUT",
    );
  });

  test("a caller that leaves stops the health polling", async () => {
    const caller = new AbortController();
    healthHits = 0;
    const pending = post(JSON.stringify({ base, health: "/health", api: "/api", healthTimeoutMs: 120_000 }), {
      signal: caller.signal,
    }).catch(() => undefined);
    await waitFor(() => healthHits >= 2, "the daemon polling the upstream");
    caller.abort();
    await pending;
    // One poll may have been on its way; after it, nothing: the wait ended with its caller.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const after = healthHits;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(healthHits).toBe(after);
  });
});

describe("WebSocket", () => {
  test("a message over 32 MiB is refused (1009) from its header, and the daemon goes on", async () => {
    const socket = new WebSocket(`${daemon.url.replace("http", "ws")}/api`, {
      headers: auth,
      perMessageDeflate: false,
    });
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
    socket.send(Buffer.alloc(32 * 1024 * 1024 + 1));
    expect(await closed).toBe(1009);
    expect((await fetch(`${daemon.url}/health`)).status).toBe(200);
  });
});

async function drain(events: ReadableStream<ExecEvent>): Promise<{ stdout: string; stderr: string; code?: number }> {
  let stdout = "";
  let stderr = "";
  let code: number | undefined;
  for await (const event of events) {
    if (event.name === "exit") code = event.code;
    else if (event.name === "stdout") stdout += Buffer.from(event.value).toString();
    else stderr += Buffer.from(event.value).toString();
  }
  return { stdout, stderr, code };
}

type Loose = Record<"exec" | "getExec" | "killExec" | "disposeExec", (request: unknown) => Promise<unknown>>;

describe("RPC: exec arguments", () => {
  const marker = `${workdir}/ran`;
  const source = `touch ${marker}`;
  const execs: [string, Record<string, unknown>, RegExp][] = [
    ["id with NUL", { source, id: "a\0b" }, /control characters/],
    ["id with a newline", { source, id: "a\nb" }, /control characters/],
    ["id empty", { source, id: "" }, /execution id/],
    ["id of 257 bytes", { source, id: "x".repeat(257) }, /execution id/],
    ["id a number", { source, id: 7 }, /id must be a string/],
    ["source missing", {}, /source must be a string/],
    ["source a number", { source: 1 }, /source must be a string/],
    ["source with NUL", { source: "echo a\0b" }, /NUL/],
    ["cwd relative", { source, cwd: "tmp" }, /cwd must be an absolute path/],
    ["cwd with NUL", { source, cwd: "/tmp\0x" }, /cwd must be an absolute path/],
    ["cwd a number", { source, cwd: 5 }, /cwd must be a string/],
    ["env an array", { source, env: ["A=1"] }, /env must be an object/],
    ["env name with =", { source, env: { "A=B": "1" } }, /env name/],
    ["env name empty", { source, env: { "": "1" } }, /env name/],
    ["env value a number", { source, env: { A: 1 } }, /env.A must be a string/],
    ["env value with NUL", { source, env: { A: "a\0" } }, /must not contain NUL/],
    ["timeoutMs -1", { source, timeoutMs: -1 }, /timeoutMs/],
    ["timeoutMs 1.5", { source, timeoutMs: 1.5 }, /timeoutMs/],
    ["timeoutMs a string", { source, timeoutMs: "5" }, /timeoutMs/],
    ["timeoutMs 1e308", { source, timeoutMs: 1e308 }, /timeoutMs/],
    ["stdin a number", { source, stdin: 5 }, /stdin/],
  ];
  test.each(execs)("exec with %s is EPROTOCOL and runs nothing", async (_name, request, detail) => {
    const error = await (client.shell as unknown as Loose).exec(request).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "EPROTOCOL" });
    expect(String((error as Error).message)).toMatch(detail);
    const { stdout } = await drain((await client.shell.exec({ source: `test -e ${marker} && echo RAN; true` })).events);
    expect(stdout).toBe("");
  });

  const ids: [string, unknown][] = [
    ["a NUL id", "a\0"],
    ["an empty id", ""],
    ["a number id", 5],
    ["no id", undefined],
  ];
  const calls = (["getExec", "killExec", "disposeExec"] as const).flatMap((call) =>
    ids.map(([name, id]) => [call, name, id] as const),
  );
  test.each(calls)("%s with %s is EPROTOCOL", async (call, _name, id) => {
    const error = await (client.shell as unknown as Loose)[call]({ id }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "EPROTOCOL" });
  });

  test.each(["getExec", "killExec"] as const)("%s of an unknown id is ENOENT", async (call) => {
    const error = await (client.shell as unknown as Loose)[call]({ id: "never-ran" }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "ENOENT" });
  });

  test("killExec with an unknown signal is EPROTOCOL", async () => {
    const { id, events } = await client.shell.exec({ source: "true" });
    await drain(events);
    const error = await (client.shell as unknown as Loose).killExec({ id, signal: "SIGNOPE" }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "EPROTOCOL" });
  });

  test("a cwd that does not exist fails before anything runs, naming the path", async () => {
    const result = await drain(
      (await client.shell.exec({ source: `touch ${marker}; echo RAN`, cwd: `${workdir}/nope` })).events,
    );
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(`${workdir}/nope`);
    expect(result.code).toBe(-1);
  });

  test("after all of it: the daemon still runs commands and has none left running", async () => {
    expect(await drain((await client.shell.exec({ source: "echo still here" })).events)).toMatchObject({
      stdout: "still here\n",
      code: 0,
    });
    const stats = (await (await fetch(`${daemon.url}/__computerd/stats`, { headers: auth })).json()) as {
      exec_live: number;
    };
    expect(stats.exec_live).toBe(0);
    expect(childrenOf(daemon.child.pid as number)).toEqual([]);
    // Bounded, not flat: the refused 32 MiB frames may leave their pages with V8, never one per input.
    const grown = residentBytes(daemon.child.pid as number) - residentBefore;
    expect(grown).toBeLessThan(160 * 1024 * 1024);
  });
});
