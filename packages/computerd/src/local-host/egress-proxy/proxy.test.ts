/**
 * The egress proxy against real clients: curl (absolute-form HTTP, CONNECT
 * with TLS terminated by the gateway CA, plain HTTP inside a CONNECT tunnel)
 * and Node's own fetch with the fetch-proxy preload. `forward` stands in for
 * the Durable Object: it records what the gateway would see and answers.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { type AddressInfo, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { type CaFiles, GatewayCa } from "./ca.js";
import { createEgressProxy, type EgressProxy } from "./proxy.js";

interface Seen {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  /** SHA-256 (hex) of the body's bytes. */
  sha: string;
}

/** The built preload (the tests run sources; node needs the compiled .cjs). */
const FETCH_PROXY = fileURLToPath(new URL("../../../dist/egress/fetch-proxy.preload.cjs", import.meta.url));

let dir: string;
let files: CaFiles;
let proxy: EgressProxy;
let server: Server;
let proxyUrl: string;
let seen: Seen[];
let answer: (request: Request) => Promise<Response>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "computerd-proxy-test-"));
  const ca = new GatewayCa({ dir });
  files = await ca.files();
  proxy = createEgressProxy({
    secureContext: (host) => ca.secureContext(host),
    forward: async (name, request) => {
      expect(name).toBe("box");
      const bytes = Buffer.from(await request.arrayBuffer());
      seen.push({
        url: request.url,
        method: request.method,
        headers: Object.fromEntries(request.headers),
        body: bytes.toString("utf8"),
        sha: createHash("sha256").update(bytes).digest("hex"),
      });
      return answer(request);
    },
  });
  // What computerd's tunnel delivers: a plain socket already past the upgrade.
  server = createServer((socket) => proxy.accept(socket, "box"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxyUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  proxy.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  seen = [];
  answer = async (request) =>
    new Response(`answered ${request.method} ${request.url}\n`, { status: 200, headers: { "x-gateway": "yes" } });
});

