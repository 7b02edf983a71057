/**
 * Global setup of the `computer-js:workerd` project, in Node: bundles the
 * sandboxes into dist/sandbox/ (`scripts/build-sandboxes.mjs`), so the
 * Dynamic Worker runs the sources under test rather than an older build.
 */
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export default function setup(): void {
  execFileSync("node", [join(packageRoot, "scripts", "build-sandboxes.mjs")], { stdio: "inherit" });
}
