// What the container project's global setup provides to its tests (`inject("containerHost")`, `inject("computerd")`).
import "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the local container host, e.g. `http://127.0.0.1:40123`. */
    containerHost: string;
    /** A standalone computerd for `TestBackend`: its URL and the mount point its commands see. */
    computerd: { url: string; mountPoint: string };
  }
}
