import type { ParsedArgs } from "../../git/cli/args.js";
import type { ArtifactsCliRequest } from "../../workspace/capabilities.js";
import type { Artifact } from "../artifact.js";

export interface ArtifactsCliOutput {
  stdout?: string;
  stderr?: string;
  exitCode?: number;
}

export type ArtifactsAction = (
  artifact: Artifact,
  args: ParsedArgs,
  request: ArtifactsCliRequest,
) => Promise<ArtifactsCliOutput>;

export function json(value: unknown): ArtifactsCliOutput {
  return { stdout: `${JSON.stringify(value, null, 2)}\n` };
}

export function failure(message: string): ArtifactsCliOutput {
  return { stderr: `artifacts: ${message}\n`, exitCode: 1 };
}
