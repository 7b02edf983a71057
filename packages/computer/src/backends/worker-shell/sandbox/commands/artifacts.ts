/**
 * `artifacts …`: the workspace's Artifacts CLI on the host (`ws.artifacts.cli`),
 * with the shell's variables. stdin is not forwarded. `create --remote`
 * registers the new repository as a git remote through `remoteAdd`, which
 * runs `git remote` in the shell's cwd: without `force` an existing remote of
 * that name is reported as `{ok:false, exists:true}` and left alone.
 */
import type { Command } from "just-bash";
import type { GitCliRequest, GitCliResult } from "../../protocol/capabilities.js";
import { flattenEnv, hostCommand, messageOf, result } from "./context.js";

export interface RemoteAddRequest {
  name: string;
  url: string;
  force?: boolean;
}

/** The original's `RemoteAddFn` answer: `exists` marks a taken name, `message` what else went wrong. */
export interface RemoteAddResult {
  ok: boolean;
  exists?: boolean;
  message?: string;
}

export interface ShellArtifactsLike {
  cli(request: {
    argv: string[];
    env?: Record<string, string>;
    remoteAdd?: (request: RemoteAddRequest) => Promise<RemoteAddResult>;
  }): Promise<GitCliResult>;
}

export interface ShellArtifactsHost {
  readonly artifacts: ShellArtifactsLike;
  readonly git: { cli(request: GitCliRequest): Promise<GitCliResult> };
}

/** `git remote add` in `cwd`, refusing to replace an existing remote unless `force`. */
export function remoteAdder(
  ws: ShellArtifactsHost,
  cwd: string,
  env: Record<string, string>,
): (request: RemoteAddRequest) => Promise<RemoteAddResult> {
  return async ({ name, url, force }) => {
    try {
      if (force !== true) {
        const listed = await ws.git.cli({ argv: ["remote"], cwd, env });
        if (listed.exitCode !== 0) return { ok: false, message: listed.stderr.trim() || "git remote failed" };
        if (listed.stdout.split("\n").some((line) => line.trim() === name)) return { ok: false, exists: true };
      }
      const argv = force === true ? ["remote", "add", "--force", name, url] : ["remote", "add", name, url];
      const added = await ws.git.cli({ argv, cwd, env });
      return added.exitCode === 0
        ? { ok: true }
        : { ok: false, message: added.stderr.trim() || "git remote add failed" };
    } catch (error) {
      return { ok: false, message: messageOf(error) };
    }
  };
}

export function defineArtifactsCommand(ws: ShellArtifactsHost): Command {
  return hostCommand("artifacts", async (argv, ctx) => {
    const env = flattenEnv(ctx.env);
    try {
      const { stdout, stderr, exitCode } = await ws.artifacts.cli({
        argv,
        env,
        remoteAdd: remoteAdder(ws, ctx.cwd, env),
      });
      return result(stdout, stderr, exitCode);
    } catch (error) {
      return result("", `artifacts: ${messageOf(error)}\n`, 1);
    }
  });
}
