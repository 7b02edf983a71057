/**
 * The `artifacts` argv CLI (the shell's `artifacts` command and
 * `ws:artifacts`). Exit 0 on success; 1 when the operation failed (a
 * missing repository, an existing repository or remote without --force, an
 * unknown command, binding errors); 129 for a malformed command line, framed
 * `artifacts <subcommand>: …`. Bare `artifacts` (or `repo`, `token`) prints
 * its help on stdout and exits 1.
 */
import type { ArtifactsCliRequest, GitCliResult } from "../../contracts/capabilities.js";
import type { ArtifactClient } from "../artifact.js";
import { UsageError } from "./args.js";
import { create, share } from "./create.js";
import { repoCreate, repoDelete, repoGet, repoImport, repoList } from "./repo.js";
import { tokenCreate, tokenDelete, tokenGet, tokenList } from "./token.js";
import { type ArtifactsAction, failure, help } from "./types.js";

export const ARTIFACTS_HELP = `usage: artifacts <command> [<args>]

Cloudflare Artifacts git repositories of this session. Names are local:
'site' is stored as '<session>__site', and only this session's
repositories are listed.

  create <name> [--scope write|read] [--ttl <ttl>] [--remote <git-remote>]
                [--default-branch <branch>] [--description <text>] [--force]
      The repository, a token (write unless --scope read) and a git remote
      (named <name> unless --remote) whose URL carries the token. --force
      reuses an existing repository and replaces the remote's URL.
  share <name> [--scope read|write] [--ttl <ttl>]
      Prints one clone-ready URL carrying a new token (read by default).
  repo create|get|list|delete|import ...   see 'artifacts repo --help'
  token create|list|get|delete ...         see 'artifacts token --help'

<ttl> is seconds or units like 30s, 5m, 2h30m, 1d. The URLs and tokens
printed by create, share and token create are secrets. Exit status: 0 done,
1 failed, 129 a malformed command line.
`;

const REPO_HELP = `usage: artifacts repo <subcommand> [<args>]

  repo create <name> [--description <text>] [--default-branch <branch>] [--read-only]
      Prints the new repository as JSON, with its initial token (a secret).
  repo get <name>        Prints the repository's metadata as JSON.
  repo list              Prints this session's repositories as a JSON array.
  repo delete <name>     Deletes the repository.
  repo import <name> --url <https-url> [--branch <branch>] [--depth <n>]
                         [--read-only] [--description <text>]
      Imports an external git repository.
`;

const TOKEN_HELP = `usage: artifacts token <subcommand> [<args>]

  token create <repo> [--scope write|read] [--ttl <ttl>]
      Prints the new token as JSON; its plaintext is shown only here.
  token list <repo>              Prints { total, tokens } (no secrets).
  token get <repo> <id>          Prints one token's metadata.
  token delete <repo> <id|token> Revokes a token ('revoke' is the same).
`;

interface Group {
  help: string;
  commands: Readonly<Record<string, ArtifactsAction>>;
}

const GROUPS: Readonly<Record<string, Group>> = {
  repo: {
    help: REPO_HELP,
    commands: { create: repoCreate, get: repoGet, list: repoList, delete: repoDelete, import: repoImport },
  },
  token: {
    help: TOKEN_HELP,
    commands: { create: tokenCreate, list: tokenList, get: tokenGet, delete: tokenDelete, revoke: tokenDelete },
  },
};

const HELP_WORDS = new Set(["help", "--help", "-h"]);

export async function runArtifactsCLI(client: ArtifactClient, request: ArtifactsCliRequest): Promise<GitCliResult> {
  const argv = request.argv;
  if (!Array.isArray(argv) || argv.some((arg) => typeof arg !== "string")) {
    return { stdout: "", stderr: "artifacts: argv must be an array of strings\n", exitCode: 129 };
  }
  const [first, ...rest] = argv;
  if (first === undefined) return help(ARTIFACTS_HELP, false);
  if (HELP_WORDS.has(first)) return help(ARTIFACTS_HELP, true);
  if (first === "create") return run("create", create, client, rest, request);
  if (first === "share") return run("share", share, client, rest, request);
  const group = Object.hasOwn(GROUPS, first) ? GROUPS[first] : undefined;
  if (!group) return unknown("artifacts", `'${first}' is not an artifacts command; see 'artifacts help'`);
  const [sub, ...args] = rest;
  if (sub === undefined) return help(group.help, false);
  if (HELP_WORDS.has(sub)) return help(group.help, true);
  const action = Object.hasOwn(group.commands, sub) ? group.commands[sub] : undefined;
  if (!action)
    return unknown(`artifacts ${first}`, `'${sub}' is not a ${first} subcommand; see 'artifacts ${first} --help'`);
  return run(`${first} ${sub === "revoke" ? "delete" : sub}`, action, client, args, request);
}

/** An unknown command is framed by the command it was looked up in; exit 1, as the original. */
function unknown(within: string, message: string): GitCliResult {
  return { stdout: "", stderr: `${within}: ${message}\n`, exitCode: 1 };
}

async function run(
  command: string,
  action: ArtifactsAction,
  client: ArtifactClient,
  argv: readonly string[],
  request: ArtifactsCliRequest,
): Promise<GitCliResult> {
  try {
    return await action(client, argv, request);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof UsageError) return { stdout: "", stderr: `artifacts ${command}: ${message}\n`, exitCode: 129 };
    return failure(command, message);
  }
}
