/**
 * The console's Durable Object: one Workspace with all three backends, and
 * the HTTP routes the console page calls (the Worker forwards
 * `/api/w/<name>/…` here with the prefix stripped).
 *
 *   GET    /tree                     → {root, entries: [{path, type}], truncated}
 *   GET    /file/workspace/<path>    → the file's bytes (404 if missing)
 *   PUT    /file/workspace/<path>    → writes the body, parents created (204)
 *   DELETE /file/workspace/<path>    → removes it, recursively for a directory (204; 404 if missing)
 *   POST   /exec  {backend, command, cwd?}  → SSE: start, stdout…, stderr…, exit, sync (or error)
 *   POST   /kill  {backend, id}             → 204 (404 for an id unknown to the backend)
 *
 * A caller's mistake is a 4xx with `{error, code}` (docs/limits.md has the sizes).
 *   POST   /chat  {messages}                → SSE from the agent (see agent.ts)
 */
import { DurableObject } from "cloudflare:workers";
import { sqlSyncRetryScheduler, type Workspace, withWorkspace, workspaceOf } from "@cloudflare/computer";
import { CloudflareContainerBackend, withWorkspaceContainer } from "@cloudflare/computer/backends/container";
import { WorkerJavaScriptBackend } from "@cloudflare/computer/backends/worker-javascript";
import { type ShellHostContext, WorkerShellBackend } from "@cloudflare/computer/backends/worker-shell";
import curl from "@cloudflare/computer/shell/curl";
import jq from "@cloudflare/computer/shell/jq";
import { chat, parseChatBody } from "./agent.js";
import { cwdProblem, killExec, parseExecBody, parseKillBody, streamExec } from "./exec.js";
import { errorResponse, json, MAX_FILE_BYTES, MAX_JSON_BYTES, Refusal, readBounded, readJson } from "./http.js";

export interface Env {
  COMPUTER: DurableObjectNamespace<Computer>;
  LOADER: WorkerLoader;
  /** Set in dev only (scripts/dev.mjs passes it with --var): the local container host's URL. */
  COMPUTER_CONTAINER_HOST?: string;
  /** The chat model (all optional; without them the agent uses its scripted demo model). */
  OPENAI_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  OPENAI_MODEL?: string;
}

/** The tree route lists at most this many entries (a console is for looking, not for walking huge trees). */
const TREE_LIMIT = 2000;
/** How many execution ids /kill remembers per workspace. */
const STARTED_LIMIT = 1000;

