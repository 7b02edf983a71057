/**
 * The two ways computerd hands freed memory back that Node does not offer:
 * a full garbage collection on demand (through the in-process inspector), and
 * glibc's malloc_trim (native/memory.c, built by native/build.sh). Either
 * may be missing (another libc, an addon that was not built): reclaim then
 * does what it can without it.
 */
import { existsSync } from "node:fs";
import { Session } from "node:inspector";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/**
 * Where the addon is: native/build.sh's output next to the sources (this
 * file is src/memory or dist/memory), or `native/` beside the container
 * image's bundle (containers/build.sh copies it there).
 */
export const MEMORY_ADDON_PATHS = [
  fileURLToPath(new URL("../../native/build/memory.node", import.meta.url)),
  fileURLToPath(new URL("./native/memory.node", import.meta.url)),
];

/** malloc_trim(0), or undefined when the addon is not there. */
export function loadMallocTrim(): (() => boolean) | undefined {
  const path = MEMORY_ADDON_PATHS.find((candidate) => existsSync(candidate));
  if (path === undefined) return undefined;
  try {
    return (createRequire(import.meta.url)(path) as { trim(): boolean }).trim;
  } catch {
    return undefined;
  }
}

/**
 * V8's most thorough collection, the one a low-memory notification asks
 * for: it also compacts and hands V8's emptied heap pages back (a plain
 * `gc()` left heapTotal at 47 MB with 10 MB used). Without a collection an
 * idle daemon keeps every dead Buffer: V8 collects when its own heap grows,
 * and an idle process allocates nothing (measured: 135 MB of dead chunk
 * buffers still resident after a tree was deleted). Reached through the
 * in-process inspector session (no port is opened); `gc()` exposed at run
 * time when Node was built without the inspector. Undefined when neither is.
 */
export function fullCollector(): (() => Promise<void>) | undefined {
  try {
    const session = new Session();
    session.connect();
    session.disconnect();
    return () =>
      new Promise((resolve) => {
        const once = new Session();
        once.connect();
        // Disconnecting inside the callback leaves the loop waiting on the session forever.
        once.post("HeapProfiler.collectGarbage", () =>
          setImmediate(() => {
            once.disconnect();
            resolve();
          }),
        );
      });
  } catch {
    const gc = exposedGc();
    return gc === undefined ? undefined : async () => gc();
  }
}

function exposedGc(): (() => void) | undefined {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (typeof existing === "function") return existing;
  try {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as unknown;
    return typeof gc === "function" ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}
