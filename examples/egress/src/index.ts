/**
 * The egress example: one URL fetched through all three execution backends of
 * one Workspace — `curl` in the container (computerd), `curl` in the
 * worker-shell (just-bash in a Dynamic Worker) and `fetch` in the
 * worker-javascript backend (an ES module in a Dynamic Worker) — under one
 * egress policy chosen by the `EGRESS_MODE` variable:
 *
 *   none    no backend reaches the network (the default of every backend)
 *   all     every backend has direct access                 (egress `direct`)
 *   custom  every request goes through `EgressGateway`      (egress `http-gateway`),
 *           which allows exactly `EGRESS_ALLOWED_URL` and answers 403 to anything else
 *
 *   GET  /                   → {mode, allowed, backends}
 *   POST /fetch?url=<url>    → {mode, url, allowed, results: {<backend>: {status, body} | {error}}}
 *
 * `url` defaults to `EGRESS_ALLOWED_URL`. Which container runs computerd is
 * configuration, not code: with `COMPUTER_CONTAINER_HOST` set (`npm run dev`,
 * the tests) it is the local container host; deployed, it is the Cloudflare
 * container from the `containers` entry in wrangler.jsonc.
 */
import { DurableObject, WorkerEntrypoint } from "cloudflare:workers";
import { type ExecResult, getWorkspace, shellQuote, withWorkspace } from "@cloudflare/computer";
import {
  CloudflareContainerBackend,
  type WorkspaceEgressPolicy,
  withWorkspaceContainer,
} from "@cloudflare/computer/backends/container";
import { WorkerJavaScriptBackend } from "@cloudflare/computer/backends/worker-javascript";
import { type ShellHostContext, WorkerShellBackend } from "@cloudflare/computer/backends/worker-shell";
import curl from "@cloudflare/computer/shell/curl";

// The shell's Dynamic Worker reaches this Worker's Durable Object through this one (env.HOST there).
export { WorkspaceServiceProxy } from "@cloudflare/computer";
// Cloudflare's container reaches its Durable Object through this entry point (outbound interception).
export { WorkspaceProxy } from "@cloudflare/computer/backends/container";

export type EgressMode = "none" | "all" | "custom";

interface Env {
  COMPUTER: DurableObjectNamespace<Computer>;
  LOADER: WorkerLoader;
  /** `none` (default), `all` or `custom`. */
  EGRESS_MODE?: string;
  /** The one URL the `custom` gateway lets through. Default `https://example.com/`. */
  EGRESS_ALLOWED_URL?: string;
  /** Set in dev only (scripts/dev.mjs passes it with --var): the local container host's URL. */
  COMPUTER_CONTAINER_HOST?: string;
}

export const BACKENDS = ["container-shell", "worker-shell", "worker-javascript"] as const;
export type BackendId = (typeof BACKENDS)[number];

/** What one backend got: the HTTP status and the start of the body, or why there was no response. */
export type FetchResult = { status: number; body: string } | { error: string };

export interface FetchReport {
  mode: EgressMode;
  url: string;
  allowed: string;
  results: Record<BackendId, FetchResult>;
}

const DEFAULT_ALLOWED_URL = "https://example.com/";
/** Characters of each body in the report: enough to recognize a page. */
const EXCERPT_CHARS = 200;
/** Seconds a single request may take, so a black-holed address cannot hold the report. */
const MAX_TIME_S = 10;

function modeOf(env: Env): EgressMode {
  const mode = env.EGRESS_MODE ?? "none";
  if (mode !== "none" && mode !== "all" && mode !== "custom") {
    throw new Error(`EGRESS_MODE must be none, all or custom; got ${JSON.stringify(mode)}`);
  }
  return mode;
}

function allowedUrlOf(env: Env): string {
  return new URL(env.EGRESS_ALLOWED_URL || DEFAULT_ALLOWED_URL).href;
}

/**
 * The `custom` gateway: every outbound request of every backend arrives here
 * (as `globalOutbound` of the Dynamic Workers, and through the Durable Object
 * for the container). Exactly one URL goes out; the rest never leaves.
 */
export class EgressGateway extends WorkerEntrypoint<Env, { allowed: string }> {
  override async fetch(request: Request): Promise<Response> {
    const { allowed } = this.ctx.props;
    if (new URL(request.url).href !== allowed) {
      return new Response(`egress gateway: ${request.url} is not allowed (only ${allowed})\n`, { status: 403 });
    }
    return fetch(request);
  }
}

/** One policy for all three backends; the shapes differ only in the gateway's type, which one stub satisfies. */
function egressPolicy(mode: EgressMode, ctx: DurableObjectState, allowed: string): WorkspaceEgressPolicy {
  if (mode === "none") return { mode: "none" };
  if (mode === "all") return { mode: "direct" };
  // `ctx.exports` is typed from Cloudflare.GlobalProps, which this example does not generate.
  const exports = ctx.exports as unknown as {
    EgressGateway(options: { props: { allowed: string } }): Fetcher;
  };
  // The revision names the configuration: the shell's loader id changes with the allowed URL.
  return { mode: "http-gateway", gateway: exports.EgressGateway({ props: { allowed } }), revision: allowed };
}

