/**
 * `wrangler deploy --dry-run` bundles the example with its bindings and its
 * container entry. As in examples/container, the Dockerfile `image` is swapped
 * for a registry reference in a scratch copy of the config (wrangler 4.86
 * wants Docker for a Dockerfile even on a dry run); the rest is as checked in.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { dryRunDeployWithImage } from "../../test-support/deploy.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
const DOCKERFILE_IMAGE = '"image": "../../containers/Dockerfile"';

describe("examples/think-compare-runtimes deploy", () => {
  it("bundles with wrangler deploy --dry-run: the runners, the loader, Workers AI and the container", async () => {
    const config = readFileSync(join(example, "wrangler.jsonc"), "utf8");
    expect(config).toContain(DOCKERFILE_IMAGE);
    const { stdout, bundle } = await dryRunDeployWithImage(example, {
      dockerfileImage: DOCKERFILE_IMAGE,
      image: "registry.cloudflare.com/computerd:dry-run",
    });
    expect(stdout).toContain("env.RUNNER (Runner)");
    expect(stdout).toContain("env.LOADER");
    expect(stdout).toContain("env.AI");
    expect(stdout).toContain("computer-think-compare-runtimes-runner (registry.cloudflare.com/computerd:dry-run)");
    expect(stdout).toContain("--dry-run: exiting now.");
    for (const name of ["Runner", "WorkspaceProxy", "WorkspaceServiceProxy"]) {
      expect(bundle).toMatch(new RegExp(`export\\s*\\{[^}]*\\b${name}\\b`));
    }
  });
});
