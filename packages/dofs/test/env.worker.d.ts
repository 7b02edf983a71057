// Bindings of the test worker (wrangler.jsonc), as typed by `env` from "cloudflare:workers".
declare namespace Cloudflare {
  interface Env {
    FS: DurableObjectNamespace<import("./filesystem-object.worker.js").TestFilesystemObject>;
  }
}