function run(
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { env: { ...process.env, ...env }, encoding: "utf8" }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const curl = (...args: string[]) => run("curl", ["-sS", "--max-time", "20", ...args]);

describe("egress proxy", () => {
  test("absolute-form HTTP: URL, method, headers and body reach forward; hop-by-hop headers do not", async () => {
    answer = async () =>
      new Response("created\n", {
        status: 201,
        headers: [
          ["x-gateway", "yes"],
          ["set-cookie", "a=1"],
          ["set-cookie", "b=2"],
        ],
      });
    const result = await curl(
      "-i",
      "-x",
      proxyUrl,
      "-H",
      "x-custom: 1",
      "-H",
      "Proxy-Connection: keep-alive",
      "--data-binary",
      "hello body",
      "http://example.test:8080/x?y=1",
    );
    expect(result.code).toBe(0);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ url: "http://example.test:8080/x?y=1", method: "POST", body: "hello body" });
    expect(seen[0]?.headers).toMatchObject({ "x-custom": "1", host: "example.test:8080" });
    expect(seen[0]?.headers).not.toHaveProperty("proxy-connection");
    expect(result.stdout).toMatch(/^HTTP\/1\.1 201 /);
    expect(result.stdout).toMatch(/set-cookie: a=1\r\n/i);
    expect(result.stdout).toMatch(/set-cookie: b=2\r\n/i);
    expect(result.stdout).toMatch(/x-gateway: yes\r\n/i);
    expect(result.stdout.endsWith("\r\n\r\ncreated\n")).toBe(true);
  });

  test("HTTPS through CONNECT: TLS ends here with the gateway CA, and forward sees the https URL", async () => {
    const result = await curl("-x", proxyUrl, "--cacert", files.cert, "https://example.com/secure?q=2");
    expect(result).toMatchObject({ code: 0, stdout: "answered GET https://example.com/secure?q=2\n" });
    const other = await curl("-x", proxyUrl, "--cacert", files.cert, "https://127.0.0.1:8443/ip");
    expect(other).toMatchObject({ code: 0, stdout: "answered GET https://127.0.0.1:8443/ip\n" });
  });

  test("a client that does not trust the gateway CA refuses the connection", async () => {
    const result = await curl("-x", proxyUrl, "--cacert", "/dev/null", "https://example.com/");
    expect(result.code).not.toBe(0);
    expect(seen).toHaveLength(0);
  });

  test("plain HTTP inside a CONNECT tunnel (curl -p, undici) is served too", async () => {
    const result = await curl("-p", "-x", proxyUrl, "http://example.test/tunneled");
    expect(result).toMatchObject({ code: 0, stdout: "answered GET http://example.test/tunneled\n" });
  });

  test("Node's fetch goes through the proxy (the preload on Node 20/22, NODE_USE_ENV_PROXY on 24), for http and https", async () => {
    const script = [
      'const a = await (await fetch("http://example.test/n", { method: "PUT", body: "from node" })).text();',
      'const b = await (await fetch("https://example.com/n")).text();',
      "process.stdout.write(a + b);",
    ].join(" ");
    const result = await run(process.execPath, ["--input-type=module", "-e", script], {
      HTTP_PROXY: proxyUrl,
      HTTPS_PROXY: proxyUrl,
      NODE_EXTRA_CA_CERTS: files.cert,
      NODE_OPTIONS: `--require ${FETCH_PROXY}`,
      // What a gateway container's env sets too (egress/env.ts): Node 24's own fetch reads the proxy variables then.
      NODE_USE_ENV_PROXY: "1",
    });
    expect(result).toMatchObject({
      code: 0,
      stdout: "answered PUT http://example.test/n\nanswered GET https://example.com/n\n",
    });
    expect(seen[0]).toMatchObject({ method: "PUT", body: "from node" });
  });

  test("bodies of megabytes stream both ways intact", async () => {
    const payload = join(dir, "payload.bin");
    await run("sh", ["-c", `head -c ${3 * 1024 * 1024} /dev/urandom > ${payload}`]);
    const sent = (await run("sha256sum", [payload])).stdout.split(" ")[0];
    const chunk = (i: number) => new Uint8Array(64 * 1024).fill(i);
    answer = async () =>
      new Response(
        new ReadableStream({
          start(controller) {
            for (let i = 0; i < 64; i++) controller.enqueue(chunk(i));
            controller.close();
          },
        }),
      );
    const result = await run("sh", [
      "-c",
      `curl -sS --max-time 20 -x ${proxyUrl} --data-binary @${payload} http://example.test/big | sha256sum`,
    ]);
    expect(result.code).toBe(0);
    expect(seen[0]?.sha).toBe(sent);
    const expected = createHash("sha256");
    for (let i = 0; i < 64; i++) expected.update(chunk(i));
    expect(result.stdout.split(" ")[0]).toBe(expected.digest("hex"));
  });

  test("HEAD gets the headers and no body", async () => {
    answer = async () => new Response(null, { status: 204, headers: { "x-gateway": "head" } });
    const result = await curl("-I", "-x", proxyUrl, "http://example.test/h");
    expect(result.stdout).toMatch(/^HTTP\/1\.1 204 /);
    expect(seen[0]).toMatchObject({ method: "HEAD" });
  });

  test("a request that is not a proxy request gets 400; a failing forward gets 502", async () => {
    const direct = await curl("-i", `${proxyUrl}/not-a-proxy-request`);
    expect(direct.stdout).toMatch(/^HTTP\/1\.1 400 /);
    expect(direct.stdout).toContain("absolute-form");
    answer = async () => {
      throw new Error("the object went away");
    };
    const failed = await curl("-i", "-x", proxyUrl, "http://example.test/fails");
    expect(failed.stdout).toMatch(/^HTTP\/1\.1 502 /);
    expect(failed.stdout).toContain("the object went away");
  });
});
