/**
 * `WorkspaceServiceProxy`: a Workspace for a Dynamic Worker. A Durable Object
 * stub can be put in a loaded Worker's `env` only from compatibility date
 * 2026-08-15 (a namespace or an RpcTarget never), but an entrypoint stub with
 * props can on every date. The
 * host re-exports this class from its main module and passes
 * `ctx.exports.WorkspaceServiceProxy({ props: { binding, id } })`; the loaded
 * code then calls `getWorkspace(env.WORKSPACE)` as it would with the DO stub.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import type { ArtifactsCLITarget } from "../artifacts/cli-target.worker.js";
import { workspaceArtifactsTarget } from "../artifacts/workspace-target.worker.js";
import type { ArtifactsCliRequest, GitCliResult } from "../contracts/capabilities.js";
import type { WorkspaceStub } from "./stub.worker.js";
import type { WorkspaceHost } from "./with-workspace.worker.js";

export interface WorkspaceServiceProxyProps {
  /** Name of the host's Durable Object namespace binding (a `withWorkspace` class). */
  binding: string;
  /** The object's id, as `id.toString()` gives it. */
  id: string;
}

export class WorkspaceServiceProxy extends WorkerEntrypoint<unknown, WorkspaceServiceProxyProps> {
  /** The Workspace of the object named by the props, as a `WorkspaceStub`; the caller disposes it. */
  async getWorkspace(): Promise<WorkspaceStub> {
    return this.#object().__getWorkspaceStub();
  }

  /**
   * The named object's artifacts CLI as an RPC target, for a Dynamic Worker
   * that holds only the proxy (the original's `getArtifacts`): each call
   * opens the Workspace stub, runs `artifacts.cli` and releases the stub.
   */
  async getArtifacts(): Promise<ArtifactsCLITarget> {
    return workspaceArtifactsTarget(() => this.getWorkspace());
  }

  /** One artifacts CLI call (the original's `artifactsCLI`). */
  async artifactsCLI(input: ArtifactsCliRequest): Promise<GitCliResult> {
    return (await this.getArtifacts()).cli(input);
  }

  /** Lets `getWorkspace(proxy)` treat the proxy like the Durable Object itself. */
  async __getWorkspaceStub(): Promise<WorkspaceStub> {
    return this.getWorkspace();
  }

  #object(): WorkspaceHost {
    const props = this.ctx.props as Partial<WorkspaceServiceProxyProps> | undefined;
    const binding = props?.binding;
    const id = props?.id;
    if (typeof binding !== "string" || typeof id !== "string") {
      throw new TypeError(
        "WorkspaceServiceProxy needs props { binding, id }: pass them to ctx.exports.WorkspaceServiceProxy",
      );
    }
    const namespace = (this.env as Record<string, unknown> | undefined)?.[binding] as
      | DurableObjectNamespace
      | undefined;
    if (typeof namespace?.idFromString !== "function" || typeof namespace.get !== "function") {
      throw new TypeError(`WorkspaceServiceProxy: env.${binding} is not a Durable Object namespace binding`);
    }
    // The stub's RPC types would be Rpc.Stub<…>; its runtime shape is what getWorkspace and callers use.
    return namespace.get(namespace.idFromString(id)) as unknown as WorkspaceHost;
  }
}
