export {
  R2Bucket,
  type R2BucketBinding,
  type R2BucketOptions,
  type R2Mount,
  type R2MountBinding,
} from "./r2-bucket.js";
export type {
  MaterializeContext,
  Mount,
  MountContext,
  MountData,
  MountFactory,
  MountFactoryContext,
  MountOption,
  MountsOption,
} from "./types.js";
