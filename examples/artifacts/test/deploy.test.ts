/**
 * `wrangler deploy --dry-run` bundles the example as checked in: the Durable
 * Object, the Worker Loader, the Artifacts binding, the source repository
 * variable, the WorkspaceServiceProxy entry point and the shell's modules.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { dryRunDeploy } from "../../test-support/deploy.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");

describe("examples/artifacts deploy", () => {
  it("bundles with wrangler deploy --dry-run", async () => {
    const { stdout, bundle } = await dryRunDeploy(example);
    expect(stdout).toContain("env.COMPUTER (Computer)");
    expect(stdout).toContain("env.LOADER");
    expect(stdout).toMatch(/env\.ARTIFACTS \(default\)\s+Artifacts/);
    // wrangler shortens long values in its table.
    expect(stdout).toContain('env.SOURCE_REPO ("https://github.com/octocat/Hello-Worl');
    expect(stdout).toContain("--dry-run: exiting now.");
    expect(bundle).toMatch(/export\s*\{[^}]*\bComputer\b/);
    expect(bundle).toMatch(/export\s*\{[^}]*\bWorkspaceServiceProxy\b/);
    expect(bundle).toContain('"shell.js"');
    // git is bundled (isomorphic-git runs the shell's `git` in the Durable Object).
    expect(bundle).toContain("isomorphic-git");
  });
});
