// Bindings of the tools test worker (test/tools/wrangler.jsonc), merged into `env` from "cloudflare:workers".
declare namespace Cloudflare {
  interface Env {
    TOOLS_OBJECT: DurableObjectNamespace<import("./main.worker.js").ToolsObject>;
    ASSETS_BUCKET: R2Bucket;
    MOUNT_BUCKET: R2Bucket;
  }
}
