/**
 * Where the S3 credentials for presigning come from: an explicit `s3` field
 * wins, then the environment. A missing one fails `createAssets` at once,
 * naming the field and the variables that would supply it, instead of the
 * first `share` producing a URL that R2 rejects.
 */
import { WorkspaceError } from "../runtime/errors.js";

export interface S3Config {
  /** The bucket's name as the S3 API knows it (the binding does not expose it). */
  bucket: string;
  accountId?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Default `R2_ENDPOINT`, else `https://<accountId>.r2.cloudflarestorage.com`. */
  endpoint?: string;
  /** Default `"auto"` (what R2 expects). */
  region?: string;
  /** Default `"s3"`. */
  service?: string;
}

/** Our earlier name for `S3Config`. */
export type S3Options = S3Config;

/**
 * Where missing credentials are looked up (a Worker's `env`, `process.env`).
 * Read: CLOUDFLARE_ACCOUNT_ID, R2_ACCESS_KEY_ID / AWS_ACCESS_KEY_ID,
 * R2_SECRET_ACCESS_KEY / AWS_SECRET_ACCESS_KEY, R2_ENDPOINT; other keys are ignored.
 */
export type AssetsEnv = Readonly<Record<string, string | undefined>>;

export interface ResolvedS3 {
  bucket: string;
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  service: string;
}

function missing(what: string, field: string, variables: string[]): WorkspaceError {
  return new WorkspaceError(
    "ENOTCONFIGURED",
    `createAssets: missing ${what}: pass s3.${field} or set ${variables.join(" or ")}`,
  );
}

export function resolveS3(s3: S3Config, env: AssetsEnv): ResolvedS3 {
  if (typeof s3?.bucket !== "string" || s3.bucket === "") {
    throw new TypeError("createAssets: s3.bucket (the bucket's S3 name) is required");
  }
  const accessKeyId = s3.accessKeyId || env.R2_ACCESS_KEY_ID || env.AWS_ACCESS_KEY_ID;
  if (!accessKeyId) throw missing("access key id", "accessKeyId", ["R2_ACCESS_KEY_ID", "AWS_ACCESS_KEY_ID"]);
  const secretAccessKey = s3.secretAccessKey || env.R2_SECRET_ACCESS_KEY || env.AWS_SECRET_ACCESS_KEY;
  if (!secretAccessKey) {
    throw missing("secret access key", "secretAccessKey", ["R2_SECRET_ACCESS_KEY", "AWS_SECRET_ACCESS_KEY"]);
  }
  let endpoint = s3.endpoint || env.R2_ENDPOINT;
  if (!endpoint) {
    const accountId = s3.accountId || env.CLOUDFLARE_ACCOUNT_ID;
    if (!accountId) throw missing("account id (or endpoint)", "accountId", ["CLOUDFLARE_ACCOUNT_ID", "R2_ENDPOINT"]);
    endpoint = `https://${accountId}.r2.cloudflarestorage.com`;
  }
  try {
    new URL(endpoint);
  } catch {
    throw new TypeError(`createAssets: endpoint ${JSON.stringify(endpoint)} is not a URL`);
  }
  return {
    bucket: s3.bucket,
    endpoint,
    accessKeyId,
    secretAccessKey,
    region: s3.region ?? "auto",
    service: s3.service ?? "s3",
  };
}
