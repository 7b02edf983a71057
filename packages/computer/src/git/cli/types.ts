/** The shape every subcommand file exports. */
import type { GitCore } from "../core.js";
import type { GitEnv } from "../identity.js";
import type { FlagSpecs, ParsedArgs } from "./args.js";

export interface CliIo {
  /** Absolute; `-C` already applied. */
  cwd: string;
  env: GitEnv;
  stdin: string | undefined;
  /** The repository root above `cwd` (ENOTAREPO, 128, outside one). */
  root(): Promise<string>;
  /** Pathspecs given relative to `cwd`, as repository paths (EPATHOUTSIDE, 128, when outside). */
  repoPaths(paths: readonly string[]): Promise<string[]>;
}

export interface CliOutput {
  stdout?: string;
  stderr?: string;
  exitCode?: number;
}

export interface Subcommand {
  usage: string;
  flags: FlagSpecs;
  run(git: GitCore, args: ParsedArgs, io: CliIo): Promise<CliOutput>;
}
