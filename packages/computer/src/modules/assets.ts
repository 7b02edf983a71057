/**
 * `@cloudflare/computer/modules/assets`: `createAssetsModule()`, the
 * `ws:assets` host module: `publish(path, options?)` uploads a workspace file
 * and resolves to a time-limited URL. It needs the Workspace's `assets`
 * (connecting fails without them) and a read-write backend; unknown option
 * keys are refused, so a misspelt one never silently changes nothing.
 */

import type { AssetsShareOptions } from "../contracts/capabilities.js";
import type { WorkspaceRuntimeValue } from "../runtime/types.js";
import { optionalString } from "./access.js";
import { parseDurationMs } from "./duration.js";
import type { WorkspaceModuleFactory, WorkspaceModuleFunctions, WorkspaceModuleHost } from "./types.js";

export interface AssetsModuleOptions {
  /** How long a URL lives when `publish` is not told. Default one hour; must be > 0. */
  readonly defaultExpiresAfterMs?: number;
}

const PUBLISH_KEYS = new Set(["expiresAfter", "filename", "disposition", "contentType"]);

function expiresAfterMs(value: WorkspaceRuntimeValue | undefined, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value <= 0)
      throw new TypeError("publish: expiresAfter must be a positive number of milliseconds.");
    return value;
  }
  if (typeof value !== "string")
    throw new TypeError("publish: expiresAfter must be a number of milliseconds or a duration.");
  return parseDurationMs(value);
}

function shareOptions(value: WorkspaceRuntimeValue | undefined, fallback: number): AssetsShareOptions {
  if (value === undefined || value === null) return { expiresAfter: fallback };
  if (typeof value !== "object" || Array.isArray(value)) throw new TypeError("publish: options must be an object.");
  for (const key of Object.keys(value)) {
    if (!PUBLISH_KEYS.has(key)) {
      throw new TypeError(
        `publish: unknown option ${JSON.stringify(key)}. Use expiresAfter, filename, disposition, or contentType.`,
      );
    }
  }
  const share: AssetsShareOptions = { expiresAfter: expiresAfterMs(value.expiresAfter, fallback) };
  const filename = optionalString(value.filename, "publish: filename");
  if (filename !== undefined) share.filename = filename;
  const contentType = optionalString(value.contentType, "publish: contentType");
  if (contentType !== undefined) share.contentType = contentType;
  const disposition = value.disposition;
  if (disposition !== undefined && disposition !== null) {
    if (disposition !== "inline" && disposition !== "attachment") {
      throw new TypeError('publish: disposition must be "inline" or "attachment".');
    }
    share.disposition = disposition;
  }
  return share;
}

export function createAssetsModule(options: AssetsModuleOptions = {}): WorkspaceModuleFactory {
  const fallback = options.defaultExpiresAfterMs ?? 3_600_000;
  if (typeof fallback !== "number" || !Number.isFinite(fallback) || fallback <= 0) {
    throw new Error("createAssetsModule: defaultExpiresAfterMs must be a positive number.");
  }
  const factory = (host: WorkspaceModuleHost): WorkspaceModuleFunctions => {
    const assets = host.assets;
    if (assets === undefined)
      throw new Error("ws:assets: the Workspace has no assets client. Pass `assets` to the Workspace.");
    return {
      async publish(args, context) {
        if (context.access !== "read-write") throw new Error("ws:assets publish requires Workspace write access.");
        if (args.length === 0 || args.length > 2) {
          throw new TypeError("publish(path, options?) takes a path and an optional options object.");
        }
        const [path, given] = args;
        if (typeof path !== "string" || path === "") throw new TypeError("publish: path must be a non-empty string.");
        const share = shareOptions(given, fallback);
        const resolved = await context.resolvePath(path);
        context.signal.throwIfAborted();
        return assets.share(resolved, share);
      },
    };
  };
  const description =
    '`publish(path, { expiresAfter?, filename?, disposition?, contentType? })` uploads a workspace file and returns a time-limited URL. `expiresAfter` is milliseconds or a duration such as "30m" or "1d" (default one hour, at most seven days); `disposition` is "inline" or "attachment".';
  return Object.assign(factory, { description });
}
