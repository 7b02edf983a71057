/**
 * What `WorkspaceServiceProxy.getArtifacts()` answers: an ArtifactsCLITarget
 * whose every call opens the named object's Workspace stub, runs its
 * artifacts CLI and releases the stub. So a Dynamic Worker holding only the
 * proxy reaches the same `artifacts` CLI as `workspace.artifacts.cli`, with
 * the Workspace's binding and session (and the not-configured answer, exit 1,
 * when it has none). The original instead asks the object for its own
 * `getArtifacts` / `artifactsCLI` methods; a Durable Object stub answers
 * every property, so ours goes through the Workspace every object has.
 */
import type { ArtifactsCliRequest, GitCliResult } from "../contracts/capabilities.js";
import { ArtifactsCLITarget } from "./cli-target.worker.js";

/** A Workspace stub as the proxy gets it: its artifacts CLI, and disposable. */
export interface ArtifactsWorkspaceStub {
  readonly artifacts: { cli(request: ArtifactsCliRequest): Promise<GitCliResult> };
  [Symbol.dispose]?(): void;
}

export function workspaceArtifactsTarget(open: () => Promise<ArtifactsWorkspaceStub>): ArtifactsCLITarget {
  return new ArtifactsCLITarget(async (input) => {
    const workspace = await open();
    try {
      const { stdout, stderr, exitCode } = await workspace.artifacts.cli(input);
      return { stdout, stderr, exitCode };
    } finally {
      workspace[Symbol.dispose]?.();
    }
  });
}
