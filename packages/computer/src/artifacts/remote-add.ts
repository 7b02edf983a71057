/**
 * The `remoteAdd` seam of the artifacts CLI built on any `WorkspaceGit`'s
 * argv front end, so `artifacts create` registers the remote in the
 * repository around `cwd`: `{ ok: false, exists: true }` when the name is
 * taken and `force` is not set (the existing remote is left alone).
 */
import type { ArtifactsRemoteAdd, WorkspaceGit } from "../contracts/capabilities.js";

export function remoteAddVia(git: WorkspaceGit, cwd: string): ArtifactsRemoteAdd {
  return async ({ name, url, force }) => {
    try {
      const argv = ["remote", "add", ...(force === true ? ["--force"] : []), name, url];
      const result = await git.cli({ argv, cwd });
      if (result.exitCode === 0) return { ok: true };
      const message = result.stderr.trim() || `git remote add exited ${result.exitCode}`;
      return { ok: false, ...(/already exists/.test(result.stderr) ? { exists: true } : {}), message };
    } catch (error) {
      return { ok: false, message: error instanceof Error ? error.message : String(error) };
    }
  };
}
