/**
 * The terminals: one command on one backend, its output streamed as
 * server-sent events while it runs, then its exit and what the sync bracket
 * moved (`pushed`/`pulled`: entries synced to and from the container; 0/0
 * for the Worker backends, which work on the workspace's own store).
 *
 *   event: start   {id, backend, source?}    source: the module a JS-terminal line became
 *   event: stdout  {seq, text}
 *   event: stderr  {seq, text}
 *   event: exit    {code, status, value?}    value: a worker-javascript module's return value
 *   event: sync    {pushed, pulled, skipped, refused, sync: {status, applied, error?}}
 *                  skipped: read-only mount skips; refused: names too long to store (counts)
 *   event: error   {message, code?}          the command could not start, or its stream broke
 */
import { type ExecHandle, statusForExitCode, type Workspace } from "@cloudflare/computer";
import { errorBody, type Send, sse } from "./http.js";

export const BACKENDS = ["worker-shell", "worker-javascript", "container-shell"] as const;
export type Backend = (typeof BACKENDS)[number];

export interface ExecBody {
  backend: Backend;
  command: string;
  cwd?: string;
}

/** What a command or a kill may name: at most 1 MiB of source, ids of 1–256 printable bytes. */
const MAX_COMMAND_BYTES = 1024 * 1024;
const EXEC_ID = /^[\x21-\x7e]{1,256}$/;

export function parseExecBody(value: unknown): ExecBody | string {
  const { backend, command, cwd } = value as Record<string, unknown>;
  if (!BACKENDS.includes(backend as Backend)) return `backend must be one of ${BACKENDS.join(", ")}`;
  if (typeof command !== "string" || command.trim() === "") return "command (a non-empty string) is required";
  if (command.includes("\0")) return "command must not contain NUL";
  if (new TextEncoder().encode(command).byteLength > MAX_COMMAND_BYTES) {
    return `command is at most ${MAX_COMMAND_BYTES} bytes`;
  }
  if (cwd === undefined) return { backend: backend as Backend, command };
  const resolved = typeof cwd === "string" ? resolveCwd(cwd) : undefined;
  if (resolved === undefined)
    return "cwd must be a path inside /workspace (relative paths start there), without NUL or ..";
  return { backend: backend as Backend, command, cwd: resolved };
}

/**
 * The one cwd rule of the console, the same on every backend: a path of the
 * workspace, relative ones from /workspace; `..` and `.` segments and NUL
 * are refused rather than resolved. Undefined when it is none.
 */
export function resolveCwd(cwd: string): string | undefined {
  if (cwd.includes("\0") || cwd.length > 4096) return undefined;
  const absolute = cwd.startsWith("/") ? cwd : `/workspace/${cwd}`;
  const segments = absolute.split("/").filter((segment) => segment !== "");
  if (segments.some((segment) => segment === ".." || segment === ".")) return undefined;
  if (segments[0] !== "workspace") return undefined;
  return `/${segments.join("/")}`;
}

/** A cwd that is no directory of the workspace: 404 ENOENT or 409 ENOTDIR, with the path, before anything runs. */
export async function cwdProblem(
  workspace: Workspace,
  cwd: string | undefined,
): Promise<{ status: number; body: { error: string; code: string } } | undefined> {
  if (cwd === undefined) return undefined;
  const stat = await workspace.fs.stat(cwd).catch(() => undefined);
  if (stat === undefined) {
    return { status: 404, body: { error: `ENOENT: no such file or directory, chdir '${cwd}'`, code: "ENOENT" } };
  }
  if (!stat.isDirectory) {
    return { status: 409, body: { error: `ENOTDIR: not a directory, chdir '${cwd}'`, code: "ENOTDIR" } };
  }
  return undefined;
}

export interface KillBody {
  backend: Backend;
  id: string;
}

export function parseKillBody(value: unknown): KillBody | string {
  const { backend, id } = value as Record<string, unknown>;
  if (!BACKENDS.includes(backend as Backend)) return `backend must be one of ${BACKENDS.join(", ")}`;
  if (typeof id !== "string" || !EXEC_ID.test(id)) return "id must be 1 to 256 printable ASCII characters";
  return { backend: backend as Backend, id };
}

export function streamExec(workspace: Workspace, body: ExecBody, started?: (id: string) => void): Response {
  return sse(async (send) => {
    const script = body.backend === "worker-javascript" ? javaScriptFor(body.command) : undefined;
    let handle: ExecHandle;
    try {
      handle = await workspace.runtime.exec(script?.source ?? body.command, {
        backend: body.backend,
        cwd: body.cwd ?? "/workspace",
        encoding: "utf8",
      });
    } catch (error) {
      await send("error", errorBody(error));
      return;
    }
    started?.(handle.id);
    await send("start", {
      id: handle.id,
      backend: body.backend,
      ...(script?.translated ? { source: script.source } : {}),
    });
    await relay(handle, send);
  });
}

/**
 * Every event as it arrives, then the sync summary. A client that goes away
 * does not stop the reading: the pull after a container command still has
 * to bring its writes back.
 */
async function relay(handle: ExecHandle, send: Send): Promise<void> {
  const reader = handle.getReader();
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      const event = next.value;
      if (event.name === "exit") {
        await send("exit", {
          code: event.code,
          status: statusForExitCode(event.code),
          ...(event.result === undefined ? {} : { value: event.result }),
        });
      } else {
        await send(event.name, { seq: event.seq, text: event.value });
      }
    }
  } catch (error) {
    await send("error", errorBody(error));
    return;
  }
  const { pushed, pulled, skipped, refused, sync } = await handle.summary();
  await send("sync", {
    pushed,
    pulled,
    skipped: skipped.length,
    refused: refused?.length ?? 0,
    sync: { status: sync.status, applied: sync.applied, ...(sync.status === "pending" ? { error: sync.error } : {}) },
  });
}

export async function killExec(workspace: Workspace, backend: Backend, id: string): Promise<void> {
  await workspace.runtime.killExec(id, { backend });
}

/**
 * What the worker-javascript terminal runs for a line. `cat <file>…` and
 * `ls [dir]` become small modules over `node:fs/promises` (so the same
 * command works in all three terminals); a single expression becomes a
 * module returning it; anything else is taken as an ES module as typed.
 * File I/O happens inside the default export: workerd allows no I/O while
 * a module's top level is evaluated.
 * Words are split on whitespace: no quoting, no globs.
 */
export function javaScriptFor(line: string): { source: string; translated: boolean } {
  const [word, ...args] = line.trim().split(/\s+/);
  if (word === "cat" && args.length > 0) {
    return {
      source: [
        `import { readFile } from "node:fs/promises";`,
        "export default async () => {",
        `  for (const path of ${JSON.stringify(args)}) process.stdout.write(await readFile(path, "utf8"));`,
        "};",
      ].join("\n"),
      translated: true,
    };
  }
  if (word === "ls" && args.length <= 1) {
    return {
      source: [
        `import { readdir } from "node:fs/promises";`,
        "export default async () => {",
        `  for (const entry of await readdir(${JSON.stringify(args[0] ?? ".")}, { withFileTypes: true })) {`,
        `    console.log(entry.isDirectory() ? entry.name + "/" : entry.name);`,
        "  }",
        "};",
      ].join("\n"),
      translated: true,
    };
  }
  const source = line.trim();
  const expression =
    !/[;\n]/.test(source) && !/^(import|export|const|let|var|function|class|async function)\b/.test(source);
  if (expression) return { source: `export default async () => (${source});`, translated: true };
  return { source: line, translated: false };
}
