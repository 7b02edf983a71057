// Bindings of the test worker (wrangler.jsonc), as typed by `env` from "cloudflare:workers".
declare namespace Cloudflare {
  interface Env {
    SCRATCH: DurableObjectNamespace<import("./main.worker.js").ScratchObject>;
    WORKSPACE: DurableObjectNamespace<import("./main.worker.js").WorkspaceObject>;
    PLAIN_WORKSPACE: DurableObjectNamespace<import("./main.worker.js").PlainWorkspaceObject>;
  }
  // Types `exports` from "cloudflare:workers" (ctx.exports): the loopback for WorkspaceServiceProxy.
  interface GlobalProps {
    mainModule: typeof import("./main.worker.js");
  }
}
