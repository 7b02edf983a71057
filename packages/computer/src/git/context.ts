/** What every git operation works with: the files (as isomorphic-git's fs), the HTTP client and the client-wide pack cache. */
import type { HttpClient } from "isomorphic-git";
import type { GitIdentity } from "../contracts/capabilities.js";
import type { GitFs } from "./fs-adapter.js";
import type { WorkTreeFiles } from "./work-tree.js";

export interface GitContext {
  fs: GitFs;
  /** Whole-tree operations (mkdir -p, rm -rf) on the same files. */
  files: WorkTreeFiles;
  http: HttpClient;
  /** isomorphic-git's object cache; one per client, unbounded (the reference does the same). */
  cache: object;
  defaultIdentity: GitIdentity | undefined;
}

/** HTTP basic or bearer credentials, and extra headers. */
export interface GitAuth {
  username?: string;
  password?: string;
  headers?: Record<string, string>;
}

/** Asked for credentials for `url` (again, with what failed, after a 401); `undefined` gives up. */
export type AuthCallback = (url: string, auth: GitAuth) => GitAuth | undefined | Promise<GitAuth | undefined>;

/** Transfer progress: a phase ("Counting objects", "Receiving objects", …) and how far it is. */
export type ProgressCallback = (event: { phase: string; loaded: number; total?: number }) => void;

/** A line the server sends on its sideband (what git prints as `remote: …`). */
export type MessageCallback = (message: string) => void;

/** Credentials, headers and callbacks for one remote operation; all but `headers` are only used over HTTP. */
export interface GitRemoteAuth {
  headers?: Record<string, string>;
  onAuth?: AuthCallback;
  onProgress?: ProgressCallback;
  onMessage?: MessageCallback;
}
