/**
 * `ShellWorker` as `@cloudflare/computer/backends/worker-shell` exports it, for a Worker that exports it
 * (or a subclass with `extraCommands`) as an entrypoint of its own and hands it to a `WorkerShellBackend`
 * as an `external-runtime` source (docs/worker-shell.md, "Your own ShellWorker").
 *
 * The class is the one the Dynamic Worker runs, from the same source (../sandbox/shell.ts), bundled with
 * just-bash into importable modules at build time (`#sandbox/shell-worker`), so the package needs no
 * just-bash installed to run it. Its type comes from the source: the declaration names
 * ../sandbox/shell.js, which ships, where the `#sandbox` import resolves only inside this package. A
 * Worker that never names `ShellWorker` bundles none of it (only the bundled folder has side effects).
 */
import { ShellWorker as BundledShellWorker } from "#sandbox/shell-worker";
import type { ShellWorker as ShellWorkerClass, ShellWorkerEnv } from "../sandbox/shell.js";

export const ShellWorker: typeof ShellWorkerClass = BundledShellWorker;
export type ShellWorker<Env = ShellWorkerEnv> = ShellWorkerClass<Env>;