/** Prints the body, then the status on a line of its own (`000` when there was no response). */
const curlCommand = (url: string): string => `curl -sS -m ${MAX_TIME_S} -w '\\n%{http_code}' ${shellQuote(url)}`;

const fetchModule = `export default async (url) => {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(${MAX_TIME_S * 1000}) });
    return { status: response.status, body: (await response.text()).slice(0, ${EXCERPT_CHARS}) };
  } catch (error) {
    return { error: String(error?.message ?? error) };
  }
};`;

export class Computer extends withWorkspace(
  // The container mixin goes inside, so `self` below has getWorkspaceContainer().
  withWorkspaceContainer(DurableObject<Env>, { binding: "COMPUTER" }),
  (self) => {
    const egress = egressPolicy(modeOf(self.env), self.ctx, allowedUrlOf(self.env));
    return {
      storage: self.ctx.storage,
      backends: [
        new CloudflareContainerBackend({ container: () => self.getWorkspaceContainer(), egress }),
        new WorkerShellBackend({
          loader: self.env.LOADER,
          // The binding and id the WorkspaceServiceProxy above resolves back to this object.
          workspace: { binding: "COMPUTER", id: self.ctx.id.toString() },
          ctx: self.ctx as unknown as ShellHostContext,
          commands: [curl],
          egress,
        }),
        new WorkerJavaScriptBackend({ loader: self.env.LOADER, egress }),
      ],
    };
  },
) {
  /** Fetches `url` from every backend at once; one backend's failure is its own result, not the report's. */
  async fetchEverywhere(url: string): Promise<FetchReport> {
    const workspace = await getWorkspace(this);
    await workspace.fs.mkdir("/workspace", { recursive: true });
    const run = async (backend: BackendId): Promise<FetchResult> => {
      try {
        if (backend === "worker-javascript") {
          const handle = await workspace.runtime.exec(fetchModule, { backend, input: url, encoding: "utf8" });
          const result = await handle.result();
          if (result.exitCode !== 0) return { error: text(result.stderr).trim() || `exit ${result.exitCode}` };
          return result.value as FetchResult;
        }
        const handle = await workspace.runtime.exec(curlCommand(url), { backend, encoding: "utf8" });
        return curlResult(await handle.result());
      } catch (error) {
        return { error: error instanceof Error ? error.message : String(error) };
      }
    };
    const [container, shell, javascript] = await Promise.all(BACKENDS.map(run));
    return {
      mode: modeOf(this.env),
      url,
      allowed: allowedUrlOf(this.env),
      results: {
        "container-shell": container as FetchResult,
        "worker-shell": shell as FetchResult,
        "worker-javascript": javascript as FetchResult,
      },
    };
  }
}

/** Output asked for as utf8 is a string; the result type also allows bytes. */
function text(output: string | Uint8Array): string {
  return typeof output === "string" ? output : new TextDecoder().decode(output);
}

function curlResult(result: ExecResult): FetchResult {
  if (result.exitCode !== 0) return { error: text(result.stderr).trim() || `curl exited ${result.exitCode}` };
  const stdout = text(result.stdout);
  const cut = stdout.lastIndexOf("\n");
  return { status: Number(stdout.slice(cut + 1)), body: stdout.slice(0, Math.max(cut, 0)).slice(0, EXCERPT_CHARS) };
}

function json(value: unknown, status = 200): Response {
  return Response.json(value, { status });
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    let mode: EgressMode;
    try {
      mode = modeOf(env);
    } catch (error) {
      return json({ error: (error as Error).message }, 500);
    }
    const allowed = allowedUrlOf(env);
    if (url.pathname === "/") {
      if (request.method !== "GET") return new Response("GET only\n", { status: 405 });
      return json({ mode, allowed, backends: BACKENDS, routes: ["POST /fetch?url=<url>"] });
    }
    if (url.pathname !== "/fetch") {
      return new Response("egress example: GET /, POST /fetch?url=<url>\n", { status: 404 });
    }
    if (request.method !== "POST") return new Response("POST only\n", { status: 405 });
    let target: URL;
    try {
      target = new URL(url.searchParams.get("url") ?? allowed);
    } catch {
      return json({ error: "url must be an absolute http(s) URL" }, 400);
    }
    if (target.protocol !== "http:" && target.protocol !== "https:") {
      return json({ error: "url must be an absolute http(s) URL" }, 400);
    }
    const computer = env.COMPUTER.get(env.COMPUTER.idFromName("egress"));
    return json(await computer.fetchEverywhere(target.href));
  },
} satisfies ExportedHandler<Env>;
