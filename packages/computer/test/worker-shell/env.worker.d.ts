// Bindings of the worker-shell test worker (wrangler.jsonc here), merged into `env` from "cloudflare:workers".
declare namespace Cloudflare {
  interface Env {
    SHELL_WORKSPACE: DurableObjectNamespace<import("./main.worker.js").ShellWorkspaceObject>;
    PLAIN_SHELL_WORKSPACE: DurableObjectNamespace<import("./main.worker.js").PlainShellWorkspaceObject>;
    OWN_SHELL_WORKSPACE: DurableObjectNamespace<import("./main.worker.js").OwnShellWorkspaceObject>;
    LOADER: WorkerLoader;
    /** Set by the vitest project: the URL of a plain HTTP server on 127.0.0.1 (globalSetup.node.ts). */
    LOCAL_SERVER_URL: string;
  }
}
