/**
 * Starts one local container host for the project (real computerd processes
 * in their own mount namespaces) and hands its URL to the tests.
 */
import { startHost } from "@cloudflare/computerd/host";
import type { TestProject } from "vitest/node";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const lines: string[] = [];
  const host = await startHost({ port: 0, log: (line) => lines.push(line) });
  project.provide("containerHost", host.url);
  return async () => {
    await host.close();
    if (process.env.COMPUTER_HOST_LOG) process.stderr.write(`${lines.join("\n")}\n`);
  };
}
