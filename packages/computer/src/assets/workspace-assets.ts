/**
 * The seam between `createAssets` and a Workspace: `new Workspace({ assets:
 * workspaceAssets({ bucket, s3 }) })` builds the client once the Workspace
 * exists, and `workspace.assets.publish(path, { expiresAfter })` shares
 * without a prefix. The `publish` tool passes `prefix: "agent-<sessionId>"`,
 * which goes through.
 */
import type { PublishedAsset } from "../workspace/capabilities.js";
import { type AssetsWorkspace, type CreateAssetsOptions, createAssets } from "./create-assets.js";

export interface AssetsPublisher {
  publish(path: string, options: { expiresAfter: number; prefix?: string }): Promise<PublishedAsset>;
}

export function workspaceAssets(
  options: Omit<CreateAssetsOptions, "ws">,
): (workspace: AssetsWorkspace) => AssetsPublisher {
  return (workspace) => {
    const assets = createAssets({ ...options, ws: workspace });
    return {
      async publish(path, { expiresAfter, prefix }) {
        const url = await assets.share(path, { expiresAfter, ...(prefix === undefined ? {} : { prefix }) });
        return { url };
      },
    };
  };
}
