/**
 * `assets publish <path> [<expiry>]`: uploads a workspace file through the
 * workspace's assets client and prints the URL. A relative path is taken
 * from the shell's cwd. The expiry is ms when bare, or a number with `ms`,
 * `s`, `m` or `h`; one hour by default. Usage mistakes exit 2; a workspace
 * without assets (or a failed upload) exits 1.
 */
import type { Command } from "just-bash";
import type { PublishedAsset, PublishOptions } from "../../protocol/capabilities.js";
import { resolvePath } from "../fs-adapter.js";
import { hostCommand, messageOf, result } from "./context.js";

export interface ShellAssetsLike {
  /** Ours resolves to a `PublishedAsset`; the original's host stub to the URL string. Both are accepted. */
  publish(path: string, options: PublishOptions): Promise<PublishedAsset | string>;
}

/**
 * The original's host for the `assets` command: a stub whose optional
 * `assets.publish` resolves to the URL string. `defineAssetsCommand` also
 * takes ours (`ShellAssetsLike`, possibly null).
 */
export interface AssetsCommandHost {
  assets?: { publish(path: string, options: { expiresAfter: number }): Promise<string> };
}

export const DEFAULT_PUBLISH_EXPIRY_MS = 60 * 60 * 1000;

const USAGE = "usage: assets publish <path> [<expiry>]   (expiry: 1500, 1500ms, 30s, 10m, 1h; default 1h)\n";
const UNIT_MS: Record<string, number> = { "": 1, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `30s` → 30000. Undefined for anything that is not a positive number with a known unit. */
export function parseExpiry(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text);
  if (!match) return undefined;
  const ms = Number(match[1]) * (UNIT_MS[match[2] ?? ""] ?? Number.NaN);
  return Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

export function defineAssetsCommand(
  ws: AssetsCommandHost | { readonly assets: ShellAssetsLike | null | undefined },
): Command {
  return hostCommand("assets", async (argv, ctx) => {
    const [verb, path, expiry, ...rest] = argv;
    if (verb !== "publish" || path === undefined || path === "" || rest.length > 0) return result("", USAGE, 2);
    const expiresAfter = expiry === undefined ? DEFAULT_PUBLISH_EXPIRY_MS : parseExpiry(expiry);
    if (expiresAfter === undefined) return result("", `assets: invalid expiry '${expiry}'\n${USAGE}`, 2);
    try {
      const assets = await ws.assets;
      if (!assets) return result("", "assets: this workspace has no assets configured\n", 1);
      const published = await assets.publish(resolvePath(ctx.cwd, path), { expiresAfter });
      const url = typeof published === "string" ? published : published.url;
      return result(`${url}\n`, "", 0);
    } catch (error) {
      return result("", `assets: ${messageOf(error)}\n`, 1);
    }
  });
}
