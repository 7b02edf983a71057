import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ExecEvent } from "@cloudflare/computer-rpc";
import { createWorkspaceClient, type WorkspaceClient } from "@cloudflare/computer-rpc/client";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type WebSocket from "ws";
import { WebSocketServer } from "ws";
import { startDaemon, stopAll, type TestDaemon } from "../../test/daemon.js";
import { waitFor } from "../../test/wait.js";

const SECRET = "s3cret-token";
let daemon: TestDaemon;
let client: WorkspaceClient;
const auth = { authorization: `Bearer ${SECRET}` };

beforeAll(async () => {
  daemon = await startDaemon({
    FUSE_MOUNT: "none",
    RPC_CLIENT_SECRET: `  ${SECRET}\n`,
    COMPUTER_VAR_FOO: "bar",
    COMPUTER_VAR_PATH: "/usr/bin:/bin:/opt/computer-var-path",
    DAEMON_ONLY: "not for children",
  });
  client = await createWorkspaceClient({ url: `${daemon.url}/api`, headers: auth });
});

afterAll(async () => {
  await client?.close();
  await stopAll();
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

describe("auth", () => {
  const routes: [string, string][] = [
    ["GET", "/"],
    ["GET", "/api"],
    ["GET", "/api/watermarks"],
    ["HEAD", "/api/watermarks"],
    ["POST", "/connect"],
    ["GET", "/__computerd/info"],
    ["GET", "/__computerd/stats"],
    ["GET", "/__computerd/stubs"],
    ["GET", "/nope"],
    ["DELETE", "/nope"],
  ];

  test("/health is open to GET and HEAD", async () => {
    const response = await fetch(`${daemon.url}/health`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("ok\n");
    expect((await fetch(`${daemon.url}/health`, { method: "HEAD" })).status).toBe(200);
  });

  test("every other route is 401 with www-authenticate: Bearer without the bearer, or with a wrong one", async () => {
    for (const headers of [
      {},
      { authorization: "Bearer wrong" },
      { authorization: SECRET },
      { authorization: "Basic x" },
    ]) {
      for (const [method, path] of routes) {
        const response = await fetch(`${daemon.url}${path}`, { method, headers: headers as Record<string, string> });
        expect([method, path, response.status]).toEqual([method, path, 401]);
        expect(response.headers.get("www-authenticate")).toBe("Bearer");
      }
    }
  });

  test("the bearer scheme is case-insensitive and the secret was trimmed", async () => {
    const response = await fetch(`${daemon.url}/`, { headers: { authorization: `bEaReR ${SECRET}` } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({});
  });

  test("a WebSocket upgrade without the bearer is refused with 401", async () => {
    await expect(createWorkspaceClient({ url: `${daemon.url}/api` })).rejects.toMatchObject({ code: "EAUTH" });
    await expect(
      createWorkspaceClient({ url: `${daemon.url}/api`, headers: { authorization: "Bearer nope" } }),
    ).rejects.toMatchObject({ code: "EAUTH" });
  });
});

describe("routes", () => {
  test("/api without an upgrade is 400; an upgrade elsewhere is 404; version 12 is 426 with 13, 8", async () => {
    expect((await fetch(`${daemon.url}/api`, { headers: auth })).status).toBe(400);
    expect(await upgradeStatus("/elsewhere", { ...auth, "sec-websocket-version": "13" })).toEqual({ status: 404 });
    expect(await upgradeStatus("/api", { ...auth, "sec-websocket-version": "12" })).toEqual({
      status: 426,
      version: "13, 8",
    });
  });

  test("/api/watermarks matches watermarks(), HEAD works, POST is 405", async () => {
    const response = await fetch(`${daemon.url}/api/watermarks`, { headers: auth });
    expect(await response.json()).toEqual(await client.sync.watermarks());
    expect((await fetch(`${daemon.url}/api/watermarks`, { method: "HEAD", headers: auth })).status).toBe(200);
    const post = await fetch(`${daemon.url}/api/watermarks`, { method: "POST", headers: auth });
    expect(post.status).toBe(405);
  });

  test("info, stats, stubs (off), /, unknown paths", async () => {
    const info = await (await fetch(`${daemon.url}/__computerd/info`, { headers: auth })).json();
    expect(info).toEqual({ backend: { kind: "none" }, mountPoint: daemon.mountPoint, port: daemon.port });
    const stats = await (await fetch(`${daemon.url}/__computerd/stats`, { headers: auth })).json();
    expect(stats).toMatchObject({ vfs_nodes: expect.any(Number), blob_bytes: 0, rss: expect.any(Number) });
    expect((await fetch(`${daemon.url}/__computerd/stubs`, { headers: auth })).status).toBe(404);
    expect((await fetch(`${daemon.url}/nope`, { headers: auth })).status).toBe(404);
    expect((await fetch(`${daemon.url}/nope`, { method: "PUT", headers: auth })).status).toBe(405);
  });
});

describe("the runner over the wire", () => {
  test("the child sees neither the secret nor the daemon's env; COMPUTER_VAR_* arrive unprefixed", async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
    const source = 'echo "${RPC_CLIENT_SECRET-unset}|${DAEMON_ONLY-unset}|$FOO|$PATH"';
    const result = await drain((await client.shell.exec({ source })).events);
    expect(result).toEqual({ stdout: "unset|unset|bar|/usr/bin:/bin:/opt/computer-var-path\n", stderr: "", code: 0 });
  });

  test("bad input: an id over 256 bytes and a cwd that does not exist change nothing", async () => {
    await expect(client.shell.exec({ source: "touch /tmp/never", id: "x".repeat(257) })).rejects.toMatchObject({
      code: "EPROTOCOL",
    });
    const result = await drain((await client.shell.exec({ source: "echo no", cwd: "/definitely/missing" })).events);
    expect(result.stderr).toMatch(/^spawn failed: ENOENT/);
    expect(result.code).toBe(-1);
  });

  /** `exec` with one field wrong: EPROTOCOL naming the field, and nothing ran (the marker file is never made). */
  async function expectRefused(fields: Record<string, unknown>, detail: RegExp): Promise<void> {
    const marker = `/tmp/computerd-bad-input-${process.pid}-${Math.random().toString(36).slice(2)}`;
    const request = { source: `touch ${marker}`, ...fields } as unknown as Parameters<typeof client.shell.exec>[0];
    const error = await client.shell.exec(request).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "EPROTOCOL" });
    expect((error as Error).message).toMatch(detail);
    expect((error as Error).message).not.toMatch(/ERR_INVALID_ARG/);
    // The same source with the field left out runs: the refusal was the field's doing.
    const ok = await drain((await client.shell.exec({ source: `test ! -e ${marker} && echo clean` })).events);
    expect(ok.stdout).toBe("clean\n");
  }

  test("bad input: stdin that is neither a string nor bytes is EPROTOCOL, not Node's ERR_INVALID_ARG_TYPE", async () => {
    await expectRefused({ stdin: 12 }, /stdin must be a string or a Uint8Array/);
    await expectRefused({ stdin: { length: 1 } }, /stdin must be a string or a Uint8Array/);
    await expectRefused({ stdin: null }, /stdin must be a string or a Uint8Array/);
    const piped = await drain((await client.shell.exec({ source: "cat", stdin: new Uint8Array([104, 105]) })).events);
    expect(piped.stdout).toBe("hi");
  });

  test("bad input: env must be an object of strings with proper names", async () => {
    await expectRefused({ env: "x" }, /env must be an object of strings/);
    await expectRefused({ env: ["A=1"] }, /env must be an object of strings/);
    await expectRefused({ env: null }, /env must be an object of strings/);
    await expectRefused({ env: { A: 1 } }, /env\.A must be a string/);
    await expectRefused({ env: { "A=B": "1" } }, /env name "A=B"/);
    await expectRefused({ env: { "": "1" } }, /env name ""/);
    await expectRefused({ env: { A: "a\0b" } }, /env\.A must not contain NUL/);
  });

  test("bad input: timeoutMs must be a non-negative integer; a huge one does not fire at once", async () => {
    for (const timeoutMs of [-5, 1.5, "100", Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      await expectRefused({ timeoutMs }, /timeoutMs must be a non-negative integer/);
    }
    // Past Node's timer limit (2^31 − 1 ms) a timer fires after 1 ms; the runner caps it instead.
    const slow = await drain((await client.shell.exec({ source: "sleep 0.2; echo done", timeoutMs: 2 ** 40 })).events);
    expect(slow).toEqual({ stdout: "done\n", stderr: "", code: 0 });
  });

  test("bad input: source and cwd with NUL, a relative cwd, a request that is not an object", async () => {
    await expectRefused({ source: "echo a\0b" }, /source must not contain NUL/);
    await expectRefused({ cwd: "relative" }, /cwd must be an absolute path/);
    await expectRefused({ cwd: "/tmp\0x" }, /cwd must be an absolute path/);
    await expectRefused({ cwd: 7 }, /cwd must be a string/);
    const notObject = await client.shell.exec("echo" as never).catch((e: unknown) => e);
    expect(notObject).toMatchObject({ code: "EPROTOCOL" });
  });

  test("codes survive the wire: EEXEC_BUSY, ENOENT, ELOG_TRUNCATED not hit, kill/dispose", async () => {
    const live = await client.shell.exec({ source: "sleep 5", id: "wire-busy" });
    await expect(client.shell.exec({ source: "true", id: "wire-busy" })).rejects.toMatchObject({ code: "EEXEC_BUSY" });
    await expect(client.shell.getExec({ id: "wire-busy" })).rejects.toMatchObject({ code: "EEXEC_BUSY" });
    await client.shell.killExec({ id: "wire-busy" });
    expect((await drain(live.events)).code).toBe(143);
    await client.shell.disposeExec({ id: "wire-busy" });
    await expect(client.shell.getExec({ id: "wire-busy" })).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("sync RPC bad input (issue 16)", () => {
  /** A sync call with a wrong argument: EPROTOCOL with the reason, never a bare TypeError, and the store did not move. */
  async function expectRefused(call: () => Promise<unknown>, detail: RegExp): Promise<void> {
    const before = await client.sync.watermarks();
    const error = await call().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "EPROTOCOL" });
    expect((error as Error).message).toMatch(detail);
    expect((error as Error).name).not.toBe("TypeError");
    expect(await client.sync.watermarks()).toEqual(before);
  }
  type Loose = Record<keyof typeof client.sync, (...args: unknown[]) => Promise<unknown>>;
  /** The client's sync stub without its types, to send what a typed caller could not. */
  const sync = (): Loose => client.sync as unknown as Loose;
  const hash = new Uint8Array(32);

  test("push: request, senderRev, senderCursor, changes and each streamed entry", async () => {
    const changes = (entries: unknown[]) =>
      new ReadableStream({
        start(controller) {
          for (const entry of entries) controller.enqueue(entry);
          controller.close();
        },
      });
    await expectRefused(() => sync().push("x"), /request must be an object/);
    await expectRefused(() => sync().push({ changes: changes([]) }), /senderRev must be an integer >= 0/);
    await expectRefused(() => sync().push({ senderRev: -1, changes: changes([]) }), /senderRev/);
    await expectRefused(() => sync().push({ senderRev: "1", changes: changes([]) }), /senderRev/);
    await expectRefused(
      () => sync().push({ senderRev: 0, senderCursor: { rev: "a" }, changes: changes([]) }),
      /senderCursor/,
    );
    await expectRefused(() => sync().push({ senderRev: 0 }), /changes must be a ReadableStream/);
    const file = { kind: "file", rev: 1, path: "/bad-input/ok", mode: 0o644, mtime: 1, size: 0, chunks: [] };
    await expectRefused(
      () => sync().push({ senderRev: 0, changes: changes([file, { kind: "file", rev: 1, path: "/bad-input/x" }]) }),
      /bad mode or mtime/,
    );
    await expectRefused(() => sync().push({ senderRev: 0, changes: changes([42]) }), /change entry must be an object/);
    await expectRefused(
      () => sync().push({ senderRev: 0, changes: changes([{ ...file, kind: "fifo" }]) }),
      /unknown change entry kind/,
    );
    expect(await client.sync.readEntry("/bad-input/ok")).toBeNull();
  });

  test("pushObjects: the stream and each frame", async () => {
    const frames = (items: unknown[]) =>
      new ReadableStream({
        start(controller) {
          for (const item of items) controller.enqueue(item);
          controller.close();
        },
      });
    await expectRefused(() => sync().pushObjects("x"), /objects must be a ReadableStream/);
    await expectRefused(() => sync().pushObjects(frames([null])), /each frame needs hash/);
    await expectRefused(() => sync().pushObjects(frames([{ hash: "ab", bytes: new Uint8Array(1) }])), /hash/);
    await expectRefused(() => sync().pushObjects(frames([{ hash, bytes: "abc" }])), /each frame needs bytes/);
  });

  test("fetchChanges and watermarks: request shapes, cursors, ignore, settle", async () => {
    await expectRefused(() => sync().fetchChanges("x"), /request must be an object/);
    await expectRefused(() => sync().fetchChanges({ after: 5 }), /after/);
    await expectRefused(() => sync().fetchChanges({ after: { rev: -1, path: null } }), /after/);
    await expectRefused(() => sync().fetchChanges({ through: { rev: 1, path: 7 } }), /through/);
    await expectRefused(() => sync().fetchChanges({ ignore: "node_modules" }), /ignore must be a list/);
    await expectRefused(() => sync().fetchChanges({ ignore: [1] }), /ignore must be a list/);
    await expectRefused(() => sync().watermarks("x"), /options must be an object/);
    await expectRefused(() => sync().watermarks({ settle: "yes" }), /settle must be a boolean/);
    // Well-formed calls still work.
    const result = (await client.sync.fetchChanges({ ignore: ["node_modules"] })) as { stream: ReadableStream };
    await result.stream.cancel();
  });

  test("readEntry, hasObjects, fetchObjects: paths and hash lists", async () => {
    await expectRefused(() => sync().readEntry(5), /path must be a string/);
    await expectRefused(() => sync().readEntry(undefined), /path must be a string/);
    await expect(client.sync.readEntry("relative")).rejects.toMatchObject({ code: "EINVAL" });
    await expectRefused(() => sync().hasObjects("x"), /hashes must be a list/);
    await expectRefused(() => sync().hasObjects([new Uint8Array(31)]), /32-byte/);
    await expectRefused(() => sync().hasObjects(["ab".repeat(32)]), /32-byte/);
    await expectRefused(() => sync().hasObjects(Array.from({ length: 101 }, () => hash)), /at most 100 hashes/);
    await expectRefused(() => sync().fetchObjects(undefined), /hashes must be a list/);
    await expectRefused(() => sync().fetchObjects([hash, 7]), /32-byte/);
    expect(await client.sync.hasObjects([hash])).toEqual([]);
  });
});

describe("/connect", () => {
  let upstream: Server;
  let base: string;
  const accepted: WebSocket[] = [];
  const authHeaders: (string | undefined)[] = [];

  beforeAll(async () => {
    upstream = createServer((request, response) => {
      response.writeHead(request.url === "/health" ? 200 : 404);
      response.end();
    });
    const wss = new WebSocketServer({ noServer: true });
    upstream.on("upgrade", (request, socket, head) => {
      authHeaders.push(request.headers.authorization);
      wss.handleUpgrade(request, socket, head, (ws) => accepted.push(ws));
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const socket of accepted) socket.terminate();
    await new Promise((resolve) => upstream.close(resolve));
  });

  const post = (body: unknown, headers: Record<string, string> = auth): Promise<Response> =>
    fetch(`${daemon.url}/connect`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });

  test("other methods are 405 with allow: POST", async () => {
    const response = await fetch(`${daemon.url}/connect`, { headers: auth });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
  });

  test("malformed bodies are 400 and dial nothing", async () => {
    const before = accepted.length;
    for (const body of [
      "{not json",
      "[]",
      { base: "ftp://x", health: "/health", api: "/api" },
      { base: "not a url", health: "/health", api: "/api" },
      { base, health: "health", api: "/api" },
      { base, health: "//evil/health", api: "/api" },
      { base, health: "/health", api: "http://evil/api" },
      { base, health: "/health" },
      { base, health: "/health", api: "/api", healthTimeoutMs: -1 },
    ]) {
      const response = await post(body);
      expect([body, response.status]).toEqual([body, 400]);
    }
    expect(accepted.length).toBe(before);
  });

  test("an unreachable health endpoint is 502", async () => {
    const response = await post({ base: "http://127.0.0.1:1", health: "/health", api: "/api", healthTimeoutMs: 300 });
    expect(response.status).toBe(502);
  });

  test("dials base+api with the bearer and serves WorkspaceRPC; a second /connect closes the first with 1000", async () => {
    const response = await post({ base, health: "/health", api: "/api" });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, ws: `${base.replace("http", "ws")}/api` });
    await waitFor(() => accepted.length === 1, "the first dial-back");
    expect(authHeaders[0]).toBe(`Bearer ${SECRET}`);
    const first = accepted[0] as WebSocket;
    const firstClient = await createWorkspaceClient({ socket: first as never });
    expect(await firstClient.sync.watermarks()).toEqual(await client.sync.watermarks());
    const echoed = await drain((await firstClient.shell.exec({ source: "echo upstream" })).events);
    expect(echoed.stdout).toBe("upstream\n");

    const closed = new Promise<number>((resolve) => first.on("close", (code) => resolve(code)));
    expect((await post({ base, health: "/health", api: "/api" })).status).toBe(200);
    expect(await closed).toBe(1000);
    await waitFor(() => accepted.length === 2, "the second dial-back");
    const second = await createWorkspaceClient({ socket: accepted[1] as never });
    expect((await second.sync.watermarks()).currentRev).toEqual(expect.any(Number));
    await second.close();
    await firstClient.close();
  });
});

/** A raw upgrade request, to see the status the daemon answers before any WebSocket exists. */
function upgradeStatus(path: string, headers: Record<string, string>): Promise<{ status: number; version?: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${daemon.url}${path}`, {
      headers: {
        ...headers,
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
      },
    });
    req.on("response", (response) => {
      const version = response.headers["sec-websocket-version"];
      response.resume();
      resolve(
        version === undefined ? { status: response.statusCode ?? 0 } : { status: response.statusCode ?? 0, version },
      );
    });
    req.on("upgrade", (_response, socket) => {
      socket.destroy();
      reject(new Error("upgrade unexpectedly succeeded"));
    });
    req.on("error", reject);
    req.end();
  });
}
