/**
 * The host a backend in the original's shapes is given by `connect(host)`:
 * the workspace's database and filesystem, and its git and artifacts
 * clients.
 */
import type { Database, WorkspaceFilesystem } from "@cloudflare/dofs";
import type { WorkspaceArtifacts, WorkspaceGit } from "../workspace/capabilities.js";
import type { BackendContext } from "./backend.js";

/** What `connect(host)` is given. `git` and `artifacts` throw ENOTCONFIGURED when unset. */
export interface WorkspaceBackendHost {
  readonly db: Database;
  readonly fs: WorkspaceFilesystem;
  readonly git: WorkspaceGit;
  readonly artifacts: WorkspaceArtifacts;
}

/** The host handed to `connect(host)`; `git` and `artifacts` are read when used, so unset ones throw only then. */
export function hostFor(context: BackendContext): WorkspaceBackendHost {
  return {
    db: context.db,
    fs: context.fs,
    get git() {
      return context.git();
    },
    get artifacts() {
      return context.artifacts();
    },
  };
}
