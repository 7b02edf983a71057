/**
 * `wrangler deploy --dry-run` bundles the example as checked in: the Durable
 * Object, the Worker Loader binding, the WorkspaceServiceProxy entry point
 * the Dynamic Worker reaches the workspace through, and the shell's modules
 * (core plus the curl and jq groups) inside the bundle.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { dryRunDeploy } from "../../test-support/deploy.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");

describe("examples/worker-shell deploy", () => {
  it("bundles with wrangler deploy --dry-run", async () => {
    const { stdout, bundle } = await dryRunDeploy(example);
    expect(stdout).toContain("env.COMPUTER (Computer)");
    expect(stdout).toContain("env.LOADER");
    expect(stdout).toContain("--dry-run: exiting now.");
    expect(bundle).toMatch(/export\s*\{[^}]*\bComputer\b/);
    expect(bundle).toMatch(/export\s*\{[^}]*\bWorkspaceServiceProxy\b/);
    // The shell's modules travel in the bundle as strings keyed by name: the entry, and each group's marker.
    expect(bundle).toContain('"shell.js"');
    expect(bundle).toContain('"groups/curl.js"');
    expect(bundle).toContain('"groups/jq.js"');
    expect(bundle).not.toContain('"groups/yq.js"');
  });
});
