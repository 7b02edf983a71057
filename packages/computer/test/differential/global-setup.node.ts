/**
 * Global setup of the `computer:differential` project, in Node: bundles the
 * sandboxes into dist/sandbox/ (`scripts/build-sandboxes.mjs`, a few
 * seconds), so the worker-shell objects of shell-objects.worker.ts load the
 * sources under test and the generated groups exist in a fresh checkout.
 */
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export default function setup(): void {
  execFileSync("node", [join(packageRoot, "scripts", "build-sandboxes.mjs")], { stdio: "inherit" });
}
