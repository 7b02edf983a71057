/**
 * `wrangler deploy --dry-run` bundles the MCP server: the Durable Object,
 * the Worker Loader, the container entry and the entry points the shell and
 * the container reach the object through. As in examples/container, the dry
 * run uses a copy of wrangler.jsonc whose `image` is a registry reference:
 * wrangler 4.86 builds a Dockerfile `image` with Docker even for a dry run.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { dryRunDeployWithImage } from "../../test-support/deploy.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
const DOCKERFILE_IMAGE = '"image": "../../containers/Dockerfile"';

describe("examples/mcp deploy", () => {
  it("bundles with wrangler deploy --dry-run, the MCP SDK and the tools included", async () => {
    const config = readFileSync(join(example, "wrangler.jsonc"), "utf8");
    expect(config).toContain(DOCKERFILE_IMAGE);
    // The token is a secret: never a var in the checked-in config.
    expect(config).not.toMatch(/"vars"/);
    const { stdout, bundle } = await dryRunDeployWithImage(example, {
      dockerfileImage: DOCKERFILE_IMAGE,
      image: "registry.cloudflare.com/computerd:dry-run",
    });
    expect(stdout).toContain("env.COMPUTER (Computer)");
    expect(stdout).toContain("env.LOADER");
    expect(stdout).toContain("computer-mcp-computer (registry.cloudflare.com/computerd:dry-run)");
    expect(stdout).toContain("--dry-run: exiting now.");
    for (const name of ["Computer", "WorkspaceProxy", "WorkspaceServiceProxy"]) {
      expect(bundle).toMatch(new RegExp(`export\\s*\\{[^}]*\\b${name}\\b`));
    }
    expect(bundle).toContain("WebStandardStreamableHTTPServerTransport");
    expect(bundle).toContain('"groups/jq.js"');
  });
});
