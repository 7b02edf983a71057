/**
 * Host modules (`ws:*`): the shapes 0.8.0 gives the `modules` option of
 * worker-javascript. A module is bundled source (a string, no host access),
 * an object of functions that run in the Durable Object, or a factory that
 * builds such an object from the Workspace's services when the backend
 * connects. Type-only: importing this file pulls in no runtime.
 */
import type { ArtifactClient } from "../artifacts/artifact.js";
import type { GitClient } from "../git/client.js";
import type { WorkspaceRuntime } from "../runtime/runtime.js";
import type { WorkspaceRuntimeAccess, WorkspaceRuntimeValue } from "../runtime/types.js";
import type { WorkspaceAssetsClient } from "../workspace/capabilities.js";

/** What every host function gets beside its arguments. */
export interface WorkspaceModuleCallContext {
  /** Aborted at the call's deadline or when the run is cancelled. */
  readonly signal: AbortSignal;
  /** Epoch ms after which the isolate stops waiting for this call. */
  readonly deadline: number;
  readonly access: WorkspaceRuntimeAccess;
  /**
   * A path from the isolate, made absolute against the backend root; refused (EACCES / ELOOP / ENOENT)
   * when it leaves the root, passes through a symlink, or (without `allowMissing`) does not exist.
   */
  resolvePath(path: string, options?: { readonly allowMissing?: boolean }): Promise<string>;
  /** `<execution id>:<call number>`: the same on a re-run of the same call, so usable as an idempotency key. */
  readonly callId: string;
  /** Waits for a human answer; only a run that can replay may wait (not supported here yet: it throws). */
  interrupt<Answer = WorkspaceRuntimeValue>(payload: WorkspaceRuntimeValue): Promise<Answer>;
}

/** One exported function: the isolate's arguments (untrusted, so check them) in, a JSON-plain value out. */
export type WorkspaceModuleFunction = (
  args: readonly WorkspaceRuntimeValue[],
  context: WorkspaceModuleCallContext,
) => unknown;

/** A host module's exports by name. */
export type WorkspaceModuleFunctions = Readonly<Record<string, WorkspaceModuleFunction>>;

/** The Workspace's services a factory builds its functions over. */
export interface WorkspaceModuleHost {
  /** Throws on use when the Workspace has no git. */
  readonly git: GitClient;
  /** Throws on use when the Workspace has no Artifacts binding. */
  readonly artifacts: ArtifactClient;
  /** The Workspace's runtime: a host function may run commands on other backends. */
  readonly runtime: WorkspaceRuntime;
  readonly assets?: WorkspaceAssetsClient;
}

/** Builds a host module when the backend connects; `description` tells a model what it offers. */
export interface WorkspaceModuleFactory {
  (host: WorkspaceModuleHost): WorkspaceModuleFunctions;
  readonly description?: string;
}

/** A value of the `modules` option. */
export type WorkspaceModule = string | WorkspaceModuleFunctions | WorkspaceModuleFactory;
