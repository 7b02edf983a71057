// Bindings of the worker-javascript test worker (wrangler.jsonc here), merged into `env` from "cloudflare:workers".
declare namespace Cloudflare {
  interface Env {
    JS_WORKSPACE: DurableObjectNamespace<import("./main.worker.js").JsWorkspaceObject>;
    LOADER: WorkerLoader;
    HOST_SECRET: string;
  }
}
