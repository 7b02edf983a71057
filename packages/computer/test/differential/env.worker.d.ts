// Bindings of the compat test worker (wrangler.jsonc beside this file), as typed by `env` from "cloudflare:workers".
declare namespace Cloudflare {
  interface Env {
    COMPAT_SCRATCH: DurableObjectNamespace<import("./main.worker.js").ScratchObject>;
    REFERENCE_WORKSPACE: DurableObjectNamespace<import("./main.worker.js").ReferenceWorkspaceObject>;
    OURS_WORKSPACE: DurableObjectNamespace<import("./main.worker.js").OursWorkspaceObject>;
    LOADER: WorkerLoader;
    REFERENCE_SHELL: DurableObjectNamespace<import("./shell-objects.worker.js").ReferenceShellObject>;
    OURS_SHELL: DurableObjectNamespace<import("./shell-objects.worker.js").OursShellObject>;
    REFERENCE_ARTIFACTS: DurableObjectNamespace<import("./artifacts-objects.worker.js").ReferenceArtifactsObject>;
    OURS_ARTIFACTS: DurableObjectNamespace<import("./artifacts-objects.worker.js").OursArtifactsObject>;
  }
}
