/**
 * `wrangler deploy --dry-run` of an example, quietly (no metrics, config
 * under the repo's .cache), into a temporary outdir: what a deploy would
 * upload, checked without an account.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

export interface DryRun {
  /** wrangler's stdout: bindings, containers, `--dry-run: exiting now.` */
  stdout: string;
  /** The bundled main module. */
  bundle: string;
}

export async function dryRunDeploy(example: string, extraArgs: string[] = []): Promise<DryRun> {
  const repo = join(example, "..", "..");
  const outdir = mkdtempSync(join(tmpdir(), "example-dry-run-"));
  try {
    const wrangler = createRequire(join(example, "package.json")).resolve("wrangler/bin/wrangler.js");
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [wrangler, "deploy", "--dry-run", "--outdir", outdir, ...extraArgs],
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
    return { stdout, bundle: readFileSync(join(outdir, "index.js"), "utf8") };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
