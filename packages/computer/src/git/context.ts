/** What every git operation works with: the adapted filesystem, the HTTP client and the client-wide pack cache. */
import type { WorkspaceFilesystem } from "@cloudflare/dofs";
import type { HttpClient } from "isomorphic-git";
import type { GitIdentity } from "../workspace/capabilities.js";
import type { GitFs } from "./fs-adapter.js";

export interface GitContext {
  fs: GitFs;
  workspace: WorkspaceFilesystem;
  http: HttpClient;
  /** isomorphic-git's object cache; one per client, unbounded (the reference does the same). */
  cache: object;
  defaultIdentity: GitIdentity | undefined;
}

/** Credentials and headers for one remote operation. `onAuth` is typed but only honored by HTTP. */
export interface GitRemoteAuth {
  headers?: Record<string, string>;
  onAuth?: (url: string) => { username?: string; password?: string; headers?: Record<string, string> } | undefined;
}
