/**
 * Code written against the published @cloudflare/computer@0.2.1's `./git`
 * types, compiled against ours (part of `tsconfig.compat.json`): the calls
 * and reads a switching user writes, with the types inferred, not named.
 */
import type * as R from "computer-reference/git";
import { createGitClient, GitError } from "../../src/git/index.js";
import { Workspace } from "../../src/index.js";

export async function flow(storage: DurableObjectStorage): Promise<string[]> {
  const workspace = new Workspace({
    storage,
    git: createGitClient(),
    defaultGitIdentity: { name: "Agent", email: "agent@example.com" },
  });
  const git = workspace.git;
  const dir = "/workspace";
  await git.init({ dir, defaultBranch: "main" });
  await git.add({ dir, paths: [], all: true, trackedOnly: false });
  const { oid } = await git.commit({ dir, message: "first" });
  const staged = (await git.status({ dir })).filter((entry) => entry.index !== " ").map((entry) => entry.path);
  const [head] = await git.log({ dir, depth: 1 });
  const subject: string = head?.message.split("\n")[0] ?? "";
  const when: number = (await git.show({ dir, ref: oid })).author.timestamp;
  const branch: string | undefined = await git.currentBranch({ dir });
  const summary = (await git.diffSummary({ dir, ref: "HEAD" })).map((entry) => `${entry.status} ${entry.path}`);
  await git.reset({ dir, ref: "HEAD", paths: ["a.txt"] });
  const removed: string[] = await git.clean({ dir, directories: true, dryRun: true });
  const fetched = await git.fetch({
    dir,
    remote: "origin",
    onAuth: async (_url, auth) => ({ ...auth, username: "x", password: "token" }),
    onProgress: (event) => void event.loaded,
    onMessage: (message) => void message.length,
  });
  const pushed = await git.push({ dir, ref: "main" });
  const refOk: boolean | undefined = pushed.refs["refs/heads/main"]?.ok;
  const merged = await git.merge({ dir, theirs: "feature", fastForward: false });
  const bytes: Uint8Array = (await git.catFile({ dir, oid })).bytes;
  const remotes = (await git.remoteList({ dir })).map((remote) => `${remote.name} ${remote.url}`);
  const tree = (await git.lsTree({ dir, ref: "HEAD" })).filter((entry) => entry.type === "blob");
  try {
    await git.log({ dir, ref: "nope" });
  } catch (error) {
    if (error instanceof GitError && error.code === "ELOGFAIL") return [];
  }
  return [
    ...staged,
    subject,
    String(when),
    branch ?? "",
    ...summary,
    ...removed,
    fetched.fetchHead ?? "",
    String(refOk),
    String(merged.fastForward),
    String(bytes.byteLength),
    ...remotes,
    ...tree.map((entry) => entry.path),
  ];
}

// The original's form: the factory over a workspace that only has provider().
export function viaProvider(ws: R.WorkspaceLike): R.GitClient {
  return createGitClient()({ ws });
}

// A factory of the original's type is what ours returns.
export const factory: R.GitClientFactory = createGitClient();

// Written against the original's types: `workspace.git` is a GitClient whether or not it was configured
// (unconfigured, reading it throws ENOTCONFIGURED, in both), and a hand-written factory gets a `ws` with
// `provider()`.
export async function annotated(workspace: Workspace): Promise<string | undefined> {
  return workspace.git.currentBranch({ dir: "/workspace" });
}
export function handWritten(storage: DurableObjectStorage): Workspace {
  const git: R.GitClientFactory = ({ ws, defaultIdentity }) => createGitClient()({ ws, defaultIdentity });
  return new Workspace({ storage, git });
}
