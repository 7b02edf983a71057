/**
 * computerd's half of egress `http-gateway`, with real processes: commands
 * run by the runner inside the gateway namespace (real `unshare`/`nsenter`,
 * needs root), their proxy connections tunneled over a real upgrade to a
 * stand-in host that checks the bearer and serves the real proxy, whose
 * `forward` plays the Durable Object. What a command can and cannot reach is
 * observed from the command itself: curl, and node's fetch.
 */
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { type AddressInfo, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ExecEvent } from "@cloudflare/computer-rpc";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { allowedEnv } from "../exec/env.js";
import { Runner } from "../exec/runner.js";
import { type CaFiles, GatewayCa } from "../local-host/egress-proxy/ca.js";
import { createEgressProxy, type EgressProxy } from "../local-host/egress-proxy/proxy.js";
import { egressEnv } from "./env.js";
import { type EgressNamespace, openEgressNamespace } from "./namespace.js";
import { EGRESS_TUNNEL_PROTOCOL, tunnelConnections } from "./tunnel.js";

/** The tests run sources; the anchor and the preload run as their own node processes, so from dist. */
const DIST = fileURLToPath(new URL("../../dist/egress/", import.meta.url));
const SECRET = "s3cret";

let dir: string;
let files: CaFiles;
let proxy: EgressProxy;
let host: HttpServer;
let hostUrl: string;
/** A server on the host's loopback: outside the namespace, so commands must not reach it. */
let outside: HttpServer;
let outsideHits = 0;
let outsideUrl: string;
let namespace: EgressNamespace;
let runner: Runner;
let seen: { url: string; method: string; body: string; headers: Record<string, string> }[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "computerd-gateway-test-"));
  const ca = new GatewayCa({ dir });
  files = await ca.files();
  proxy = createEgressProxy({
    secureContext: (name) => ca.secureContext(name),
    forward: async (_name, request) => {
      seen.push({
        url: request.url,
        method: request.method,
        body: request.body ? await request.text() : "",
        headers: Object.fromEntries(request.headers),
      });
      return new Response(`gateway saw ${request.method} ${request.url}\n`);
    },
  });
  host = createHttpServer((_request, response) => response.writeHead(404).end());
  host.on("upgrade", (request, socket, head) => {
    if (
      request.url !== "/v1/containers/box/egress/tunnel" ||
      request.headers.upgrade !== EGRESS_TUNNEL_PROTOCOL ||
      request.headers.authorization !== `Bearer ${SECRET}`
    ) {
      socket.end("HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\n\r\n");
      return;
    }
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nconnection: upgrade\r\nupgrade: ${EGRESS_TUNNEL_PROTOCOL}\r\n\r\n`,
    );
    proxy.accept(socket, "box", head);
  });
  await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve));
  hostUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
  outside = createHttpServer((_request, response) => {
    outsideHits++;
    response.end("outside\n");
  });
  await new Promise<void>((resolve) => outside.listen(0, "127.0.0.1", resolve));
  outsideUrl = `http://127.0.0.1:${(outside.address() as AddressInfo).port}`;

  namespace = await openEgressNamespace({ anchor: join(DIST, "anchor.child.js") });
  tunnelConnections(namespace.listener, { url: `${hostUrl}/v1/containers/box/egress/tunnel`, secret: SECRET });
  runner = new Runner({
    db: openNodeDatabase(),
    logMaxBytes: 1 << 20,
    defaultCwd: "/tmp",
    checkCwd: () => undefined,
    envLayers: [
      allowedEnv(process.env),
      egressEnv({
        port: namespace.port,
        caCert: files.cert,
        caBundle: files.bundle,
        fetchProxy: join(DIST, "fetch-proxy.preload.cjs"),
      }),
    ],
    sweepIntervalMs: 0,
    network: { join: namespace.path },
  });
});

