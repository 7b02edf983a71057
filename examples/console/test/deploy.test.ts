/**
 * `wrangler deploy --dry-run` bundles the console with its static page, the
 * Worker Loader, the Durable Object and its container entry.
 *
 * With `image` pointing at a Dockerfile, wrangler 4.86 insists on Docker even
 * for a dry run (it builds the image without pushing), so the test deploys a
 * copy of wrangler.jsonc whose `image` is a registry reference; everything
 * else is the checked-in config (see examples/container/test/deploy.test.ts).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { dryRunDeploy } from "../../test-support/deploy.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
const DOCKERFILE_IMAGE = '"image": "../../containers/Dockerfile"';

describe("examples/console deploy", () => {
  it("bundles with wrangler deploy --dry-run: assets, loader, object, container", async () => {
    const config = readFileSync(join(example, "wrangler.jsonc"), "utf8");
    expect(config).toContain(DOCKERFILE_IMAGE);
    // Kept next to the original (in the gitignored .wrangler/) so paths resolve one level up.
    const scratch = join(example, ".wrangler");
    mkdirSync(scratch, { recursive: true });
    const copy = join(scratch, "dry-run.wrangler.jsonc");
    writeFileSync(
      copy,
      config
        .replace(DOCKERFILE_IMAGE, '"image": "registry.cloudflare.com/computerd:dry-run"')
        .replace('"main": "./src/index.ts"', '"main": "../src/index.ts"')
        .replace('"directory": "./public"', '"directory": "../public"'),
    );
    try {
      const { stdout, bundle } = await dryRunDeploy(example, ["--config", copy]);
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
    } finally {
      rmSync(copy, { force: true });
    }
  });
});
