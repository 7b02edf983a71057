/** Runs real `git` in a directory with a fixed identity and no user or system config. */
import { spawnSync } from "node:child_process";

export const GIT_ENV = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "Real Git",
  GIT_AUTHOR_EMAIL: "real@example.com",
  GIT_COMMITTER_NAME: "Real Git",
  GIT_COMMITTER_EMAIL: "real@example.com",
} as const;

export function realGit(
  cwd: string,
  args: string[],
  input?: string,
): { stdout: string; stderr: string; status: number } {
  const result = spawnSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", HOME: cwd, ...GIT_ENV },
    ...(input !== undefined ? { input } : {}),
  });
  return { stdout: result.stdout, stderr: result.stderr, status: result.status ?? -1 };
}

/** Like realGit, but throws with stderr on a non-zero exit. */
export function git(cwd: string, ...args: string[]): string {
  const result = realGit(cwd, args);
  if (result.status !== 0) throw new Error(`git ${args.join(" ")} failed (${result.status}): ${result.stderr}`);
  return result.stdout;
}
