/**
 * `git …` in the shell: handed whole to the workspace's git CLI on the host
 * (`ws.git.cli`), which runs isomorphic-git over the same files. The shell
 * adds only its cwd, its variables and its stdin. When the workspace has no
 * git (or the call fails) the command exits 1 with `git: <message>`.
 */
import type { Command } from "just-bash";
import type { GitCliRequest, GitCliResult } from "../../protocol/capabilities.js";
import { flattenEnv, hostCommand, messageOf, result, stdinText } from "./context.js";

/** `WorkspaceStub.git` as the command calls it. */
export interface ShellGitLike {
  cli(request: GitCliRequest): Promise<GitCliResult>;
}

/** What `defineGitCommand` needs of the host: its git CLI. */
export interface GitCommandHost {
  readonly git: ShellGitLike;
}

export function defineGitCommand(ws: GitCommandHost): Command {
  return hostCommand("git", async (argv, ctx) => {
    try {
      const request: GitCliRequest = { argv, cwd: ctx.cwd, env: flattenEnv(ctx.env) };
      const stdin = stdinText(ctx.stdin);
      if (stdin !== "") request.stdin = stdin;
      const { stdout, stderr, exitCode } = await ws.git.cli(request);
      return result(stdout, stderr, exitCode);
    } catch (error) {
      return result("", `git: ${messageOf(error)}\n`, 1);
    }
  });
}
