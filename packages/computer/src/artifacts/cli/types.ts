import type { ArtifactsCliRequest, GitCliResult } from "../../contracts/capabilities.js";
import type { ArtifactClient } from "../artifact.js";

/** One subcommand: its words after the subcommand's name. Throws UsageError (129) or any other error (1). */
export type ArtifactsAction = (
  client: ArtifactClient,
  argv: readonly string[],
  request: ArtifactsCliRequest,
) => Promise<GitCliResult>;

export function ok(stdout: string): GitCliResult {
  return { stdout, stderr: "", exitCode: 0 };
}

export function json(value: unknown): GitCliResult {
  return ok(`${JSON.stringify(value, null, 2)}\n`);
}

/** Exit 1; `command` frames the message as `artifacts <command>: …`. */
export function failure(command: string, message: string): GitCliResult {
  return { stdout: "", stderr: `artifacts ${command}: ${message}\n`, exitCode: 1 };
}

/** A help text: on stdout, exit 0 when asked for, 1 when the command was incomplete. */
export function help(text: string, asked: boolean): GitCliResult {
  return { stdout: text, stderr: "", exitCode: asked ? 0 : 1 };
}
