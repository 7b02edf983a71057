/**
 * The artifacts example: a shell script in the worker-shell backend turns a
 * source repository into a new Artifacts repository and shares it.
 *
 *   POST /create {name}   → 200 {name, remote, shareUrl}
 *                            400 a bad name, 409 the repository exists (or is being made)
 *
 * The flow is plain shell (`FLOW` below) with the built-in `git` and
 * `artifacts` commands: clone the source, copy it, `sed` the name in, commit
 * it to a fresh repository, `artifacts create --remote origin`, push, and
 * `artifacts share` a read URL for 24 hours. One Workspace (Durable Object)
 * per name does the work.
 */
import { DurableObject } from "cloudflare:workers";
import { getWorkspace, withWorkspace } from "@cloudflare/computer";
import { type ArtifactClient, createArtifact } from "@cloudflare/computer/artifacts";
import { type ShellHostContext, WorkerShellBackend } from "@cloudflare/computer/backends/worker-shell";
import { createGitClient } from "@cloudflare/computer/git";
import { LocalArtifacts } from "./local-artifacts.js";

// The Dynamic Worker reaches this Worker's Durable Object through this entry point (env.HOST there).
export { WorkspaceServiceProxy } from "@cloudflare/computer";

interface Env {
  COMPUTER: DurableObjectNamespace<Computer>;
  LOADER: WorkerLoader;
  /** Cloudflare Artifacts. Locally it exists but cannot be reached (it is remote-only), so dev sets the next one. */
  ARTIFACTS: Artifacts;
  /** Dev only: the local Artifacts host (`scripts/artifacts-host.mjs`); when set it replaces `ARTIFACTS`. */
  ARTIFACTS_LOCAL_URL?: string;
  /** The repository every new one starts from (`git clone`, http or https). */
  SOURCE_REPO: string;
}

/**
 * Runs in /workspace with NAME and SOURCE_REPO in the environment; `set -e`
 * stops at the first failing step, and the last line of stdout is the shared
 * URL. `cp -r template site` rather than `template/.`: just-bash's cp refuses
 * to copy a `.` source. The leftovers of a failed run are removed first.
 */
const FLOW = `set -e
rm -rf template site
git clone "$SOURCE_REPO" template
cp -r template site
rm -rf site/.git
for file in $(grep -rlF '{{name}}' site || true); do sed -i "s/{{name}}/$NAME/g" "$file"; done
cd site
git init
git add .
git commit -m "Create $NAME from the template"
artifacts create "$NAME" --remote origin --force
git push origin main
artifacts share "$NAME" --scope read --ttl 24h
`;

/** The Artifacts name rule; `__` is reserved for session prefixes. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

type CreateReply =
  | { ok: true; name: string; remote: string; shareUrl: string }
  | { ok: false; status: 409 | 500; error: string; stderr?: string; exitCode?: number };

export class Computer extends withWorkspace(DurableObject<Env>, (self) => ({
  storage: self.ctx.storage,
  // The shell's `git` runs here, in the Durable Object (isomorphic-git over the workspace's files).
  git: createGitClient(),
  defaultGitIdentity: { name: "Artifacts example", email: "artifacts-example@example.invalid" },
  // Namespace-wide (no session prefix): the repository is called exactly what the request asked for.
  artifacts: { binding: artifactsOf(self.env), sessionId: null },
  backends: [
    new WorkerShellBackend({
      loader: self.env.LOADER,
      workspace: { binding: "COMPUTER", id: self.ctx.id.toString() },
      // `ctx.exports` is typed from Cloudflare.GlobalProps, which this example does not generate.
      ctx: self.ctx as unknown as ShellHostContext,
    }),
  ],
})) {
  /** One creation at a time per name: a second request while one runs is a 409 like an existing repository. */
  #creating = false;

  async create(name: string): Promise<CreateReply> {
    if (this.#creating) return { ok: false, status: 409, error: `repository '${name}' is being created` };
    this.#creating = true;
    try {
      // The package's client over the same binding (namespace-wide, as the Workspace's above).
      const artifacts = createArtifact(artifactsOf(this.env));
      if (await findRepo(artifacts, name)) {
        return { ok: false, status: 409, error: `repository '${name}' already exists` };
      }
      const workspace = await getWorkspace(this);
      await workspace.fs.mkdir("/workspace", { recursive: true });
      const handle = await workspace.runtime.exec(FLOW, {
        cwd: "/workspace",
        env: { NAME: name, SOURCE_REPO: this.env.SOURCE_REPO },
        encoding: "utf8",
      });
      const result = await handle.result();
      const stdout = String(result.stdout);
      if (result.exitCode !== 0) {
        return {
          ok: false,
          status: 500,
          error: "the flow failed",
          stderr: String(result.stderr),
          exitCode: result.exitCode,
        };
      }
      const repo = await findRepo(artifacts, name);
      const shareUrl = stdout.trimEnd().split("\n").at(-1) ?? "";
      return { ok: true, name, remote: repo?.remote ?? "", shareUrl };
    } finally {
      this.#creating = false;
    }
  }
}

/** The repository's metadata, or null when the binding says NOT_FOUND (`get` passes the binding's error on). */
async function findRepo(artifacts: ArtifactClient, name: string): Promise<ArtifactsRepoInfo | null> {
  try {
    return await artifacts.get(name);
  } catch (error) {
    if ((error as { code?: unknown }).code === "NOT_FOUND") return null;
    throw error;
  }
}

/** `env.ARTIFACTS` as it is; in local development, the stand-in with the same interface. */
function artifactsOf(env: Env): Artifacts {
  return env.ARTIFACTS_LOCAL_URL ? new LocalArtifacts(env.ARTIFACTS_LOCAL_URL) : env.ARTIFACTS;
}

function json(value: unknown, status = 200): Response {
  return Response.json(value, { status });
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname !== "/create") {
      return new Response("artifacts example: POST /create {name}\n", { status: 404 });
    }
    if (request.method !== "POST") return new Response("POST only\n", { status: 405 });
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return json({ error: "the body must be JSON" }, 400);
    }
    const name = (body as { name?: unknown } | null)?.name;
    if (typeof name !== "string" || !NAME.test(name) || name.includes("__")) {
      return json({ error: "name must match ^[A-Za-z0-9][A-Za-z0-9._-]*$ without '__'" }, 400);
    }
    const reply = await env.COMPUTER.get(env.COMPUTER.idFromName(name)).create(name);
    if (reply.ok) return json({ name: reply.name, remote: reply.remote, shareUrl: reply.shareUrl });
    const { ok: _ok, status, ...error } = reply;
    return json(error, status);
  },
} satisfies ExportedHandler<Env>;
