/**
 * `createAssets(...).share(path, …)`: streams a workspace file into an R2
 * bucket (through the binding) and returns a presigned GET URL for it
 * (`shareAsset` returns the URL with its key, expiry, size and type)
 * (through the S3 API, since a binding cannot sign). Every share gets a new
 * random key, so a URL always names the bytes that were shared; objects are
 * never deleted here (a bucket lifecycle rule can expire them).
 */
import { normalizePath } from "@cloudflare/dofs";
import { contentDisposition, contentTypeOf } from "./content-type.js";
import { type AssetsEnv, resolveS3, type S3Config } from "./credentials.js";
import { objectKey, randomId } from "./key.js";
import { presignGetUrl } from "./sigv4.js";

export const MAX_EXPIRES_SECONDS = 7 * 24 * 60 * 60;

/** The part of an R2 binding `share` uses (`share` always passes both metadata fields). */
export interface R2PutBucket {
  put(
    key: string,
    value: ReadableStream<Uint8Array>,
    options?: {
      httpMetadata?: { contentType?: string; contentDisposition?: string };
      customMetadata?: Record<string, string>;
    },
  ): Promise<unknown>;
}

/** Our earlier name for `R2PutBucket`. */
export type AssetsBucket = R2PutBucket;

/**
 * The part of a Workspace `share` reads: a `Workspace`, a `getWorkspace()`
 * client, or anything with these two calls. `isFile: false` (a directory)
 * is refused; a stat without `isFile` is taken as a file.
 */
export interface WorkspaceLike {
  readonly sessionId?: string | undefined;
  readonly fs: {
    stat(path: string): Promise<{ size: number; isFile?: boolean }>;
    readFile(path: string): Promise<ReadableStream<Uint8Array>>;
  };
}

/** Our earlier name for `WorkspaceLike`. */
export type AssetsWorkspace = WorkspaceLike;

export interface CreateAssetsOptions {
  ws: WorkspaceLike;
  bucket: R2PutBucket;
  s3: S3Config;
  /**
   * Where credentials missing from `s3` are looked up. Default `process.env`
   * when there is one. A Worker's whole `env` may be passed as it is: only the
   * credential names are read, and a value that is not a string counts as unset.
   */
  env?: AssetsEnv | object;
  /** Clock for signing and `expiresAt`, ms. */
  now?: () => number;
}

export interface ShareOptions {
  /** Lifetime of the URL in ms: > 0, rounded up to whole seconds, capped at 7 days. */
  expiresAfter: number;
  /** Key prefix; slashes are normalized (`"/a//b/"` → `a/b`). */
  prefix?: string;
  /** Default: by extension, else application/octet-stream. */
  contentType?: string;
  /** Name in Content-Disposition. Default: the file's basename. */
  filename?: string;
  /** Default `"inline"`. */
  disposition?: "inline" | "attachment";
}

export interface SharedAsset {
  url: string;
  key: string;
  /** ISO 8601. */
  expiresAt: string;
  size: number;
  contentType: string;
}

/** What `createAssets` returns, as the original names it: `share` gives the URL. */
export interface AssetsClient {
  share(path: string, options: ShareOptions): Promise<string>;
}

/** Ours in addition: `shareAsset` gives the URL with the object's key, expiry, size and content type. */
export interface Assets extends AssetsClient {
  shareAsset(path: string, options: ShareOptions): Promise<SharedAsset>;
}

type FixedLengthStreamClass = new (length: number) => TransformStream<Uint8Array, Uint8Array>;

/** Seconds the URL lives: rounds up, caps at 7 days; zero, negative and NaN are refused. */
export function expirySeconds(expiresAfter: number): number {
  if (typeof expiresAfter !== "number" || Number.isNaN(expiresAfter) || expiresAfter <= 0) {
    throw new TypeError(`expiresAfter must be a number of milliseconds > 0, got ${String(expiresAfter)}`);
  }
  return Math.min(Math.ceil(expiresAfter / 1000), MAX_EXPIRES_SECONDS);
}

/**
 * Copies a stream chunk by chunk. Not `pipeTo`: in workerd, piping the
 * file's (JavaScript) stream into FixedLengthStream's native writable left
 * R2's `put` waiting forever once the body spanned two chunks; explicit
 * writes do not.
 */
async function pump(source: ReadableStream<Uint8Array>, sink: WritableStream<Uint8Array>): Promise<void> {
  const reader = source.getReader();
  const writer = sink.getWriter();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      await writer.write(value);
    }
    await writer.close();
  } catch (error) {
    await writer.abort(error).catch(() => {});
    await reader.cancel(error).catch(() => {});
    throw error;
  }
}

/** The string-valued entries of an env (a Worker's env also holds bindings). */
function stringsOf(env: AssetsEnv | object): AssetsEnv {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
  );
}

function processEnv(): AssetsEnv {
  const process = (globalThis as { process?: { env?: AssetsEnv } }).process;
  return process?.env ?? {};
}

export function createAssets(options: CreateAssetsOptions): Assets {
  const { ws, bucket } = options;
  if (!ws?.fs) throw new TypeError("createAssets needs ws: the Workspace whose files are shared");
  if (typeof bucket?.put !== "function") throw new TypeError("createAssets needs bucket: an R2 bucket binding");
  const s3 = resolveS3(options.s3, stringsOf(options.env ?? processEnv()));
  const now = options.now ?? Date.now;

  async function shareAsset(path: string, shareOptions: ShareOptions): Promise<SharedAsset> {
    const expiresIn = expirySeconds(shareOptions?.expiresAfter);
    const sourcePath = normalizePath(path, "open");
    // stat first: a missing file rejects before anything is put.
    const stat = await ws.fs.stat(sourcePath);
    if (stat.isFile === false) throw new TypeError(`share: ${sourcePath} is not a regular file`);
    const FixedLengthStream = (globalThis as { FixedLengthStream?: FixedLengthStreamClass }).FixedLengthStream;
    if (!FixedLengthStream) {
      throw new TypeError("share needs FixedLengthStream (a Workers runtime API); polyfill it outside workerd");
    }
    const basename = sourcePath.slice(sourcePath.lastIndexOf("/") + 1);
    const key = objectKey(shareOptions.prefix, randomId(), basename);
    const contentType = shareOptions.contentType ?? contentTypeOf(basename);
    const signedAt = now();
    const expiresAt = new Date(signedAt + expiresIn * 1000).toISOString();
    // R2 needs the length up front for a streamed body; FixedLengthStream carries it (and errors if the file changed size).
    const body = new FixedLengthStream(stat.size);
    const upload = bucket.put(key, body.readable, {
      httpMetadata: {
        contentType,
        contentDisposition: contentDisposition(shareOptions.disposition ?? "inline", shareOptions.filename ?? basename),
      },
      customMetadata: { sourcePath, sessionId: ws.sessionId ?? "", expiresAt },
    });
    await Promise.all([pump(await ws.fs.readFile(sourcePath), body.writable), upload]);
    const url = await presignGetUrl({ ...s3, key, expiresIn, now: signedAt });
    return { url, key, expiresAt, size: stat.size, contentType };
  }

  return {
    shareAsset,
    async share(path, shareOptions) {
      return (await shareAsset(path, shareOptions)).url;
    },
  };
}
