/**
 * `wrangler deploy --dry-run` bundles the example as checked in: the Durable
 * Object, the AI binding, the R2 bucket and its S3 name; the local stand-ins
 * travel in the bundle but are off unless LOCAL_STAND_INS is set.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { dryRunDeploy } from "../../test-support/deploy.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");

describe("examples/assets deploy", () => {
  it("bundles with wrangler deploy --dry-run", async () => {
    const { stdout, bundle } = await dryRunDeploy(example);
    expect(stdout).toContain("env.COMPUTER (Computer)");
    expect(stdout).toMatch(/env\.AI\s+AI/);
    expect(stdout).toMatch(/env\.IMAGES \(computer-assets-images\)\s+R2 Bucket/);
    expect(stdout).toContain('env.IMAGES_BUCKET_NAME ("computer-assets-images")');
    expect(stdout).not.toContain("LOCAL_STAND_INS");
    expect(stdout).toContain("--dry-run: exiting now.");
    expect(bundle).toMatch(/export\s*\{[^}]*\bComputer\b/);
    expect(bundle).toContain("@cf/stabilityai/stable-diffusion-xl-base-1.0");
    // The main entry and ./assets only: no shell, no git.
    expect(bundle).not.toContain('"shell.js"');
    expect(bundle).not.toContain("isomorphic-git");
  });
});
