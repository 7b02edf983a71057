/**
 * `computerd host`: the local container host. It gives the container backend
 * a real Linux "container" on a machine without Docker: each workspace's
 * computerd runs as a process in its own mount namespace with a real FUSE
 * mount at `/workspace`, and the host relays port fetches and computerd's
 * dial-back to the Durable Object, and serves egress `http-gateway` (an HTTP
 * proxy whose requests go to the Durable Object's gateway). Stop it with
 * Ctrl-C or SIGTERM; every container it started is stopped (and unmounted)
 * first.
 *
 *   computerd host [--port 45600] [--host 127.0.0.1] [--gateway-ca-dir DIR] [--rootfs DIR]
 */

import { mkdtempSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ContainerSet } from "./containers.js";
import { GatewayCa, removeCa } from "./egress-proxy/ca.js";
import { EgressChannels } from "./egress-proxy/channels.js";
import { createEgressProxy } from "./egress-proxy/proxy.js";
import { createHostServer } from "./server.js";

export const DEFAULT_HOST_PORT = 45600;

/** Environment every container inherits from the host, before its own. */
const INHERITED_ENV = ["PATH", "HOME", "TMPDIR", "TZ", "LANG", "TERM"];

export interface HostOptions {
  port?: number;
  host?: string;
  /** The computerd entry to run per container; default this package's `dist/cli/main.js`. */
  entry?: string;
  namespaces?: boolean;
  /** Boot every container from this image root filesystem (containers/rootfs.sh) instead of this package's computerd. */
  rootfs?: string;
  /**
   * Where the egress gateway's CA lives (made there on first use, reused when
   * present). Default: a fresh directory in the temp dir, removed on close.
   */
  gatewayCaDir?: string;
  log?: (line: string) => void;
}

export interface RunningHost {
  readonly url: string;
  readonly containers: ContainerSet;
  close(): Promise<void>;
}

export async function startHost(options: HostOptions = {}): Promise<RunningHost> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${new Date().toISOString()} [host] ${line}\n`));
  const baseEnv: Record<string, string> = {};
  for (const key of INHERITED_ENV) {
    const value = process.env[key];
    if (value !== undefined) baseEnv[key] = value;
  }
  const caDir = options.gatewayCaDir ?? mkdtempSync(join(tmpdir(), "computerd-host-ca-"));
  const ca = new GatewayCa({ dir: caDir });
  const channels = new EgressChannels(log);
  const proxy = createEgressProxy({
    secureContext: (host) => ca.secureContext(host),
    forward: (name, request) => channels.forward(name, request),
    log,
  });
  let url = "";
  const containers = new ContainerSet({
    entry: options.entry ?? fileURLToPath(new URL("../cli/main.js", import.meta.url)),
    baseEnv,
    ...(options.namespaces === undefined ? {} : { namespaces: options.namespaces }),
    ...(options.rootfs === undefined ? {} : { rootfs: options.rootfs }),
    log,
    gatewayEnv: async (name) => {
      const files = await ca.files();
      return {
        COMPUTERD_EGRESS_TUNNEL: `${url}/v1/containers/${name}/egress/tunnel`,
        COMPUTERD_EGRESS_CA: files.cert,
        COMPUTERD_EGRESS_CA_BUNDLE: files.bundle,
      };
    },
  });
  const server = createHostServer({ containers, egress: { channels, proxy }, log });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? DEFAULT_HOST_PORT, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  url = `http://${address.address}:${address.port}`;
  log(`computerd host listening url=${url}`);
  let closing: Promise<void> | undefined;
  return {
    url,
    containers,
    close() {
      closing ??= (async () => {
        await containers.stopAll();
        proxy.close();
        await channels.closeAll();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        if (options.gatewayCaDir === undefined) await removeCa(caDir);
      })();
      return closing;
    },
  };
}

export function parseHostArgs(argv: string[]): HostOptions {
  const options: HostOptions = {};
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (flag === "--port" && value !== undefined) {
      const port = Number(value);
      if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`--port must be 0–65535; got ${value}`);
      options.port = port;
      i++;
    } else if (flag === "--host" && value !== undefined) {
      options.host = value;
      i++;
    } else if (flag === "--gateway-ca-dir" && value !== undefined) {
      options.gatewayCaDir = value;
      i++;
    } else if (flag === "--rootfs" && value !== undefined) {
      options.rootfs = value;
      i++;
    } else if (flag === "--no-namespaces") {
      options.namespaces = false;
    } else {
      throw new Error(
        `unknown argument ${flag}; usage: computerd host [--port N] [--host ADDR] [--gateway-ca-dir DIR] [--rootfs DIR] [--no-namespaces]`,
      );
    }
  }
  return options;
}

export async function runHost(argv: string[]): Promise<void> {
  const host = await startHost(parseHostArgs(argv));
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    process.once(signal, () => {
      void host.close().finally(() => process.exit(code));
    });
  }
}
