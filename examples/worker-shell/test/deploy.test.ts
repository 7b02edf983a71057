/**
 * `wrangler deploy --dry-run` bundles the example as checked in: the Durable
 * Object, the Worker Loader binding, the WorkspaceServiceProxy entry point
 * the Dynamic Worker reaches the workspace through, and the shell's modules
 * (core plus the curl and jq groups) inside the bundle.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
const repo = join(example, "..", "..");

describe("examples/worker-shell deploy", () => {
  it("bundles with wrangler deploy --dry-run", async () => {
    const outdir = mkdtempSync(join(tmpdir(), "worker-shell-example-dry-run-"));
    try {
      const wrangler = createRequire(join(example, "package.json")).resolve("wrangler/bin/wrangler.js");
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [wrangler, "deploy", "--dry-run", "--outdir", outdir],
        {
          cwd: example,
          env: {
            ...process.env,
            WRANGLER_SEND_METRICS: "false",
            XDG_CONFIG_HOME: join(repo, ".cache", "xdg"),
            CLOUDFLARE_CF_FETCH_ENABLED: "false",
          },
        },
      );
      expect(stdout).toContain("env.COMPUTER (Computer)");
      expect(stdout).toContain("env.LOADER");
      expect(stdout).toContain("--dry-run: exiting now.");
      const bundle = readFileSync(join(outdir, "index.js"), "utf8");
      expect(bundle).toMatch(/export\s*\{[^}]*\bComputer\b/);
      expect(bundle).toMatch(/export\s*\{[^}]*\bWorkspaceServiceProxy\b/);
      // The shell's modules travel in the bundle as strings keyed by name: the entry, and each group's marker.
      expect(bundle).toContain('"shell.js"');
      expect(bundle).toContain('"groups/curl.js"');
      expect(bundle).toContain('"groups/jq.js"');
      expect(bundle).not.toContain('"groups/yq.js"');
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});
