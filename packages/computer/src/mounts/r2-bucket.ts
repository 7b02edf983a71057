/**
 * `R2Bucket(binding, options)`: an eager mount of an R2 prefix. It lists
 * every page first (so the caps can refuse a too-large bucket before any
 * byte is copied), then streams the objects in, `concurrency` at a time.
 * Keys lose the prefix (which gets a trailing `/`); a key equal to the
 * prefix (a "directory marker") is skipped; a key that vanishes between list
 * and get fails the mount.
 */
import type { MountAccess } from "@cloudflare/dofs";
import type { MaterializeContext, Mount } from "./types.js";

/** The part of an R2 binding the mount uses (an `R2Bucket` binding has all of it). */
export interface R2MountBinding {
  list(options?: { prefix?: string; cursor?: string; limit?: number }): Promise<{
    objects: { key: string; size: number }[];
    truncated: boolean;
    cursor?: string;
  }>;
  get(key: string): Promise<{ body: ReadableStream<Uint8Array>; size: number } | null>;
}

/** The original's name for it. */
export type R2BucketBinding = R2MountBinding;

/** What `R2Bucket` returns: a mount whose kind and mode are always set. */
export type R2Mount = Mount & { readonly kind: string; readonly mode: MountAccess };

export interface R2BucketOptions {
  prefix?: string;
  /** Default `"read-only"`. */
  mode?: MountAccess;
  /** Keys per list call, 1–1000. Default 1000. */
  listLimit?: number;
  /** Objects streamed at once. Default 8. */
  concurrency?: number;
  maxBytes?: number;
  maxEntries?: number;
}

export function R2Bucket(binding: R2MountBinding, options: R2BucketOptions = {}): R2Mount {
  if (typeof binding?.list !== "function" || typeof binding.get !== "function") {
    throw new TypeError("R2Bucket needs an R2 bucket binding");
  }
  const prefix = options.prefix ? `${options.prefix.replace(/\/+$/, "")}/` : "";
  const listLimit = options.listLimit ?? 1000;
  const concurrency = options.concurrency ?? 8;
  if (!Number.isInteger(listLimit) || listLimit < 1 || listLimit > 1000) {
    throw new TypeError("R2Bucket listLimit must be an integer from 1 to 1000");
  }
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new TypeError("R2Bucket concurrency must be a positive integer");
  return {
    strategy: "eager",
    kind: "r2",
    mode: options.mode ?? "read-only",
    ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
    ...(options.maxEntries === undefined ? {} : { maxEntries: options.maxEntries }),
    async materialize(context: MaterializeContext): Promise<void> {
      const objects: { key: string; size: number }[] = [];
      let cursor: string | undefined;
      let bytes = 0;
      do {
        const page = await binding.list({
          limit: listLimit,
          ...(prefix ? { prefix } : {}),
          ...(cursor ? { cursor } : {}),
        });
        for (const object of page.objects) {
          if (object.key === prefix) continue;
          objects.push(object);
          bytes += object.size;
        }
        if (options.maxEntries !== undefined && objects.length > options.maxEntries) {
          throw new Error(`R2Bucket: more than maxEntries (${options.maxEntries}) objects under "${prefix}"`);
        }
        if (options.maxBytes !== undefined && bytes > options.maxBytes) {
          throw new Error(`R2Bucket: more than maxBytes (${options.maxBytes}) bytes under "${prefix}"`);
        }
        cursor = page.truncated ? page.cursor : undefined;
      } while (cursor);
      const base = context.root === "/" ? "" : context.root;
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < objects.length) {
          const { key } = objects[next++] as { key: string };
          const object = await binding.get(key);
          if (object === null) throw new Error(`R2Bucket: object "${key}" disappeared while mounting`);
          const relative = key.slice(prefix.length);
          if (relative.endsWith("/")) {
            await object.body.cancel();
            await context.mkdir(`${base}/${relative.slice(0, -1)}`);
          } else {
            await context.writeFile(`${base}/${relative}`, object.body);
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, objects.length) }, worker));
    },
  };
}
