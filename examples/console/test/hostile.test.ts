/**
 * Hostile and careless input against the running console stack: the Worker
 * bundled as wrangler would and served by Miniflare (a SQLite Durable Object,
 * the Worker Loader) with a local container host for container-shell, all
 * over HTTP. Every mistake is a 4xx with a JSON `{error, code}` that carries
 * no stack and no path of this machine; nothing a refused request names runs
 * or is written, and what was there before is still there after.
 *
 * This file runs in Node: it imports only the container host and the test
 * support (nothing that imports `cloudflare:*`); the Worker is reached over HTTP.
 */
import { readdirSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningHost, startHost } from "@cloudflare/computerd/host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useExampleWorker } from "../../test-support/worker.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
let host: RunningHost;
beforeAll(async () => {
  host = await startHost({ port: 0, log: () => {} });
});
afterAll(async () => {
  await host?.close();
});

const { request, url } = useExampleWorker(example, () => ({
  bindings: { COMPUTER_CONTAINER_HOST: host.url },
  workerLoaders: { LOADER: {} },
}));

const W = "/api/w/hostile";
const BACKENDS = ["worker-shell", "worker-javascript", "container-shell"] as const;

const postJson = (path: string, body: unknown): Promise<Response> =>
  request(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

/** The status, a JSON `{error, code}`, and nothing of this machine in it. */
async function expectRefusal(response: Response, status: number, code: string): Promise<void> {
  const text = await response.text();
  expect({ status: response.status, text }).toMatchObject({ status });
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  const body = JSON.parse(text) as { error?: unknown; code?: unknown };
  expect(typeof body.error).toBe("string");
  expect(body.code).toBe(code);
  expect(text).not.toMatch(/\n\s+at |\bat .*\.(js|ts):\d+|node:internal|\/work\/|\/root\/|\/tmp\//);
}

beforeAll(async () => {
  // What must survive every refusal below.
  expect((await request(`${W}/file/workspace/keep/a.txt`, { method: "PUT", body: "kept\n" })).status).toBe(204);
  expect((await request(`${W}/file/workspace/keep/file`, { method: "PUT", body: "f" })).status).toBe(204);
});

describe("the Worker's own routes", () => {
  const cases: [string, string, number, string][] = [
    ["GET", "/api", 404, "ENOENT"],
    ["GET", "/api/w", 404, "ENOENT"],
    ["GET", "/api/w/x", 404, "ENOENT"],
    ["GET", "/elsewhere", 404, "ENOENT"],
    ["POST", "/api/w/", 404, "ENOENT"],
    ["GET", "/api/w/bad%20name/tree", 400, "EINVAL"],
    ["GET", `/api/w/${"n".repeat(65)}/tree`, 400, "EINVAL"],
    ["GET", "/api/w/a%2Fb/tree", 400, "EINVAL"],
    ["GET", "/api/w/%00/tree", 400, "EINVAL"],
    ["GET", "/api/w/na%C3%AFve/tree", 400, "EINVAL"],
  ];
  it.each(cases)("%s %s is %i %s", async (method, path, status, code) => {
    await expectRefusal(await request(path, { method }), status, code);
  });
});

describe("the workspace's routes and methods", () => {
  const cases: [string, string, number, string][] = [
    ["GET", "/nope", 404, "ENOENT"],
    ["POST", "/nope", 404, "ENOENT"],
    ["POST", "/tree", 405, "EMETHOD"],
    ["DELETE", "/tree", 405, "EMETHOD"],
    ["GET", "/exec", 405, "EMETHOD"],
    ["DELETE", "/kill", 405, "EMETHOD"],
    ["PUT", "/chat", 405, "EMETHOD"],
    ["POST", "/file/workspace/keep/a.txt", 405, "EMETHOD"],
  ];
  it.each(cases)("%s %s is %i %s", async (method, path, status, code) => {
    await expectRefusal(await request(`${W}${path}`, { method }), status, code);
  });
});

describe("file paths and sizes", () => {
  const badPaths = [
    "/file/etc/passwd",
    "/file/workspace",
    "/file/workspace/",
    "/file/workspace//x",
    "/file/workspace/a/%2e%2e/%2e%2e/etc",
    "/file/workspace/keep%2F..%2F..%2Fetc",
    "/file/workspace/x%00y",
    "/file/workspace/%ZZ",
  ];
  it.each(badPaths)("GET and PUT %s are 400 EINVAL", async (path) => {
    await expectRefusal(await request(`${W}${path}`), 400, "EINVAL");
    await expectRefusal(await request(`${W}${path}`, { method: "PUT", body: "x" }), 400, "EINVAL");
  });

  it("a missing file is 404 ENOENT to GET and DELETE", async () => {
    await expectRefusal(await request(`${W}/file/workspace/missing.txt`), 404, "ENOENT");
    await expectRefusal(await request(`${W}/file/workspace/missing.txt`, { method: "DELETE" }), 404, "ENOENT");
  });

  it("a directory read as a file is 400 EISDIR; a file where a directory must go is 409 EEXIST", async () => {
    await expectRefusal(await request(`${W}/file/workspace/keep`), 400, "EISDIR");
    await expectRefusal(await request(`${W}/file/workspace/keep/file/x`, { method: "PUT", body: "x" }), 409, "EEXIST");
  });

  it("a PUT over 32 MiB is 413 E2BIG, by its declared length or as it streams, and writes nothing", async () => {
    const limit = 32 * 1024 * 1024;
    // By the declared length alone: the answer comes before any of the body is sent.
    const declared = await rawSend("PUT", `${W}/file/workspace/big.bin`, { contentLength: limit + 1, bytes: 0 });
    expect({ status: declared.status, body: JSON.parse(declared.body) }).toMatchObject({
      status: 413,
      body: { code: "E2BIG" },
    });
    // No length given (chunked): counted as it arrives, refused at the first byte past the limit.
    const streamed = await rawSend("PUT", `${W}/file/workspace/big2.bin`, { bytes: limit + 1 });
    expect({ status: streamed.status, body: JSON.parse(streamed.body) }).toMatchObject({
      status: 413,
      body: { code: "E2BIG" },
    });
    await expectRefusal(await request(`${W}/file/workspace/big.bin`), 404, "ENOENT");
    await expectRefusal(await request(`${W}/file/workspace/big2.bin`), 404, "ENOENT");
  });
});

/**
 * A request that sends `bytes` of body (chunked, or under a declared
 * `contentLength`) and then waits, never ending the request, for the answer,
 * on a connection of its own that is closed after. Sending no more than the
 * server reads before it refuses means nothing is left unread when it
 * closes, so the answer is not lost to a reset, and no later request is
 * sent on the connection the server closed.
 */
function rawSend(
  method: string,
  path: string,
  options: { contentLength?: number; bytes: number },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const put = httpRequest(new URL(path, url()), {
      method,
      agent: false,
      headers: options.contentLength === undefined ? {} : { "content-length": String(options.contentLength) },
    });
    put.on("response", (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (text: string) => (body += text));
      response.on("end", () => {
        put.destroy();
        resolve({ status: response.statusCode ?? 0, body });
      });
    });
    put.on("error", reject);
    put.flushHeaders();
    const mib = Buffer.alloc(1024 * 1024);
    let left = options.bytes;
    const next = (): void => {
      if (left === 0 || put.destroyed) return;
      const piece = left >= mib.byteLength ? mib : mib.subarray(0, left);
      left -= piece.byteLength;
      put.write(piece, (error) => {
        if (!error) next();
      });
    };
    next();
  });
}

