/**
 * The container example: one Workspace per name, each in its own Durable
 * Object, running shell commands on the `container-shell` backend — computerd
 * in a Linux container with the workspace mounted at /workspace over FUSE.
 *
 *   PUT  /c/<name>/file/workspace/<path>   body → file        (204)
 *   GET  /c/<name>/file/workspace/<path>   file → body        (404 if missing)
 *   POST /c/<name>/exec                    {command, cwd?, encoding?}
 *                                          → {status, exitCode, stdout, stderr, pushed, pulled, sync, …}
 *
 * Which container runs computerd is configuration, not code: with
 * `COMPUTER_CONTAINER_HOST` set (`npm run dev`, the test) it is the local
 * container host; deployed, it is the Cloudflare container from the
 * `containers` entry in wrangler.jsonc.
 */
import { DurableObject } from "cloudflare:workers";
import { type ExecResult, getWorkspace, sqlSyncRetryScheduler, withWorkspace, workspaceOf } from "@cloudflare/computer";
import { CloudflareContainerBackend, withWorkspaceContainer } from "@cloudflare/computer/backends/container";

// Cloudflare's container reaches its Durable Object through this entry point (outbound interception).
export { WorkspaceProxy } from "@cloudflare/computer/backends/container";

interface Env {
  COMPUTER: DurableObjectNamespace<Computer>;
  /** Set in dev only (scripts/dev.mjs passes it with --var): the local container host's URL. */
  COMPUTER_CONTAINER_HOST?: string;
}

export interface ExecBody {
  command: string;
  cwd?: string;
  /** `utf8` (default): stdout and stderr as strings. `base64`: the raw bytes, base64-encoded. */
  encoding?: "utf8" | "base64";
}

export type ExecReply =
  | { ok: true; result: ExecResult & { encoding: "utf8" | "base64" } }
  | { ok: false; status: number; error: string; code?: string };

export class Computer extends withWorkspace(
  // The container mixin goes inside, so `self` below has getWorkspaceContainer().
  withWorkspaceContainer(DurableObject<Env>, { binding: "COMPUTER" }),
  (self) => ({
    storage: self.ctx.storage,
    backends: [new CloudflareContainerBackend({ container: () => self.getWorkspaceContainer() })],
    // A pull that fails after a command keeps an intent in SQLite and points the alarm at its retry.
    retryScheduler: sqlSyncRetryScheduler(self.ctx.storage, {
      onChange: (at) => (at === undefined ? self.ctx.storage.deleteAlarm() : self.ctx.storage.setAlarm(at)),
    }),
  }),
) {
  /** Retries a pending pull (see retryScheduler above). */
  override async alarm(): Promise<void> {
    await workspaceOf(this).retryPendingSync();
  }

  /** Creates missing parent directories, like an upload would expect. */
  async writeFile(path: string, bytes: Uint8Array): Promise<void> {
    const workspace = await getWorkspace(this);
    await workspace.fs.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await workspace.fs.writeFile(path, bytes);
  }

  /** null when the file does not exist (expected misses return null across RPC). */
  async readFile(path: string): Promise<Uint8Array | null> {
    const workspace = await getWorkspace(this);
    try {
      const stream = await workspace.fs.readFile(path);
      return new Uint8Array(await new Response(stream).arrayBuffer());
    } catch (error) {
      if ((error as { code?: unknown }).code === "ENOENT") return null;
      throw error;
    }
  }

  async exec(body: ExecBody): Promise<ExecReply> {
    const workspace = await getWorkspace(this);
    await workspace.fs.mkdir("/workspace", { recursive: true });
    const encoding = body.encoding ?? "utf8";
    try {
      const handle = await workspace.runtime.exec(body.command, {
        cwd: body.cwd ?? "/workspace",
        ...(encoding === "utf8" ? { encoding } : {}),
      });
      const result = await handle.result();
      if (encoding === "utf8") return { ok: true, result: { ...result, encoding } };
      return {
        ok: true,
        result: { ...result, stdout: base64(result.stdout), stderr: base64(result.stderr), encoding },
      };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return {
        ok: false,
        status: statusFor(error, code),
        error: error instanceof Error ? error.message : String(error),
        ...(typeof code === "string" ? { code } : {}),
      };
    }
  }
}

/** A bad argument is the caller's (400), a busy id 429, an unreachable container 503, the rest 500. */
function statusFor(error: unknown, code: unknown): number {
  if (error instanceof TypeError) return 400;
  if (code === "EEXEC_BUSY") return 429;
  if (code === "ETRANSPORT") return 503;
  return 500;
}

function base64(output: string | Uint8Array): string {
  const bytes = typeof output === "string" ? new TextEncoder().encode(output) : output;
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** `/workspace/<path>` from the URL, or null when it leaves /workspace. */
function workspacePath(rest: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(rest);
  } catch {
    return null;
  }
  const segments = decoded.split("/");
  if (segments.includes("..") || segments.includes(".") || decoded.includes("\0")) return null;
  if (segments[0] !== "workspace" || segments.length < 2 || segments.at(-1) === "") return null;
  return `/${decoded}`;
}

function json(value: unknown, status = 200): Response {
  return Response.json(value, { status });
}

function parseExecBody(value: unknown): ExecBody | string {
  if (typeof value !== "object" || value === null) return "the body must be a JSON object";
  const { command, cwd, encoding } = value as Record<string, unknown>;
  if (typeof command !== "string" || command === "") return "command (a non-empty string) is required";
  if (cwd !== undefined && typeof cwd !== "string") return "cwd must be a string";
  if (encoding !== undefined && encoding !== "utf8" && encoding !== "base64") {
    return 'encoding must be "utf8" or "base64"';
  }
  return {
    command,
    ...(cwd === undefined ? {} : { cwd }),
    ...(encoding === undefined ? {} : { encoding }),
  };
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const match = /^\/c\/([^/]+)\/(file\/(.*)|exec)$/.exec(url.pathname);
    if (!match) {
      return new Response("container example: PUT/GET /c/<name>/file/workspace/<path>, POST /c/<name>/exec\n", {
        status: 404,
      });
    }
    const computer = env.COMPUTER.get(env.COMPUTER.idFromName(decodeURIComponent(match[1] as string)));
    if (match[2] === "exec") {
      if (request.method !== "POST") return new Response("POST only\n", { status: 405 });
      let parsed: unknown;
      try {
        parsed = await request.json();
      } catch {
        return json({ error: "the body must be JSON" }, 400);
      }
      const body = parseExecBody(parsed);
      if (typeof body === "string") return json({ error: body }, 400);
      const reply = await computer.exec(body);
      if ("result" in reply) return json(reply.result);
      return json({ error: reply.error, code: reply.code }, reply.status);
    }
    const path = workspacePath(match[3] as string);
    if (!path) return json({ error: "paths must stay inside /workspace and may not contain .." }, 400);
    if (request.method === "PUT") {
      await computer.writeFile(path, new Uint8Array(await request.arrayBuffer()));
      return new Response(null, { status: 204 });
    }
    if (request.method === "GET") {
      const bytes = await computer.readFile(path);
      return bytes === null
        ? json({ error: `ENOENT: no such file or directory, open '${path}'` }, 404)
        : new Response(bytes);
    }
    return new Response("GET or PUT only\n", { status: 405 });
  },
} satisfies ExportedHandler<Env>;
