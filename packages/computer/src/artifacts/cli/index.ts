/**
 * The `artifacts` argv CLI (the shell's `artifacts` command and
 * `ws:artifacts`). Exit 0 on success, 1 on a failure (missing repository,
 * existing repository or remote without --force, binding errors), 129 on
 * argv mistakes. Bare `artifacts` prints help and exits 1.
 */
import { type FlagSpecs, parseArgs } from "../../git/cli/args.js";
import { GitUsageError } from "../../git/errors.js";
import type { ArtifactsCliRequest, GitCliResult } from "../../workspace/capabilities.js";
import type { Artifact } from "../artifact.js";
import { CREATE_FLAGS, create, share } from "./create.js";
import { REPO_FLAGS, repo } from "./repo.js";
import { TOKEN_FLAGS, token } from "./token.js";
import type { ArtifactsAction } from "./types.js";

const COMMANDS: Record<string, { flags: FlagSpecs; run: ArtifactsAction }> = {
  create: { flags: CREATE_FLAGS, run: create },
  share: { flags: { scope: { type: "string" }, ttl: { type: "string" } }, run: share },
  repo: { flags: REPO_FLAGS, run: repo },
  token: { flags: TOKEN_FLAGS, run: token },
};

export const ARTIFACTS_HELP = `usage: artifacts <command> [<args>]

  create <name> [--scope write|read] [--ttl <ttl>] [--remote <git-remote>] [--default-branch <b>] [--description <d>] [--force]
  share <name> [--scope read|write] [--ttl <ttl>]
  repo create|get|list|delete|import ...
  token create|list|get|delete ...

<ttl> is seconds or units like 2h30m (s, m, h, d).
`;

export async function runArtifactsCLI(artifact: Artifact, request: ArtifactsCliRequest): Promise<GitCliResult> {
  const argv = request.argv;
  if (!Array.isArray(argv) || argv.some((arg) => typeof arg !== "string")) {
    return { stdout: "", stderr: "artifacts: argv must be an array of strings\n", exitCode: 129 };
  }
  const [name, ...rest] = argv;
  if (name === undefined) return { stdout: "", stderr: ARTIFACTS_HELP, exitCode: 1 };
  if (name === "help" || name === "-h" || name === "--help") return { stdout: ARTIFACTS_HELP, stderr: "", exitCode: 0 };
  const command = COMMANDS[name];
  if (!command) return { stdout: "", stderr: `artifacts: unknown command '${name}'\n${ARTIFACTS_HELP}`, exitCode: 129 };
  try {
    const out = await command.run(artifact, parseArgs(rest, command.flags), request);
    return { stdout: out.stdout ?? "", stderr: out.stderr ?? "", exitCode: out.exitCode ?? 0 };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      stdout: "",
      stderr: `artifacts ${name}: ${message}\n`,
      exitCode: error instanceof GitUsageError ? 129 : 1,
    };
  }
}
