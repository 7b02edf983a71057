/**
 * `npm run dev` for a Worker that uses a workspace: `wrangler dev` on
 * 127.0.0.1, plus — when the Worker has a container backend — the local
 * container host in this process, its URL handed to the Worker as
 * `COMPUTER_CONTAINER_HOST`. Ctrl-C / SIGTERM stops wrangler, then whatever
 * the caller started (`onStop`), then the host, which stops every container
 * it started (and so unmounts their /workspace); the process exits with the
 * signal's code (130 / 143).
 *
 * One runner for every example, so the signal handling, the private env file
 * and the port choices are right in one place.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { DEFAULT_HOST_PORT, type RunningHost, startHost } from "../local-host/main.js";

export interface WranglerDevOptions {
  /** The Worker's folder: its wrangler config is there, and wrangler is resolved from there. */
  root: string;
  /** Default: `$PORT`, else 8787. */
  port?: string;
  /** Start the local container host (on 45600, or a free port when taken) and pass its URL. */
  containerHost?: boolean;
  /** Each becomes `--var NAME:value`; unset ones are left out. */
  vars?: Record<string, string | undefined>;
  /**
   * Handed over in a private (0600, removed on exit) env file instead of the
   * command line, so wrangler lists them as hidden; unset ones are left out.
   */
  secrets?: Record<string, string | undefined>;
  /** More `wrangler dev` arguments (`--local`, `--persist-to <dir>`, …). */
  args?: string[];
  /** Runs after wrangler has exited and before the host closes (the caller's own local stand-ins). */
  onStop?: () => void | Promise<void>;
}

export interface WranglerDev {
  /** `http://127.0.0.1:<port>/` */
  readonly url: string;
  readonly child: ChildProcess;
  readonly host: RunningHost | undefined;
}

export async function runWranglerDev(options: WranglerDevOptions): Promise<WranglerDev> {
  const port = options.port ?? process.env.PORT ?? "8787";
  // A taken port would otherwise end in workerd's stack trace advising `--port`, a flag the user never passes.
  await exitUnlessFree(port, "PORT");
  // wrangler's inspector default, 9229, is taken by any other `wrangler dev` on the machine.
  const inspectorPort = process.env.INSPECTOR_PORT ?? (await freePort());
  if (process.env.INSPECTOR_PORT !== undefined) await exitUnlessFree(inspectorPort, "INSPECTOR_PORT");
  const host = options.containerHost ? await startContainerHost() : undefined;
  const vars = { ...(host ? { COMPUTER_CONTAINER_HOST: host.url } : {}), ...options.vars };
  const envFile = privateEnvFile(options.secrets ?? {});
  // wrangler's own bin, not npx: a signal from this process then reaches wrangler itself.
  // wrangler's `exports` no longer list `./bin/wrangler.js`; its package.json is exported, the bin sits next to it.
  const wrangler = join(
    dirname(createRequire(join(options.root, "package.json")).resolve("wrangler/package.json")),
    "bin",
    "wrangler.js",
  );
  const args = [
    wrangler,
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    port,
    "--inspector-port",
    inspectorPort,
    ...Object.entries(vars).flatMap(([name, value]) => (value === undefined ? [] : ["--var", `${name}:${value}`])),
    ...(envFile ? ["--env-file", envFile.path] : []),
    ...(options.args ?? []),
  ];
  const child = spawn(process.execPath, args, {
    cwd: options.root,
    stdio: "inherit",
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME ?? join(options.root, ".wrangler", "xdg"),
    },
  });

  let stopping = false;
  // wrangler itself exits 0 on a signal; the script exits with the signal's code.
  let signaled: number | undefined;
  const stop = async (code: number): Promise<void> => {
    if (stopping) return;
    stopping = true;
    envFile?.remove();
    try {
      await options.onStop?.();
    } finally {
      await host?.close();
      process.exit(signaled ?? code);
    }
  };
  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    process.on(signal, () => {
      signaled ??= code;
      // wrangler stops on its own signal; the rest stops once it has exited (below).
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      else void stop(code);
    });
  }
  child.on("exit", (code) => void stop(code ?? 1));
  return { url: `http://127.0.0.1:${port}/`, child, host };
}

async function startContainerHost(): Promise<RunningHost> {
  try {
    return await startHost({ port: DEFAULT_HOST_PORT });
  } catch (error) {
    if ((error as { code?: unknown }).code !== "EADDRINUSE") throw error;
    return startHost({ port: 0 });
  }
}

function privateEnvFile(secrets: Record<string, string | undefined>): { path: string; remove(): void } | undefined {
  const lines = Object.entries(secrets).flatMap(([name, value]) =>
    value === undefined || value === "" ? [] : [`${name}=${JSON.stringify(value)}`],
  );
  if (lines.length === 0) return undefined;
  const dir = mkdtempSync(join(tmpdir(), "wrangler-dev-"));
  const path = join(dir, "secrets.env");
  writeFileSync(path, `${lines.join("\n")}\n`, { mode: 0o600 });
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Start-up failures end in one line that says what to set: the port is checked on 127.0.0.1
 * (where wrangler listens) before wrangler starts.
 */
async function exitUnlessFree(port: string, variable: string): Promise<void> {
  const number = Number(port);
  if (!Number.isInteger(number) || number < 1 || number > 65_535) {
    console.error(`dev: ${variable}=${port} is not a port number; set ${variable} to one from 1 to 65535`);
    process.exit(1);
  }
  const server = createServer();
  const taken = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    server.once("error", resolve);
    server.listen(number, "127.0.0.1", () => resolve(undefined));
  });
  if (taken === undefined) {
    await new Promise((resolve) => server.close(resolve));
    return;
  }
  const reason = taken.code === "EADDRINUSE" ? "is already in use" : `cannot be listened on (${taken.code})`;
  console.error(
    `dev: 127.0.0.1:${port} ${reason}; set ${variable} to a free port, e.g. ${variable}=${await freePort()}`,
  );
  process.exit(1);
}

async function freePort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return String(typeof address === "object" && address ? address.port : 0);
}
