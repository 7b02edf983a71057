/**
 * The git engine under `GitClient`: every verb (each a file under `api/`)
 * with our full results and git's own error codes and messages, and `cli`,
 * the argv front end the shell's `git` and `ws:git` call. `GitClient`
 * (client.ts) is the original's typed surface over it; the CLI runs here
 * directly so its output and exit codes stay git's. One pack cache per core.
 */
import type { WorkspaceFilesystem } from "@cloudflare/dofs";
import type { GitCliRequest, GitCliResult, GitIdentity, WorkspaceGit } from "../contracts/capabilities.js";
import * as commit from "./api/commit.js";
import * as config from "./api/config.js";
import * as diff from "./api/diff.js";
import * as history from "./api/history.js";
import * as merge from "./api/merge.js";
import * as objects from "./api/objects.js";
import * as pull from "./api/pull.js";
import * as refs from "./api/refs.js";
import * as remote from "./api/remote.js";
import * as repo from "./api/repo.js";
import * as reset from "./api/reset.js";
import * as revisions from "./api/revisions.js";
import * as stash from "./api/stash.js";
import * as status from "./api/status.js";
import { runGitCli } from "./cli/index.js";
import type { GitContext } from "./context.js";
import { createGitFs, type GitFs } from "./fs-adapter.js";
import { fetchHttpClient } from "./transport.js";
import { gitFsFiles, workspaceFiles } from "./work-tree.js";

export interface GitCoreOptions {
  /** The fetch HTTP remotes go through; default the global `fetch`. */
  fetch?: typeof fetch;
  defaultIdentity?: GitIdentity;
}

type Options<F> = F extends (ctx: GitContext, options: infer O) => unknown ? O : never;

export class GitCore implements WorkspaceGit {
  readonly #ctx: GitContext;

  /** On a workspace's filesystem, or on any isomorphic-git fs (with the work-tree operations built on it). */
  constructor(files: WorkspaceFilesystem | GitFs, options: GitCoreOptions = {}) {
    const onWorkspace = !("promises" in files);
    this.#ctx = {
      fs: onWorkspace ? createGitFs(files) : files,
      files: onWorkspace ? workspaceFiles(files) : gitFsFiles(files),
      http: fetchHttpClient(options.fetch),
      cache: {},
      defaultIdentity: options.defaultIdentity,
    };
  }

  clone = (o: Options<typeof remote.clone>) => remote.clone(this.#ctx, o);
  init = (o: Options<typeof repo.init> = {}) => repo.init(this.#ctx, o);
  status = (o: Options<typeof status.status> = {}) => status.status(this.#ctx, o);
  diff = (o: Options<typeof diff.diff> = {}) => diff.diff(this.#ctx, o);
  diffSummary = (o: Options<typeof diff.diffSummary> = {}) => diff.diffSummary(this.#ctx, o);
  /** The per-file form of `diff`: status, modes, oids, counts and each file's patch. */
  diffFiles = (o: Options<typeof diff.diffFiles> = {}) => diff.diffFiles(this.#ctx, o);
  add = (o: Options<typeof commit.add>) => commit.add(this.#ctx, o);
  rm = (o: Options<typeof commit.rm>) => commit.rm(this.#ctx, o);
  commit = (o: Options<typeof commit.commit>) => commit.commit(this.#ctx, o);
  log = (o: Options<typeof history.log> = {}) => history.log(this.#ctx, o);
  show = (o: Options<typeof history.show> = {}) => history.show(this.#ctx, o);
  revParse = (o: Options<typeof revisions.revParse>) => revisions.revParse(this.#ctx, o);
  repoRoot = (o: Options<typeof repo.repoRoot> = {}) => repo.repoRoot(this.#ctx, o);
  currentBranch = (o: Options<typeof repo.currentBranch> = {}) => repo.currentBranch(this.#ctx, o);
  lsFiles = (o: Options<typeof repo.lsFiles> = {}) => repo.lsFiles(this.#ctx, o);
  lsTree = (o: Options<typeof objects.lsTree> = {}) => objects.lsTree(this.#ctx, o);
  branch = (o: Options<typeof refs.branch>) => refs.branch(this.#ctx, o);
  branchDelete = (o: Options<typeof refs.branchDelete>) => refs.branchDelete(this.#ctx, o);
  branchList = (o: Options<typeof refs.branchList> = {}) => refs.branchList(this.#ctx, o);
  tag = (o: Options<typeof refs.tag>) => refs.tag(this.#ctx, o);
  tagDelete = (o: Options<typeof refs.tagDelete>) => refs.tagDelete(this.#ctx, o);
  tagList = (o: Options<typeof refs.tagList> = {}) => refs.tagList(this.#ctx, o);
  checkout = (o: Options<typeof refs.checkout>) => refs.checkout(this.#ctx, o);
  fetch = (o: Options<typeof remote.fetch> = {}) => remote.fetch(this.#ctx, o);
  push = (o: Options<typeof remote.push> = {}) => remote.push(this.#ctx, o);
  pull = (o: Options<typeof pull.pull> = {}) => pull.pull(this.#ctx, o);
  merge = (o: Options<typeof merge.merge>) => merge.merge(this.#ctx, o);
  remoteAdd = (o: Options<typeof remote.remoteAdd>) => remote.remoteAdd(this.#ctx, o);
  remoteRemove = (o: Options<typeof remote.remoteRemove>) => remote.remoteRemove(this.#ctx, o);
  remoteList = (o: Options<typeof remote.remoteList> = {}) => remote.remoteList(this.#ctx, o);
  hashObject = (o: Options<typeof objects.hashObject>) => objects.hashObject(this.#ctx, o);
  catFile = (o: Options<typeof objects.catFile>) => objects.catFile(this.#ctx, o);
  updateRef = (o: Options<typeof refs.updateRef>) => refs.updateRef(this.#ctx, o);
  configGet = (o: Options<typeof config.configGet>) => config.configGet(this.#ctx, o);
  configGetAll = (o: Options<typeof config.configGetAll>) => config.configGetAll(this.#ctx, o);
  configSet = (o: Options<typeof config.configSet>) => config.configSet(this.#ctx, o);
  stashPush = (o: Options<typeof stash.stashPush> = {}) => stash.stashPush(this.#ctx, o);
  stashList = (o: Options<typeof stash.stashList> = {}) => stash.stashList(this.#ctx, o);
  stashPop = (o: Options<typeof stash.stashPop> = {}) => stash.stashPop(this.#ctx, o);
  reset = (o: Options<typeof reset.reset> = {}) => reset.reset(this.#ctx, o);
  clean = (o: Options<typeof reset.clean> = {}) => reset.clean(this.#ctx, o);

  /** git's argv front end: `{ argv, cwd?, env?, stdin? }` → `{ stdout, stderr, exitCode }`; never throws for git errors. */
  cli(request: GitCliRequest): Promise<GitCliResult> {
    return runGitCli(this, request);
  }
}
