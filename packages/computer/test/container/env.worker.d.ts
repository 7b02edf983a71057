// Bindings of the container test worker (wrangler.jsonc).
declare namespace Cloudflare {
  interface Env {
    CONTAINER_WORKSPACE: DurableObjectNamespace<import("./main.worker.js").ContainerWorkspaceObject>;
    DIRECT_CONTAINER_WORKSPACE: DurableObjectNamespace<import("./main.worker.js").DirectContainerWorkspaceObject>;
    GATEWAY_CONTAINER_WORKSPACE: DurableObjectNamespace<import("./main.worker.js").GatewayContainerWorkspaceObject>;
    SCRATCH: DurableObjectNamespace<import("./main.worker.js").ScratchObject>;
    ORIGINAL_WIRING_WORKSPACE: DurableObjectNamespace<import("./main.worker.js").OriginalWiringWorkspaceObject>;
  }
}
