/**
 * The host a backend in the original's shapes is given by `connect(host)`:
 * the workspace's database and filesystem, and its git and artifacts
 * clients.
 */
import type { Database, WorkspaceFilesystem } from "@cloudflare/dofs";
import type { ArtifactClient } from "../artifacts/artifact.js";
import type { WorkspaceGit } from "../contracts/capabilities.js";
import type { GitClient } from "../git/client.js";
import type { BackendContext } from "./backend.js";

/**
 * What `connect(host)` is given. An unset `git` or `artifacts` is a client
 * whose every call rejects with ENOTCONFIGURED, as the original's disabled
 * clients do, so a backend may destructure the host without configuring both.
 *
 * `git` is typed as the client `createGitClient()` makes (the original's only
 * kind, and its host's type); a Workspace given a git provider of its own
 * hands that provider's client, which may have only `cli`: such a backend
 * names its client type as `Git`.
 */
export interface WorkspaceBackendHost<Git extends WorkspaceGit = GitClient> {
  readonly db: Database;
  readonly fs: WorkspaceFilesystem;
  readonly git: Git;
  /** The Workspace's `ArtifactClient` (every method, as the original's host types it). */
  readonly artifacts: ArtifactClient;
}

/** The host handed to `connect(host)`; `git` and `artifacts` are opened when first read. */
export function hostFor(context: BackendContext): WorkspaceBackendHost {
  // The Workspace's git is whatever its provider opened (a GitClient unless a provider of its own).
  return {
    db: context.db,
    fs: context.fs,
    get git() {
      return orDisabled(() => context.git() as GitClient);
    },
    get artifacts() {
      // A Workspace's artifacts are always an ArtifactClient; the context types only what direct backends use.
      return orDisabled(() => context.artifacts() as ArtifactClient);
    },
  };
}

/** The capability, or, when it is not configured, a client whose calls reject with that error. */
function orDisabled<T extends object>(open: () => T): T {
  try {
    return open();
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code !== "ENOTCONFIGURED") throw error;
    return new Proxy({} as T, {
      get(_target, property) {
        // Not a thenable: awaiting the client itself must not call a method.
        if (property === "then") return undefined;
        return () => Promise.reject(error);
      },
    });
  }
}
