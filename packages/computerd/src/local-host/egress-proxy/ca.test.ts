/**
 * The gateway CA with the real `openssl` CLI: its leaves pass a real TLS
 * handshake for a host name and for IP addresses when the client trusts the
 * CA (and only then), the bundle is the system roots plus the CA, and a CA
 * already in the directory is reused rather than replaced.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { type AddressInfo, isIP } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect, createServer } from "node:tls";
import { afterAll, describe, expect, test } from "vitest";
import { GatewayCa } from "./ca.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function caDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "computerd-ca-test-"));
  dirs.push(dir);
  return dir;
}

/**
 * A TLS server presenting `host`'s leaf; resolves true when a client trusting
 * `ca` accepts it for `host` (an IP is connected to, a name sent as SNI to
 * 127.0.0.1), else with the client's error.
 */
async function handshake(gateway: GatewayCa, host: string, ca: string | undefined): Promise<true | string> {
  const leaf = await gateway.leaf(host);
  const ip = isIP(host) !== 0;
  const server = createServer({ cert: leaf.cert, key: leaf.key }, (socket) => socket.end("ok"));
  await new Promise<void>((resolve) => server.listen(0, ip ? host : "127.0.0.1", resolve));
  try {
    return await new Promise<true | string>((resolve) => {
      const socket = connect({
        host: ip ? host : "127.0.0.1",
        port: (server.address() as AddressInfo).port,
        ...(ip ? {} : { servername: host }),
        ...(ca === undefined ? {} : { ca }),
      });
      socket.once("secureConnect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", (error) => resolve(error.message));
    });
  } finally {
    server.close();
  }
}

describe("GatewayCa", () => {
  test("signs leaves that a client trusting the CA accepts, for a name and for IPv4 and IPv6 addresses", async () => {
    const gateway = new GatewayCa({ dir: caDir() });
    const files = await gateway.files();
    const ca = readFileSync(files.cert, "utf8");
    expect(await handshake(gateway, "example.com", ca)).toBe(true);
    expect(await handshake(gateway, "127.0.0.1", ca)).toBe(true);
    expect(await handshake(gateway, "::1", ca)).toBe(true);
  });

  test("a client trusting only the system roots refuses the leaf", async () => {
    const gateway = new GatewayCa({ dir: caDir() });
    expect(await handshake(gateway, "example.com", undefined)).toMatch(/self[- ]signed|unable to (get|verify)/i);
  });

  test("the leaf names its host and is signed by the CA, per openssl", async () => {
    const dir = caDir();
    const gateway = new GatewayCa({ dir });
    const leaf = await gateway.leaf("Registry.NPMjs.org");
    const text = execFileSync("openssl", ["x509", "-noout", "-text"], { input: leaf.cert, encoding: "utf8" });
    expect(text).toContain("DNS:registry.npmjs.org");
    expect(text).toMatch(/CA:FALSE/);
    expect(text).toContain("TLS Web Server Authentication");
    const verified = execFileSync("openssl", ["verify", "-CAfile", join(dir, "ca.pem")], {
      input: leaf.cert,
      encoding: "utf8",
    });
    expect(verified.trim()).toBe("stdin: OK");
  });

  test("the bundle is the system roots followed by the CA", async () => {
    const dir = caDir();
    const system = join(dir, "system.pem");
    const other = new GatewayCa({ dir: caDir() });
    // Any certificate stands in for the system roots.
    execFileSync("cp", [(await other.files()).cert, system]);
    const gateway = new GatewayCa({ dir, systemBundle: system });
    const files = await gateway.files();
    expect(readFileSync(files.bundle, "utf8")).toBe(
      `${readFileSync(system, "utf8")}${readFileSync(files.cert, "utf8")}`,
    );
  });

  test("a CA already in the directory is reused, not replaced", async () => {
    const dir = caDir();
    const first = readFileSync((await new GatewayCa({ dir }).files()).cert, "utf8");
    const again = new GatewayCa({ dir });
    expect(readFileSync((await again.files()).cert, "utf8")).toBe(first);
    expect(await handshake(again, "example.org", first)).toBe(true);
  });

  test("host names that could not be a certificate's are refused", async () => {
    const gateway = new GatewayCa({ dir: caDir() });
    await expect(gateway.leaf("bad host")).rejects.toThrow(/not a host name/);
    await expect(gateway.leaf("a/b")).rejects.toThrow(/not a host name/);
    await expect(gateway.leaf("x\nsubjectAltName=DNS:evil")).rejects.toThrow(/not a host name/);
  });
});
