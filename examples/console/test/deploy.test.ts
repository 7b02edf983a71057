/**
 * `wrangler deploy --dry-run` bundles the console with its static page, the
 * Worker Loader, the Durable Object and its container entry.
 *
 * With `image` pointing at a Dockerfile, wrangler 4.86 insists on Docker even
 * for a dry run (it builds the image without pushing), so the test deploys a
 * copy of wrangler.jsonc whose `image` is a registry reference; everything
 * else is the checked-in config (see examples/container/test/deploy.test.ts).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { dryRunDeployWithImage } from "../../test-support/deploy.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
const DOCKERFILE_IMAGE = '"image": "../../containers/Dockerfile"';

describe("examples/console deploy", () => {
  it("bundles with wrangler deploy --dry-run: assets, loader, object, container", async () => {
    const config = readFileSync(join(example, "wrangler.jsonc"), "utf8");
    expect(config).toContain(DOCKERFILE_IMAGE);
    const { stdout, bundle } = await dryRunDeployWithImage(example, {
      dockerfileImage: DOCKERFILE_IMAGE,
      image: "registry.cloudflare.com/computerd:dry-run",
    });
    // The page: index.html, style.css and the five modules.
    expect(stdout).toMatch(/Read 7 files from the assets directory .*examples\/console\/public/);
    expect(stdout).toContain("env.COMPUTER (Computer)");
    expect(stdout).toContain("env.LOADER");
    expect(stdout).toContain("computer-console-computer (registry.cloudflare.com/computerd:dry-run)");
    expect(stdout).toContain("--dry-run: exiting now.");
    // The Durable Object and both entry points back into it (the shell's Worker, the container).
    for (const name of ["Computer", "WorkspaceServiceProxy", "WorkspaceProxy"]) {
      expect(bundle).toMatch(new RegExp(`export\\s*\\{[^}]*\\b${name}\\b`));
    }
    // The chat agent travels in the bundle: the demo model and the OpenAI-compatible provider.
    expect(bundle).toContain("scripted-demo");
    expect(bundle).toContain("chat/completions");
  });
});
