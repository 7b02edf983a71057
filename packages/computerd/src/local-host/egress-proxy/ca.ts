/**
 * The egress gateway's certificate authority on the local container host:
 * made once per host with the `openssl` CLI, then one leaf certificate per
 * host name the commands CONNECT to, signed on first use and kept in memory.
 * Commands trust it only through their environment (a bundle of the system
 * roots plus this CA, see packages/computerd/src/egress/env.ts); it is never
 * added to the machine's trust store.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import { isIP } from "node:net";
import { join } from "node:path";
import { createSecureContext, type SecureContext } from "node:tls";

/** Where Debian, Fedora and Alpine keep the system's root bundle. */
const SYSTEM_BUNDLES = ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"];

/** A DNS name of letters, digits, dots, hyphens and underscores: nothing that could escape the openssl config. */
const HOST_NAME = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,251}[A-Za-z0-9_])?$/;

export interface CaFiles {
  /** The CA certificate (PEM): `NODE_EXTRA_CA_CERTS`. */
  cert: string;
  /** The system roots followed by the CA (PEM): `SSL_CERT_FILE`, `CURL_CA_BUNDLE`, `GIT_SSL_CAINFO`. */
  bundle: string;
}

export interface Leaf {
  cert: string;
  key: string;
}

export interface GatewayCaOptions {
  /** Holds `ca.pem`, `ca.key`, `leaf.key` and `bundle.pem`; an existing CA there is reused. */
  dir: string;
  /** The system root bundle to combine with the CA; default the first of the usual paths that exists. */
  systemBundle?: string;
}

export class GatewayCa {
  readonly #dir: string;
  readonly #systemBundle: string | undefined;
  #ready: Promise<CaFiles> | undefined;
  /** One entry per host name; a failed signing is dropped so the next CONNECT tries again. */
  readonly #leaves = new Map<string, Promise<{ leaf: Leaf; context: SecureContext }>>();
  /** The CA certificate (PEM), sent after each leaf so clients can build the chain. */
  #caCert = "";

  constructor(options: GatewayCaOptions) {
    this.#dir = options.dir;
    this.#systemBundle = options.systemBundle ?? SYSTEM_BUNDLES.find((path) => existsSync(path));
  }

  /** Creates the CA on first use (or adopts the one in `dir`) and returns its files. */
  files(): Promise<CaFiles> {
    this.#ready ??= this.#create().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  /** The certificate and key a TLS server presents for `host`, a DNS name or an IP address. */
  async leaf(host: string): Promise<Leaf> {
    return (await this.#entry(host)).leaf;
  }

  async secureContext(host: string): Promise<SecureContext> {
    return (await this.#entry(host)).context;
  }

  #entry(host: string): Promise<{ leaf: Leaf; context: SecureContext }> {
    const name = host.toLowerCase();
    let entry = this.#leaves.get(name);
    if (!entry) {
      entry = this.#sign(name).then((leaf) => ({
        leaf,
        context: createSecureContext({ cert: `${leaf.cert}${this.#caCert}`, key: leaf.key }),
      }));
      entry.catch(() => this.#leaves.delete(name));
      this.#leaves.set(name, entry);
    }
    return entry;
  }

  async #create(): Promise<CaFiles> {
    const path = (file: string): string => join(this.#dir, file);
    await writeFile(path("openssl.cnf"), CONFIG);
    if (!existsSync(path("ca.pem")) || !existsSync(path("ca.key")) || !existsSync(path("leaf.key"))) {
      // Written under temporary names and renamed last: a half-made CA is never mistaken for one to reuse.
      const suffix = `.${process.pid}.tmp`;
      await openssl([
        "req",
        "-x509",
        "-new",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        path(`ca.key${suffix}`),
        "-out",
        path(`ca.pem${suffix}`),
        "-days",
        "3650",
        "-subj",
        "/CN=computerd host egress gateway (local)",
        "-extensions",
        "ca",
        "-config",
        path("openssl.cnf"),
      ]);
      await openssl([
        "genpkey",
        "-algorithm",
        "EC",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-out",
        path(`leaf.key${suffix}`),
      ]);
      for (const file of ["leaf.key", "ca.key", "ca.pem"]) await rename(path(`${file}${suffix}`), path(file));
    }
    this.#caCert = await readFile(path("ca.pem"), "utf8");
    const system = this.#systemBundle ? await readFile(this.#systemBundle, "utf8").catch(() => "") : "";
    const bundle = `${system}${system.endsWith("\n") || system === "" ? "" : "\n"}${this.#caCert}`;
    await writeFile(path(`bundle.pem.${process.pid}.tmp`), bundle);
    await rename(path(`bundle.pem.${process.pid}.tmp`), path("bundle.pem"));
    return { cert: path("ca.pem"), bundle: path("bundle.pem") };
  }

  async #sign(host: string): Promise<Leaf> {
    const ip = isIP(host) !== 0;
    if (!ip && !HOST_NAME.test(host)) throw new Error(`not a host name a certificate can be made for: ${host}`);
    await this.files();
    const key = join(this.#dir, "leaf.key");
    const cert = await openssl(
      [
        "req",
        "-new",
        "-key",
        key,
        "-CA",
        join(this.#dir, "ca.pem"),
        "-CAkey",
        join(this.#dir, "ca.key"),
        "-set_serial",
        `0x${randomBytes(16).toString("hex")}`,
        "-days",
        "365",
        "-subj",
        `/CN=${host}`,
        "-extensions",
        "leaf",
        "-config",
        join(this.#dir, "openssl.cnf"),
      ],
      `${ip ? "IP" : "DNS"}:${host}`,
    );
    return { cert, key: await readFile(key, "utf8") };
  }
}

/** Removes a CA directory the host made for itself. */
export async function removeCa(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/**
 * Both profiles in one file. The leaf's subjectAltName comes from the
 * environment of each openssl run, so a host name never becomes config text.
 */
const CONFIG = `[req]
distinguished_name = dn
[dn]
[ca]
basicConstraints = critical, CA:true, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[leaf]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
subjectAltName = $ENV::LEAF_SAN
`;

/** Runs `openssl`; resolves with its stdout. */
function openssl(args: string[], san = "DNS:unused"): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "openssl",
      args,
      { encoding: "utf8", timeout: 30_000, env: { ...process.env, LEAF_SAN: san } },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`openssl ${args[0]} failed: ${stderr.trim() || error.message}`));
        else resolve(stdout);
      },
    );
  });
}
