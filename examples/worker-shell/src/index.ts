/**
 * The worker-shell example: one Workspace per name, each in its own Durable
 * Object, running shell commands with just-bash in a Dynamic Worker that works
 * on the workspace's own files (no container, no second copy), with the
 * optional `curl` and `jq` command groups.
 *
 *   PUT  /c/<name>/file/workspace/<path>   body → file        (204)
 *   GET  /c/<name>/file/workspace/<path>   file → body        (404 if missing)
 *   POST /c/<name>/exec                    {command | argv, cwd?, encoding?}
 *                                          → {status, exitCode, stdout, stderr, pushed, pulled, sync, …}
 */
import { DurableObject } from "cloudflare:workers";
import { type ExecResult, getWorkspace, shellQuote, withWorkspace } from "@cloudflare/computer";
import { type ShellHostContext, WorkerShellBackend } from "@cloudflare/computer/backends/worker-shell";
import curl from "@cloudflare/computer/shell/curl";
import jq from "@cloudflare/computer/shell/jq";

// The Dynamic Worker reaches this Worker's Durable Object through this entry point (env.HOST there):
// a Durable Object stub cannot be put in a loaded Worker's env.
export { WorkspaceServiceProxy } from "@cloudflare/computer";

interface Env {
  COMPUTER: DurableObjectNamespace<Computer>;
  LOADER: WorkerLoader;
}

export interface ExecBody {
  /** One shell command line; exactly one of `command` and `argv` is given. */
  command?: string;
  /** Words run as one command, each quoted with `shellQuote` (no globbing, no expansion). */
  argv?: string[];
  cwd?: string;
  /** `utf8` (default): stdout and stderr as strings. `base64`: the raw bytes, base64-encoded. */
  encoding?: "utf8" | "base64";
}

export type ExecReply =
  | { ok: true; result: ExecResult & { encoding: "utf8" | "base64" } }
  | { ok: false; status: number; error: string; code?: string };

export class Computer extends withWorkspace(DurableObject<Env>, (self) => ({
  storage: self.ctx.storage,
  backends: [
    new WorkerShellBackend({
      loader: self.env.LOADER,
      // The binding and id the WorkspaceServiceProxy above resolves back to this object.
      workspace: { binding: "COMPUTER", id: self.ctx.id.toString() },
      // `ctx.exports` is typed from Cloudflare.GlobalProps, which this example does not generate.
      ctx: self.ctx as unknown as ShellHostContext,
      commands: [curl, jq],
    }),
  ],
})) {
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
    const command = body.argv === undefined ? (body.command as string) : body.argv.map(shellQuote).join(" ");
    try {
      const handle = await workspace.runtime.exec(command, {
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

/** A bad argument (a relative cwd, …) is the caller's: 400; a busy id 429; the rest 500. */
function statusFor(error: unknown, code: unknown): number {
  if (error instanceof TypeError) return 400;
  if (code === "EEXEC_BUSY") return 429;
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
  const { command, argv, cwd, encoding } = value as Record<string, unknown>;
  if ((command === undefined) === (argv === undefined)) return "give exactly one of command and argv";
  if (command !== undefined && (typeof command !== "string" || command === "")) {
    return "command must be a non-empty string";
  }
  if (
    argv !== undefined &&
    (!Array.isArray(argv) || argv.length === 0 || argv.some((word) => typeof word !== "string"))
  ) {
    return "argv must be a non-empty array of strings";
  }
  if (cwd !== undefined && typeof cwd !== "string") return "cwd must be a string";
  if (encoding !== undefined && encoding !== "utf8" && encoding !== "base64") {
    return 'encoding must be "utf8" or "base64"';
  }
  return {
    ...(command === undefined ? {} : { command: command as string }),
    ...(argv === undefined ? {} : { argv: argv as string[] }),
    ...(cwd === undefined ? {} : { cwd }),
    ...(encoding === undefined ? {} : { encoding }),
  };
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const match = /^\/c\/([^/]+)\/(file\/(.*)|exec)$/.exec(url.pathname);
    if (!match) {
      return new Response("worker-shell example: PUT/GET /c/<name>/file/workspace/<path>, POST /c/<name>/exec\n", {
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