describe("exec bodies", () => {
  const marker = (n: number) => `touch /workspace/ran-${n}`;
  const bodies: [string, unknown][] = [
    ["not JSON", "{"],
    ["empty", ""],
    ["an array", ["worker-shell"]],
    ["null", "null"],
    ["a string", '"x"'],
    ["no fields", {}],
    ["an unknown backend", { backend: "nope", command: marker(1) }],
    ["a backend number", { backend: 1, command: marker(2) }],
    ["no command", { backend: "worker-shell" }],
    ["a command number", { backend: "worker-shell", command: 5 }],
    ["a blank command", { backend: "worker-shell", command: "  " }],
    ["a command with NUL", { backend: "worker-shell", command: `${marker(3)}\0` }],
    ["a command over 1 MiB", { backend: "worker-shell", command: `${marker(4)} #${"x".repeat(1024 * 1024)}` }],
  ];
  it.each(bodies)("%s is 400 EINVAL", async (_name, body) => {
    await expectRefusal(await postJson(`${W}/exec`, body), 400, "EINVAL");
  });

  it("a body over 2 MiB is 413 E2BIG, from its declared length", async () => {
    const refused = await rawSend("POST", `${W}/exec`, { contentLength: 2 * 1024 * 1024 + 1, bytes: 0 });
    expect({ status: refused.status, body: JSON.parse(refused.body) }).toMatchObject({
      status: 413,
      body: { code: "E2BIG" },
    });
  });

  const cwds = BACKENDS.flatMap((backend) =>
    (
      [
        [5, 400, "EINVAL"],
        ["/etc", 400, "EINVAL"],
        ["../etc", 400, "EINVAL"],
        ["/workspace/../etc", 400, "EINVAL"],
        ["/workspace/\0", 400, "EINVAL"],
        ["/workspace/nope", 404, "ENOENT"],
        ["nope", 404, "ENOENT"],
        ["keep/file", 409, "ENOTDIR"],
      ] as const
    ).map(([cwd, status, code]) => [backend, JSON.stringify(cwd), cwd, status, code] as const),
  );
  it.each(cwds)("%s with cwd %s is %i %s before anything runs", async (backend, _shown, cwd, status, code) => {
    const response = await postJson(`${W}/exec`, { backend, command: marker(6), cwd });
    await expectRefusal(response, status, code);
  });

  it("a relative cwd starts at /workspace, the same on every backend", async () => {
    for (const backend of ["worker-shell", "container-shell"] as const) {
      const response = await postJson(`${W}/exec`, { backend, command: "pwd", cwd: "keep" });
      expect(await response.text()).toContain('"text":"/workspace/keep\\n"');
    }
  });
});

