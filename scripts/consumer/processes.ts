/**
 * Child processes of the consumer test: npm and tsc run to completion;
 * `wrangler dev` and `computerd host` run in their own process group until
 * the test stops them (the group, so workerd and the containers go too).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";

/**
 * The parent's environment without what `npm test`, pnpm and vitest add: a
 * consumer's npm must read its own config, not the monorepo's.
 */
export function consumerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(npm_|PNPM_|pnpm_|VITEST|NODE_OPTIONS$|NODE_PATH$|INIT_CWD$)/i.test(key)) continue;
    env[key] = value;
  }
  return { ...env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", ...extra };
}

export interface Finished {
  output: string;
  ms: number;
}

/** Runs a command to its end; rejects with its output when it exits non-zero. */
export function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Finished> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve({ output, ms: performance.now() - started });
      else reject(new Error(`${command} ${args.join(" ")} (in ${cwd}) exited ${code}:\n${output.slice(-4000)}`));
    });
  });
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

export interface Service {
  readonly child: ChildProcess;
  /** Everything it printed so far. */
  output(): string;
  /** Resolves with the first match of `pattern` in its output; rejects when it exits first or after `ms`. */
  waitFor(pattern: RegExp, ms: number): Promise<RegExpMatchArray>;
  /** SIGTERM to the group, SIGKILL after 10 s; resolves once the leader has exited. */
  stop(): Promise<void>;
}

export function startService(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Service {
  const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let text = "";
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    text += chunk;
    for (const listener of listeners) listener();
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  child.on("exit", () => {
    for (const listener of listeners) listener();
  });
  const signal = (name: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, name);
    } catch {
      // The group is gone already.
    }
  };
  return {
    child,
    output: () => text,
    waitFor(pattern, ms) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => done(new Error(`no ${pattern} after ${ms} ms from ${command}:\n${text}`)), ms);
        const check = () => {
          const match = text.match(pattern);
          if (match) done(undefined, match);
          else if (child.exitCode !== null || child.signalCode !== null) {
            done(new Error(`${command} exited (${child.exitCode ?? child.signalCode}) before ${pattern}:\n${text}`));
          }
        };
        const done = (error?: Error, match?: RegExpMatchArray) => {
          clearTimeout(timer);
          listeners.delete(check);
          if (error) reject(error);
          else resolve(match as RegExpMatchArray);
        };
        listeners.add(check);
        check();
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      signal("SIGTERM");
      const timer = setTimeout(() => signal("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
      // What the leader left behind in its group (workerd under wrangler).
      signal("SIGKILL");
    },
  };
}
