/**
 * Starts one local container host for the project (real computerd processes
 * in their own mount namespaces) and hands its URL to the tests; and one
 * standalone computerd (a real FUSE mount at a temporary mount point, no
 * secret) for `TestBackend`, which dials a computerd itself.
 */
import { createRequire } from "node:module";
import type { TestProject } from "vitest/node";
import { startComputerd } from "./computerd.node.js";

type HostModule = typeof import("@cloudflare/computerd/host");

/**
 * vitest 5 evaluates a project's global setup in the project's Vite environment, which the
 * Workers plugin resolves with the workerd conditions (capnweb's workerd build then imports
 * `cloudflare:workers`). The host is Node code, so Node's own loader (require of ESM) loads it.
 */
const requireInNode = createRequire(import.meta.url);

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { startHost } = requireInNode("@cloudflare/computerd/host") as HostModule;
  const lines: string[] = [];
  const host = await startHost({ port: 0, log: (line) => lines.push(line) });
  project.provide("containerHost", host.url);
  const daemon = await startComputerd(requireInNode.resolve("@cloudflare/computerd/host"), lines);
  project.provide("computerd", { url: daemon.url, mountPoint: daemon.mountPoint });
  return async () => {
    await daemon.close();
    await host.close();
    if (process.env.COMPUTER_HOST_LOG) process.stderr.write(`${lines.join("\n")}\n`);
  };
}
