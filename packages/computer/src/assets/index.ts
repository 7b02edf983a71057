/** `@cloudflare/computer/assets`: share workspace files through R2 with presigned URLs. */

export {
  type Assets,
  type AssetsBucket,
  type AssetsClient,
  type AssetsWorkspace,
  type CreateAssetsOptions,
  createAssets,
  MAX_EXPIRES_SECONDS,
  type R2PutBucket,
  type SharedAsset,
  type ShareOptions,
  type WorkspaceLike,
} from "./create-assets.js";
export { type AssetsEnv, type ResolvedS3, resolveS3, type S3Config, type S3Options } from "./credentials.js";
export { workspaceAssets } from "./workspace-assets.js";
