/**
 * `wrangler deploy --dry-run` bundles the example with its container entry,
 * its Worker Loader and its variables. As in examples/container, the dry run
 * uses a copy of wrangler.jsonc whose `image` is a registry reference:
 * wrangler 4.86 builds a Dockerfile `image` with Docker even for a dry run.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { dryRunDeployWithImage } from "../../test-support/deploy.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
const DOCKERFILE_IMAGE = '"image": "../../containers/Dockerfile"';

describe("examples/egress deploy", () => {
  it("bundles with wrangler deploy --dry-run: bindings, variables, containers entry, entry points", async () => {
    const config = readFileSync(join(example, "wrangler.jsonc"), "utf8");
    expect(config).toContain(DOCKERFILE_IMAGE);
    const { stdout, bundle } = await dryRunDeployWithImage(example, {
      dockerfileImage: DOCKERFILE_IMAGE,
      image: "registry.cloudflare.com/computerd:dry-run",
    });
    expect(stdout).toContain("env.COMPUTER (Computer)");
    expect(stdout).toContain("env.LOADER");
    expect(stdout).toMatch(/env\.EGRESS_MODE \("none"\)/);
    expect(stdout).toMatch(/env\.EGRESS_ALLOWED_URL \("https:\/\/example\.com\/"\)/);
    expect(stdout).toContain("computer-egress-computer (registry.cloudflare.com/computerd:dry-run)");
    expect(stdout).toContain("--dry-run: exiting now.");
    for (const name of ["Computer", "EgressGateway", "WorkspaceProxy", "WorkspaceServiceProxy"]) {
      expect(bundle).toMatch(new RegExp(`export\\s*\\{[^}]*\\b${name}\\b`));
    }
    // The shell's curl group travels in the bundle; the container image carries real curl.
    expect(bundle).toContain('"groups/curl.js"');
  });
});