describe("kill bodies and ids", () => {
  const bodies: [string, unknown][] = [
    ["no fields", {}],
    ["an unknown backend", { backend: "nope", id: "x" }],
    ["no id", { backend: "worker-shell" }],
    ["an empty id", { backend: "worker-shell", id: "" }],
    ["an id with NUL", { backend: "container-shell", id: "a\0b" }],
    ["an id with a space", { backend: "worker-javascript", id: "a b" }],
    ["an id of 257 characters", { backend: "worker-shell", id: "x".repeat(257) }],
    ["an id number", { backend: "worker-shell", id: 5 }],
  ];
  it.each(bodies)("%s is 400 EINVAL", async (_name, body) => {
    await expectRefusal(await postJson(`${W}/kill`, body), 400, "EINVAL");
  });

  it.each(BACKENDS)("an unknown id on %s is 404 ENOENT", async (backend) => {
    await expectRefusal(await postJson(`${W}/kill`, { backend, id: `never-ran-${backend}` }), 404, "ENOENT");
  });
});

describe("chat bodies", () => {
  const bodies: [string, unknown][] = [
    ["no messages", {}],
    ["messages not a list", { messages: "hi" }],
    ["an empty list", { messages: [] }],
    ["a bad role", { messages: [{ role: "system", content: "x" }] }],
    ["content a number", { messages: [{ role: "user", content: 5 }] }],
    ["the assistant last", { messages: [{ role: "assistant", content: "x" }] }],
  ];
  it.each(bodies)("%s is 400 EINVAL", async (_name, body) => {
    await expectRefusal(await postJson(`${W}/chat`, body), 400, "EINVAL");
  });
});

describe("after all of it", () => {
  it("the files are as they were, nothing refused ran, and the host's /workspace is empty", async () => {
    expect(await (await request(`${W}/file/workspace/keep/a.txt`)).text()).toBe("kept\n");
    const tree = (await (await request(`${W}/tree`)).json()) as { entries: { path: string }[] };
    expect(tree.entries.map((entry) => entry.path).sort()).toEqual([
      "/workspace/keep",
      "/workspace/keep/a.txt",
      "/workspace/keep/file",
    ]);
    // Each container's /workspace is a mount in its own namespace: the host's directory stays empty.
    expect(readdirSync("/workspace")).toEqual([]);
  });
});