export class Computer extends withWorkspace(
  // The container mixin goes inside, so `self` below has getWorkspaceContainer().
  withWorkspaceContainer(DurableObject<Env>, { binding: "COMPUTER" }),
  (self) => ({
    storage: self.ctx.storage,
    backends: [
      // The first is the default; the shell is the quickest to start.
      new WorkerShellBackend({
        loader: self.env.LOADER,
        workspace: { binding: "COMPUTER", id: self.ctx.id.toString() },
        // `ctx.exports` is typed from Cloudflare.GlobalProps, which this example does not generate.
        ctx: self.ctx as unknown as ShellHostContext,
        commands: [curl, jq],
      }),
      new WorkerJavaScriptBackend({ loader: self.env.LOADER }),
      new CloudflareContainerBackend({ container: () => self.getWorkspaceContainer() }),
    ],
    // A pull that fails after a container command keeps an intent in SQLite and points the alarm at its retry.
    retryScheduler: sqlSyncRetryScheduler(self.ctx.storage, {
      onChange: (at) => (at === undefined ? self.ctx.storage.deleteAlarm() : self.ctx.storage.setAlarm(at)),
    }),
  }),
) {
  /** Retries a pending pull (see retryScheduler above). */
  override async alarm(): Promise<void> {
    await workspaceOf(this).retryPendingSync();
  }

  #prepared: Promise<void> | undefined;
  /** Ids of the executions this console started, newest last (bounded): what /kill knows on worker-shell. */
  readonly #started = new Set<string>();

  #remember(id: string): void {
    this.#started.add(id);
    if (this.#started.size > STARTED_LIMIT) this.#started.delete(this.#started.values().next().value as string);
  }

  override async fetch(request: Request): Promise<Response> {
    const workspace = workspaceOf(this);
    // Once per instance: the console always shows /workspace, even before anything was written.
    this.#prepared ??= workspace.fs.mkdir("/workspace", { recursive: true }).catch((error: unknown) => {
      this.#prepared = undefined;
      throw error;
    });
    await this.#prepared;
    const { pathname } = new URL(request.url);
    if (pathname === "/tree") {
      return request.method === "GET" ? this.#tree(workspace) : json({ error: "use GET", code: "EMETHOD" }, 405);
    }
    if (pathname.startsWith("/file/")) return this.#file(workspace, request, pathname.slice("/file/".length));
    if (!["/exec", "/kill", "/chat"].includes(pathname)) return json({ error: "not found", code: "ENOENT" }, 404);
    if (request.method !== "POST") return json({ error: "use POST", code: "EMETHOD" }, 405);
    const body = await readJson(request, MAX_JSON_BYTES);
    if (body instanceof Refusal) return body.response();
    if (pathname === "/exec") {
      const exec = parseExecBody(body);
      if (typeof exec === "string") return json({ error: exec, code: "EINVAL" }, 400);
      // One rule on every backend: the cwd must be a directory of the workspace before anything runs.
      const cwd = await cwdProblem(workspace, exec.cwd);
      if (cwd !== undefined) return json(cwd.body, cwd.status);
      return streamExec(workspace, exec, (id) => this.#remember(id));
    }
    if (pathname === "/kill") {
      const kill = parseKillBody(body);
      if (typeof kill === "string") return json({ error: kill, code: "EINVAL" }, 400);
      // worker-shell keeps no record of its runs, so an id this console never started is unknown here.
      if (kill.backend === "worker-shell" && !this.#started.has(kill.id)) {
        return json({ error: `ENOENT: no such execution, kill '${kill.id}'`, code: "ENOENT" }, 404);
      }
      try {
        await killExec(workspace, kill.backend, kill.id);
      } catch (error) {
        return errorResponse(error);
      }
      return new Response(null, { status: 204 });
    }
    if (pathname === "/chat") {
      const messages = parseChatBody(body);
      return typeof messages === "string"
        ? json({ error: messages, code: "EINVAL" }, 400)
        : chat(workspace, this.env, messages);
    }
    return json({ error: "not found", code: "ENOENT" }, 404);
  }

  async #tree(workspace: Workspace): Promise<Response> {
    const found = await workspace.fs.find("/workspace", "", { limit: TREE_LIMIT + 1 });
    return json({
      root: "/workspace",
      entries: found.slice(0, TREE_LIMIT).map(({ path, type }) => ({ path, type })),
      truncated: found.length > TREE_LIMIT,
    });
  }

  async #file(workspace: Workspace, request: Request, rest: string): Promise<Response> {
    const path = workspacePath(rest);
    if (!path) return json({ error: "paths must stay inside /workspace and may not contain ..", code: "EINVAL" }, 400);
    try {
      if (request.method === "GET") {
        const stat = await workspace.fs.stat(path);
        if (stat.isDirectory) {
          return json({ error: `EISDIR: illegal operation on a directory, read '${path}'`, code: "EISDIR" }, 400);
        }
        return new Response(await workspace.fs.readFile(path), {
          headers: { "content-type": "application/octet-stream" },
        });
      }
      if (request.method === "PUT") {
        // Refused before anything is read or written when the body is too large (see docs/limits.md).
        const bytes = await readBounded(request, MAX_FILE_BYTES);
        if (bytes === undefined) {
          return json({ error: `a file is at most ${MAX_FILE_BYTES} bytes here`, code: "E2BIG" }, 413);
        }
        await workspace.fs.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
        await workspace.fs.writeFile(path, bytes);
        return new Response(null, { status: 204 });
      }
      if (request.method === "DELETE") {
        await workspace.fs.rm(path, { recursive: true });
        return new Response(null, { status: 204 });
      }
      return json({ error: "GET, PUT or DELETE", code: "EMETHOD" }, 405);
    } catch (error) {
      return errorResponse(error);
    }
  }
}

/** `/workspace/<path>` from the URL, or null when it leaves /workspace. */
export function workspacePath(rest: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(rest);
  } catch {
    return null;
  }
  const segments = decoded.split("/");
  if (segments.includes("..") || segments.includes(".") || decoded.includes("\0")) return null;
  if (segments[0] !== "workspace" || segments.length < 2 || segments.some((segment) => segment === "")) return null;
  return `/${decoded}`;
}
