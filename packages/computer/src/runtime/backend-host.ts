/**
 * The host a backend in the original's shapes is given by `connect(host)`:
 * the workspace's database and filesystem, and its git and artifacts
 * clients.
 */
import type { Database, WorkspaceFilesystem } from "@cloudflare/dofs";
import type { WorkspaceArtifacts, WorkspaceGit } from "../workspace/capabilities.js";
import type { BackendContext } from "./backend.js";

/**
 * What `connect(host)` is given. An unset `git` or `artifacts` is a client
 * whose every call rejects with ENOTCONFIGURED, as the original's disabled
 * clients do, so a backend may destructure the host without configuring both.
 */
export interface WorkspaceBackendHost {
  readonly db: Database;
  readonly fs: WorkspaceFilesystem;
  readonly git: WorkspaceGit;
  readonly artifacts: WorkspaceArtifacts;
}

/** The host handed to `connect(host)`; `git` and `artifacts` are opened when first read. */
export function hostFor(context: BackendContext): WorkspaceBackendHost {
  return {
    db: context.db,
    fs: context.fs,
    get git() {
      return orDisabled(() => context.git());
    },
    get artifacts() {
      return orDisabled(() => context.artifacts());
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
