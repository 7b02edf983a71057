/**
 * `new Workspace({ assets: workspaceAssets({ bucket, s3 }) })`: the
 * original's `(ws) => createAssets({ ws, bucket, s3 })`, spelled once. The
 * Workspace calls it with itself when it is built; `workspace.assets.share`
 * and `.publish` then resolve to the URL.
 */
import { type Assets, type AssetsWorkspace, type CreateAssetsOptions, createAssets } from "./create-assets.js";

export function workspaceAssets(options: Omit<CreateAssetsOptions, "ws">): (workspace: AssetsWorkspace) => Assets {
  return (workspace) => createAssets({ ...options, ws: workspace });
}
