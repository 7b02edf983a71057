// Bindings of the test worker (wrangler.jsonc), as typed by `env` from "cloudflare:workers".
declare namespace Cloudflare {
  interface Env {
    PEER: DurableObjectNamespace<import("./peer-object.worker.js").TestPeerObject>;
  }
}
