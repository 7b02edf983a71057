// What global-setup.node.ts provides to the worker-shell tests (`inject(…)` from "vitest").
import type { PipelineName } from "./corpus.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** A plain HTTP server on 127.0.0.1 for the egress tests. */
    localServerUrl: string;
    /** The compared pipelines' output from the real GNU tools. */
    gnuPipelines: Record<PipelineName, string>;
  }
}
