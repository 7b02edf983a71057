/**
 * The worker-javascript example: one Workspace per name, each in its own
 * Durable Object, running ES modules with the backend's defaults.
 *
 *   PUT  /c/<name>/file/workspace/<path>   body → file        (204)
 *   GET  /c/<name>/file/workspace/<path>   file → body        (404 if missing)
 *   POST /c/<name>/exec                    {source, input?, cwd?, env?, stdin?}
 *                                          → {status, exitCode, stdout, stderr, value, …}
 */
import { DurableObject } from "cloudflare:workers";
import { type ExecResult, Workspace } from "@cloudflare/computer";
import { WorkerJavaScriptBackend } from "@cloudflare/computer/backends/worker-javascript";

interface Env {
  COMPUTER: DurableObjectNamespace<Computer>;
  LOADER: WorkerLoader;
}

export interface ExecBody {
  source: string;
  input?: unknown;
  cwd?: string;
  env?: Record<string, string>;
  stdin?: string;
}

type ExecReply = { ok: true; result: ExecResult } | { ok: false; status: number; error: string; code?: string };

export class Computer extends DurableObject<Env> {
  readonly #workspace: Workspace;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#workspace = new Workspace({
      storage: ctx.storage,
      backends: [new WorkerJavaScriptBackend({ loader: env.LOADER })],
    });
  }

  /** Creates missing parent directories, like an upload would expect. */
  async writeFile(path: string, bytes: Uint8Array): Promise<void> {
    await this.#workspace.fs.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await this.#workspace.fs.writeFile(path, bytes);
  }

  /** null when the file does not exist (expected misses return null across RPC). */
  async readFile(path: string): Promise<Uint8Array | null> {
    try {
      const stream = await this.#workspace.fs.readFile(path);
      return new Uint8Array(await new Response(stream).arrayBuffer());
    } catch (error) {
      if ((error as { code?: unknown }).code === "ENOENT") return null;
      throw error;
    }
  }

  async exec(body: ExecBody): Promise<ExecReply> {
    await this.#workspace.fs.mkdir("/workspace", { recursive: true });
    try {
      const handle = await this.#workspace.runtime.exec(body.source, {
        encoding: "utf8",
        ...(body.input === undefined ? {} : { input: body.input }),
        ...(body.cwd === undefined ? {} : { cwd: body.cwd }),
        ...(body.env === undefined ? {} : { env: body.env }),
        ...(body.stdin === undefined ? {} : { stdin: body.stdin }),
      });
      return { ok: true, result: await handle.result() };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return {
        ok: false,
        status: error instanceof TypeError || code === "EMODULE" ? 400 : code === "EEXEC_BUSY" ? 429 : 500,
        error: error instanceof Error ? error.message : String(error),
        ...(typeof code === "string" ? { code } : {}),
      };
    }
  }
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

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const match = /^\/c\/([^/]+)\/(file\/(.*)|exec)$/.exec(url.pathname);
    if (!match) {
      return new Response("worker-javascript example: PUT/GET /c/<name>/file/workspace/<path>, POST /c/<name>/exec\n", {
        status: 404,
      });
    }
    const computer = env.COMPUTER.get(env.COMPUTER.idFromName(decodeURIComponent(match[1] as string)));
    if (match[2] === "exec") {
      if (request.method !== "POST") return new Response("POST only\n", { status: 405 });
      let body: ExecBody;
      try {
        body = (await request.json()) as ExecBody;
      } catch {
        return json({ error: "the body must be JSON" }, 400);
      }
      if (typeof body !== "object" || body === null || typeof body.source !== "string") {
        return json({ error: "source (a string) is required" }, 400);
      }
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
