/**
 * The `computer-container-image:workerd` project's global setup: builds the
 * workspace image's root filesystem (containers/rootfs.sh: the Dockerfile's
 * inputs, no Docker; cached under .cache/image by those inputs) and starts a
 * local container host that boots every container from it, so the same
 * container-shell suite runs against computerd as the image ships it: its
 * Node, its bundle and native modules, its Debian packages.
 */
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";

type HostModule = typeof import("@cloudflare/computerd/host");

/** See global-setup.node.ts: the host is Node code, loaded by Node's own loader. */
const requireInNode = createRequire(import.meta.url);

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The first build in a fresh clone runs mmdebstrap (a few minutes); its progress goes to stderr.
  const output = execFileSync("bash", ["containers/rootfs.sh"], {
    cwd: ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    // scripts/setup built the packages; other projects load their dist/ meanwhile, so no rebuild here.
    env: { ...process.env, SKIP_PACKAGE_BUILD: "1" },
  });
  const rootfs = output.trim().split("\n").at(-1) as string;
  const { startHost } = requireInNode("@cloudflare/computerd/host") as HostModule;
  const lines: string[] = [];
  const host = await startHost({ port: 0, rootfs, log: (line) => lines.push(line) });
  project.provide("containerHost", host.url);
  return async () => {
    await host.close();
    if (process.env.COMPUTER_HOST_LOG) process.stderr.write(`${lines.join("\n")}\n`);
  };
}
