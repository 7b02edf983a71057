/**
 * Runs inside the Dynamic Worker as `ws:git` (bundled to `__computer/git.js`).
 * The host decides what is allowed (write access, `allowGitNetwork`, no
 * `-C`/`--git-dir`/`--work-tree`, paths inside the root).
 */
import { call } from "./bridge.js";

export interface GitCliResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export function clone(options: { url: string; dir?: string; depth?: number; branch?: string }): Promise<GitCliResult> {
  return call("git", "clone", [options]) as Promise<GitCliResult>;
}

export function diff(options: { dir?: string; args?: string[] } = {}): Promise<GitCliResult> {
  return call("git", "diff", [options]) as Promise<GitCliResult>;
}

export function status(options: { dir?: string } = {}): Promise<GitCliResult> {
  return call("git", "status", [options]) as Promise<GitCliResult>;
}

export function log(options: { dir?: string; maxCount?: number } = {}): Promise<GitCliResult> {
  return call("git", "log", [options]) as Promise<GitCliResult>;
}

export function cli(request: {
  argv: string[];
  cwd?: string;
  env?: Record<string, string>;
  stdin?: string;
}): Promise<GitCliResult> {
  return call("git", "cli", [request]) as Promise<GitCliResult>;
}

export default { clone, diff, status, log, cli };
