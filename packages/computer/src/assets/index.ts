/** `@cloudflare/computer/assets`: share workspace files through R2 with presigned URLs. */

export {
  type Assets,
  type AssetsBucket,
  type AssetsWorkspace,
  type CreateAssetsOptions,
  createAssets,
  MAX_EXPIRES_SECONDS,
  type SharedAsset,
  type ShareOptions,
} from "./create-assets.js";
export type { AssetsEnv, S3Options } from "./credentials.js";
export { workspaceAssets } from "./workspace-assets.js";
