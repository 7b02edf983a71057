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
const DOCKERFILE_IMAGE = '"image": "./Dockerfile",';
const BUILD_CONTEXT = '"image_build_context": "../../containers",';

describe("examples/tutorial deploy", () => {
  it("bundles with wrangler deploy --dry-run: the tutor, R2, Workers AI and the container", async () => {
    const config = readFileSync(join(example, "wrangler.jsonc"), "utf8");
    expect(config).toContain(DOCKERFILE_IMAGE);
    expect(config).toContain(BUILD_CONTEXT);
    // The image adds the renderers to the workspace image.
    expect(readFileSync(join(example, "Dockerfile"), "utf8")).toMatch(/apt-get install .*pandoc groff libgs10-common/);
    const { stdout, bundle } = await dryRunDeployWithImage(example, {
      dockerfileImage: DOCKERFILE_IMAGE,
      image: "registry.cloudflare.com/computerd-tutorial:dry-run",
      remove: [BUILD_CONTEXT],
    });
    expect(stdout).toContain("env.TUTOR (Tutor)");
    expect(stdout).toContain("env.ASSETS (tutorial-assets)");
    expect(stdout).toContain("env.AI");
    expect(stdout).toContain('env.ASSETS_BUCKET_NAME ("tutorial-assets")');
    expect(stdout).toContain("computer-tutorial-tutor (registry.cloudflare.com/computerd-tutorial:dry-run)");
    expect(stdout).toContain("--dry-run: exiting now.");
    for (const name of ["Tutor", "WorkspaceProxy"]) {
      expect(bundle).toMatch(new RegExp(`export\\s*\\{[^}]*\\b${name}\\b`));
    }
  });
});
