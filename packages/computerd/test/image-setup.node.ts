/**
 * The `computerd-image:node` project's global setup: builds the workspace
 * image's root filesystem (containers/rootfs.sh, cached by its inputs) and
 * hands its path to the tests, whose daemons (test/daemon.ts) then boot from it.
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import "./image-daemon.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export default function setup(project: TestProject): void {
  // The first build in a fresh clone runs mmdebstrap (a few minutes); its progress goes to stderr.
  const output = execFileSync("bash", ["containers/rootfs.sh"], {
    cwd: ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    // scripts/setup built the packages; other projects load their dist/ meanwhile, so no rebuild here.
    env: { ...process.env, SKIP_PACKAGE_BUILD: "1" },
  });
  project.provide("computerdImageRootfs", output.trim().split("\n").at(-1) as string);
}
