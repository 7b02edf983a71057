/**
 * Host modules (`ws:*`): the shapes 0.8.0 gives the `modules` option of
 * worker-javascript. A module is bundled source (a string, no host access),
 * an object of functions that run in the Durable Object, or a factory that
 * builds such an object from the Workspace's services when the backend
 * connects. Type-only: importing this file pulls in no runtime.
 */
import type { ArtifactClient } from "../artifacts/artifact.js";
import type { AssetsShareClient } from "../contracts/capabilities.js";
import type { GitClient } from "../git/client.js";
import type { WorkspaceRuntimeAccess, WorkspaceRuntimeValue } from "../runtime/types.js";

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

/**
 * The git calls a factory can count on: those whose shapes ours and the original's client share
 * (ours returns more from some others, e.g. `commit`), so a factory typed against either fits both.
 */
type HostGitMethods = "clone" | "init" | "status" | "add" | "rm" | "diff" | "log" | "cli";

/**
 * The runtime as a factory sees it: running a command to its end on another backend. Written
 * structurally, as the part our runtime and the original's share, so a factory typed against
 * either package fits both (the full runtimes differ: template calls, `backends`).
 */
export interface WorkspaceModuleRuntime {
  exec(
    source: string,
    options: {
      backend?: string;
      encoding: "utf8";
      cwd?: string;
      env?: Record<string, string>;
      stdin?: string;
      timeoutMs?: number;
    },
  ): Promise<{
    result(): Promise<{
      exitCode: number;
      stdout: string;
      stderr: string;
      sync: { status: "complete" | "pending"; skipped: readonly { path: string }[]; error?: string };
    }>;
    kill(): Promise<void>;
  }>;
}

/** The Workspace's services a factory builds its functions over. */
export interface WorkspaceModuleHost {
  /** Throws on use when the Workspace has no git. */
  readonly git: Pick<GitClient, HostGitMethods>;
  /** Throws on use when the Workspace has no Artifacts binding. (Its session id is 0.8's optional one: not promised.) */
  readonly artifacts: Omit<ArtifactClient, "sessionId">;
  /** The Workspace's runtime: a host function may run commands on other backends. */
  readonly runtime: WorkspaceModuleRuntime;
  /** Upload and share a workspace file (`share`, as the original's AssetsClient has it). */
  readonly assets?: AssetsShareClient;
}

/**
 * The call of a factory, declared as a method so its `host` parameter is compared both ways: a
 * factory typed against the original's (richer) host still fits here, as at run time it does.
 */
type BuildHostModule = {
  build(host: WorkspaceModuleHost): WorkspaceModuleFunctions;
}["build"];

/** Builds a host module when the backend connects; `description` tells a model what it offers. */
export type WorkspaceModuleFactory = BuildHostModule & {
  readonly description?: string;
};

/** A value of the `modules` option. */
export type WorkspaceModule = string | WorkspaceModuleFunctions | WorkspaceModuleFactory;
