/**
 * The `remoteAdd` seam of the artifacts CLI, built on any `WorkspaceGit`'s
 * argv front end, so the shell's `artifacts create --remote` registers the
 * remote in the repository around its cwd.
 */
import type { ArtifactsRemoteAdd, WorkspaceGit } from "../workspace/capabilities.js";

export function remoteAddVia(git: WorkspaceGit, cwd: string): ArtifactsRemoteAdd {
  return async ({ name, url, force }) => {
    const argv = ["remote", "add", ...(force ? ["-f"] : []), name, url];
    const result = await git.cli({ argv, cwd });
    if (result.exitCode === 0) return "added";
    if (/already exists/.test(result.stderr)) return "exists";
    throw new Error(result.stderr.trim() || `git remote add exited ${result.exitCode}`);
  };
}
