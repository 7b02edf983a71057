export { R2Bucket, type R2BucketOptions, type R2MountBinding } from "./r2-bucket.js";
export type { MaterializeContext, Mount, MountData, MountFactoryContext, MountOption, MountsOption } from "./types.js";
