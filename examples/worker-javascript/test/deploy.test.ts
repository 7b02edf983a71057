/**
 * `wrangler deploy --dry-run` bundles the example as checked in: the Durable
 * Object, the Worker Loader binding, and the backend's sandbox module.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { dryRunDeploy } from "../../test-support/deploy.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");

describe("examples/worker-javascript deploy", () => {
  it("bundles with wrangler deploy --dry-run", async () => {
    const { stdout, bundle } = await dryRunDeploy(example);
    expect(stdout).toContain("env.COMPUTER (Computer)");
    expect(stdout).toContain("env.LOADER");
    expect(stdout).toContain("--dry-run: exiting now.");
    expect(bundle).toMatch(/export\s*\{[^}]*\bComputer\b/);
  });
});
