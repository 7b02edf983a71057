/** Builds the `CliIo` each subcommand gets: cwd after `-C`, env, and repository path helpers. */
import type { GitCliRequest } from "../../contracts/capabilities.js";
import type { GitCore } from "../core.js";
import { toRepoPath } from "../paths.js";
import type { CliIo } from "./types.js";

export function makeIo(git: GitCore, cwd: string, request: GitCliRequest): CliIo {
  let root: Promise<string> | undefined;
  const io: CliIo = {
    cwd,
    env: request.env ?? {},
    stdin: request.stdin,
    root: () => {
      root ??= git.repoRoot({ dir: cwd });
      return root;
    },
    repoPaths: async (paths) => {
      const repo = await io.root();
      return paths.map((path) => toRepoPath(repo, cwd, path));
    },
  };
  return io;
}
