/**
 * `wrangler deploy --dry-run` of an example, quietly (no metrics, config
 * under the repo's .cache), into a temporary outdir: what a deploy would
 * upload, checked without an account.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
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
    // wrangler's `exports` no longer list `./bin/wrangler.js`; its package.json is exported, the bin sits next to it.
    const wrangler = join(
      dirname(createRequire(join(example, "package.json")).resolve("wrangler/package.json")),
      "bin",
      "wrangler.js",
    );
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

export interface ImageSwap {
  /** The config's `"image": …` text for the Dockerfile, exactly as checked in. */
  dockerfileImage: string;
  /** The registry reference deployed instead. */
  image: string;
  /** Other exact text to drop from the copy (an `image_build_context` line). */
  remove?: string[];
}

/**
 * A dry run of an example whose container `image` is a Dockerfile: wrangler
 * 4.86 wants Docker for that even on a dry run (no flag turns it off), and an
 * image *reference* needs none. So this deploys a scratch copy of
 * wrangler.jsonc — in the gitignored `.wrangler/`, every relative path moved
 * one level up — whose image is the reference; everything else is as checked in.
 */
export async function dryRunDeployWithImage(example: string, swap: ImageSwap): Promise<DryRun> {
  const config = readFileSync(join(example, "wrangler.jsonc"), "utf8");
  if (!config.includes(swap.dockerfileImage)) throw new Error(`wrangler.jsonc has no ${swap.dockerfileImage}`);
  const comma = swap.dockerfileImage.endsWith(",") ? "," : "";
  let copy = config.replace(swap.dockerfileImage, `"image": ${JSON.stringify(swap.image)}${comma}`);
  for (const text of swap.remove ?? []) copy = copy.replace(text, "");
  // Every string that is a relative path resolves from the copy's folder, one level down.
  copy = copy.replace(/"(\.{1,2}\/)/g, '"../$1');
  const scratch = join(example, ".wrangler");
  mkdirSync(scratch, { recursive: true });
  const path = join(scratch, "dry-run.wrangler.jsonc");
  writeFileSync(path, copy);
  try {
    return await dryRunDeploy(example, ["--config", path]);
  } finally {
    rmSync(path, { force: true });
  }
}
