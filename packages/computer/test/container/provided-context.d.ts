// What the container project's global setup provides to its tests (`inject("containerHost")`).
import "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** Base URL of the local container host, e.g. `http://127.0.0.1:40123`. */
    containerHost: string;
  }
}
