/**
 * The git argv dispatcher: global options (`-C <path>` once, `--version`,
 * `--help`), then one subcommand from the table below, each in its own
 * file. Exit codes: 0 ok, 1 unknown subcommand or other failure, 128 repo /
 * identity / path conditions, 129 argv mistakes. Errors print as
 * `git <sub>: <message>` on stderr.
 */
import type { GitCliRequest, GitCliResult } from "../../contracts/capabilities.js";
import type { GitCore } from "../core.js";
import { describeError, exitCodeOf, GitUsageError } from "../errors.js";
import { resolvePath } from "../paths.js";
import { add } from "./add.js";
import { parseArgs } from "./args.js";
import { branch } from "./branch.js";
import { catFile } from "./cat-file.js";
import { checkout, switchBranch } from "./checkout.js";
import { clean } from "./clean.js";
import { clone } from "./clone.js";
import { commit } from "./commit.js";
import { config } from "./config.js";
import { diff } from "./diff.js";
import { hashObject } from "./hash-object.js";
import { init } from "./init.js";
import { makeIo } from "./io.js";
import { log, normalizeCount } from "./log.js";
import { lsFiles, lsTree } from "./ls.js";
import { merge } from "./merge.js";
import { symbolicRef, updateRef } from "./refs.js";
import { remote } from "./remote.js";
import { fetch, pull, push } from "./remote-sync.js";
import { reset } from "./reset.js";
import { normalizeShort, revParse } from "./rev-parse.js";
import { rm } from "./rm.js";
import { show } from "./show.js";
import { stash } from "./stash.js";
import { normalizePorcelain, status } from "./status.js";
import { tag } from "./tag.js";
import type { Subcommand } from "./types.js";

export const GIT_VERSION_TEXT = "git version 0.0.0 (@cloudflare/computer)\n";

export const SUBCOMMANDS: Readonly<Record<string, Subcommand>> = {
  add,
  branch,
  "cat-file": catFile,
  checkout,
  clean,
  clone,
  commit,
  config,
  diff,
  fetch,
  "hash-object": hashObject,
  init,
  log,
  "ls-files": lsFiles,
  "ls-tree": lsTree,
  merge,
  pull,
  push,
  remote,
  reset,
  "rev-parse": revParse,
  rm,
  show,
  stash,
  status,
  switch: switchBranch,
  "symbolic-ref": symbolicRef,
  tag,
  "update-ref": updateRef,
};

export async function runGitCli(git: GitCore, request: GitCliRequest): Promise<GitCliResult> {
  const argv = request.argv;
  if (!Array.isArray(argv) || argv.some((arg) => typeof arg !== "string")) {
    return { stdout: "", stderr: "git: argv must be an array of strings\n", exitCode: 129 };
  }
  let cwd = resolvePath("/", request.cwd ?? "/");
  let seenC = false;
  let i = 0;
  for (; i < argv.length && (argv[i] as string).startsWith("-"); i++) {
    const arg = argv[i] as string;
    if (arg === "-C") {
      const path = argv[i + 1];
      if (seenC || path === undefined) {
        return usage(seenC ? "only one -C <path> is supported" : "option '-C' requires a path");
      }
      seenC = true;
      cwd = resolvePath(cwd, path);
      i++;
    } else if (arg === "--version") {
      return { stdout: GIT_VERSION_TEXT, stderr: "", exitCode: 0 };
    } else if (arg === "--help" || arg === "-h") {
      return { stdout: helpText(), stderr: "", exitCode: 0 };
    } else {
      return usage(`unknown option: ${arg}`);
    }
  }
  const name = argv[i];
  if (name === undefined || name === "help") return { stdout: helpText(), stderr: "", exitCode: 0 };
  if (name === "version") return { stdout: GIT_VERSION_TEXT, stderr: "", exitCode: 0 };
  const command = SUBCOMMANDS[name];
  if (!command) {
    return {
      stdout: "",
      stderr: `git: '${name}' is not a supported workspace git command. See 'git help'.\n`,
      exitCode: 1,
    };
  }
  try {
    const rest = argv.slice(i + 1);
    const args = parseArgs(
      name === "status"
        ? normalizePorcelain(rest)
        : name === "rev-parse"
          ? normalizeShort(rest)
          : name === "log"
            ? normalizeCount(rest)
            : rest,
      command.flags,
    );
    const out = await command.run(git, args, makeIo(git, cwd, request));
    return { stdout: out.stdout ?? "", stderr: out.stderr ?? "", exitCode: out.exitCode ?? 0 };
  } catch (error) {
    const usageLine = error instanceof GitUsageError ? `usage: git ${name} ${command.usage}\n` : "";
    return { stdout: "", stderr: `git ${name}: ${describeError(error)}\n${usageLine}`, exitCode: exitCodeOf(error) };
  }
}

function usage(message: string): GitCliResult {
  return { stdout: "", stderr: `git: ${message}\nusage: git [-C <path>] <command> [<args>]\n`, exitCode: 129 };
}

function helpText(): string {
  const lines = Object.entries(SUBCOMMANDS).map(([name, command]) => `   ${name.padEnd(13)}${command.usage}`);
  return `usage: git [-C <path>] [--version] [--help] <command> [<args>]\n\nWorkspace git commands:\n${lines.join("\n")}\n   help\n   version\n`;
}
