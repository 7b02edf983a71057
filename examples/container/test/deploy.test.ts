/**
 * `wrangler deploy --dry-run` bundles the example with its container entry.
 *
 * With `image` pointing at a Dockerfile, wrangler 4.86 insists on Docker even
 * for a dry run (it checks `docker info`, then builds the image without
 * pushing), and no flag turns that off. An image *reference* needs no Docker,
 * so the test deploys a copy of wrangler.jsonc whose `image` is a registry
 * reference: everything else — bundle, bindings, migrations, the containers
 * entry's validation — is the checked-in config.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { dryRunDeployWithImage } from "../../test-support/deploy.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
const DOCKERFILE_IMAGE = '"image": "../../containers/Dockerfile"';

describe("examples/container deploy", () => {
  it("bundles with wrangler deploy --dry-run, containers entry included", async () => {
    const config = readFileSync(join(example, "wrangler.jsonc"), "utf8");
    expect(config).toContain(DOCKERFILE_IMAGE);
    expect(config).toMatch(/"enable_containers": false/);
    const { stdout, bundle } = await dryRunDeployWithImage(example, {
      dockerfileImage: DOCKERFILE_IMAGE,
      image: "registry.cloudflare.com/computerd:dry-run",
    });
    expect(stdout).toContain("env.COMPUTER (Computer)");
    expect(stdout).toContain("computer-container-computer (registry.cloudflare.com/computerd:dry-run)");
    expect(stdout).toContain("--dry-run: exiting now.");
    // The Durable Object class and the entry point the container reaches it through.
    expect(bundle).toMatch(/export\s*\{[^}]*\bComputer\b/);
    expect(bundle).toMatch(/export\s*\{[^}]*\bWorkspaceProxy\b/);
  });
});
