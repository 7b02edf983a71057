/**
 * What the host (the Durable Object) and the runner (inside the Dynamic
 * Worker) say to each other. Shared by both sides, so it type-checks in Node
 * and in workerd and holds no runtime code but constants.
 *
 * The host calls `Runner.run(request, host)`; `host` is a function stub the
 * runner calls back for everything it cannot do itself: attaching its output
 * stream and every capability call (`node:fs`,
 * `ws:git`, …). The runner is untrusted in the sense that the user's module
 * shares its isolate, so every check that matters is made by the host.
 */

/** Module names inside the Dynamic Worker. Internal ones live under `__computer/`. */
export const INTERNAL_PREFIX = "__computer";
export const RUNNER_MODULE = `${INTERNAL_PREFIX}/runner.js`;
export const BRIDGE_MODULE = `${INTERNAL_PREFIX}/bridge.js`;
export const FS_PROMISES_MODULE = `${INTERNAL_PREFIX}/fs-promises.js`;
export const FS_MODULE = `${INTERNAL_PREFIX}/fs.js`;
export const GIT_MODULE = `${INTERNAL_PREFIX}/git.js`;
export const ARTIFACTS_MODULE = `${INTERNAL_PREFIX}/artifacts.js`;
/** The capability module a 0.8 host module `ws:<name>` is called under (`host:<name>`), apart from fs, git, … */
export const HOST_MODULE_PREFIX = "host:";
/** Configured library modules are keyed `__lib/<name>.js`. */
export const LIBRARY_PREFIX = "__lib";
/** The entrypoint class the runner module exports. */
export const RUNNER_ENTRYPOINT = "Runner";

export interface RunRequest {
  /** Absolute specifier of the synthetic entry module (`/workspace/__entry.js`). */
  entry: string;
  /** The caller's input as JSON text (already checked to be JSON-plain). */
  input: string;
  env: Record<string, string>;
  stdin?: Uint8Array;
  cwd: string;
  maxStdioBytes: number;
  maxResultBytes: number;
}

/** How the module ended, as the runner saw it. */
export type RunOutcome = { ok: true; json: string } | { ok: false; error: string };

export interface CapabilityErrorShape {
  name: string;
  message: string;
  code?: string;
  syscall?: string;
  path?: string;
}

export type CapabilityReply = { ok: true; value: unknown } | { ok: false; error: CapabilityErrorShape };

export type HostCall =
  /** The runner's output: NDJSON frames `["stdout" | "stderr", text]`. Resolves once the stream ended. */
  | { op: "attachOutput"; stream: ReadableStream<Uint8Array> }
  | { op: "call"; module: string; method: string; args: unknown[] };

export type HostFunction = (call: HostCall) => Promise<unknown>;

export type OutputFrame = ["stdout" | "stderr", string];

/** What `fs.stat`/`fs.lstat` answer across the bridge; the runner wraps it in a node-like `Stats`. */
export interface StatShape {
  mode: number;
  size: number;
  mtimeMs: number;
  ino: number;
  isFile: boolean;
  isDirectory: boolean;
  isSymbolicLink: boolean;
}

/** One entry of `fs.readdir(…, { withFileTypes: true })` across the bridge. */
export interface DirentShape {
  name: string;
  parentPath: string;
  isFile: boolean;
  isDirectory: boolean;
  isSymbolicLink: boolean;
}