afterAll(async () => {
  runner.shutdown();
  namespace.close();
  proxy.close();
  await new Promise<void>((resolve) => host.close(() => resolve()));
  await new Promise<void>((resolve) => outside.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  seen = [];
  outsideHits = 0;
});

async function sh(source: string): Promise<{ code: number | undefined; stdout: string; stderr: string }> {
  const handle = await runner.exec({ source });
  const events: ExecEvent[] = [];
  for await (const event of handle.events) if (event.name !== "heartbeat") events.push(event);
  const text = (name: "stdout" | "stderr") =>
    Buffer.concat(events.flatMap((e) => (e.name === name ? [Buffer.from(e.value)] : []))).toString();
  const exit = events.at(-1);
  return { code: exit?.name === "exit" ? exit.code : undefined, stdout: text("stdout"), stderr: text("stderr") };
}

describe("a command in the egress gateway namespace", () => {
  test("curl to a server on the host's loopback reaches the gateway instead, with method and body", async () => {
    const result = await sh(`curl -sS --max-time 20 -X POST --data-binary 'the body' ${outsideUrl}/x?y=1`);
    expect(result).toMatchObject({ code: 0, stdout: `gateway saw POST ${outsideUrl}/x?y=1\n` });
    expect(seen).toMatchObject([{ url: `${outsideUrl}/x?y=1`, method: "POST", body: "the body" }]);
    expect(outsideHits).toBe(0);
  });

  test("curl https trusts the gateway CA through its environment alone", async () => {
    const result = await sh("curl -sS --max-time 20 https://example.com/");
    expect(result).toMatchObject({ code: 0, stdout: "gateway saw GET https://example.com/\n" });
  });

  test("node's fetch reaches the gateway over http and https", async () => {
    const script = `const a = await (await fetch("${outsideUrl}/n", { method: "POST", body: "n" })).text();
      const b = await (await fetch("https://example.com/n")).text(); process.stdout.write(a + b);`;
    const result = await sh(`node --input-type=module -e '${script}'`);
    expect(result).toMatchObject({
      code: 0,
      stdout: `gateway saw POST ${outsideUrl}/n\ngateway saw GET https://example.com/n\n`,
    });
  });

  test("bypassing the proxy reaches nothing: not the host's loopback, not a name", async () => {
    const direct = await sh(`curl -sS --max-time 10 --noproxy '*' ${outsideUrl}/`);
    expect(direct.code).toBe(7);
    const named = await sh("curl -sS --max-time 10 --noproxy '*' http://example.com/");
    expect(named.code).not.toBe(0);
    expect(outsideHits).toBe(0);
    expect(seen).toHaveLength(0);
  });

  test("the namespace has the loopback and nothing else, shared by every command", async () => {
    const links = await sh("ip -o link | cut -d: -f2");
    expect(links.stdout.trim()).toBe("lo");
    // Two commands see the same namespace: same inode of /proc/self/ns/net.
    const first = await sh("readlink /proc/self/ns/net");
    const second = await sh("readlink /proc/self/ns/net");
    expect(first.stdout).toMatch(/^net:\[\d+\]\n$/);
    expect(second.stdout).toBe(first.stdout);
    expect(first.stdout.trim()).not.toBe(execFileSync("readlink", ["/proc/self/ns/net"], { encoding: "utf8" }).trim());
  });
});

describe("the tunnel", () => {
  let listener: Server;
  let url: string;

  beforeAll(async () => {
    listener = createServer();
    tunnelConnections(listener, { url: `${hostUrl}/v1/containers/box/egress/tunnel`, secret: "wrong" });
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));

  test("a host that refuses the bearer leaves the command a 502, and forwards nothing", async () => {
    const result = await new Promise<string>((resolve) => {
      const child = execFile("curl", ["-sS", "-i", "--max-time", "10", "-x", url, "http://example.com/"], (_e, out) =>
        resolve(out),
      );
      child.stdin?.end();
    });
    expect(result).toMatch(/^HTTP\/1\.1 502 /);
    expect(seen).toHaveLength(0);
  });
});
