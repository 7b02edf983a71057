/**
 * `@cloudflare/computerd`: the daemon in-process. `startDaemon(readConfig(process.env), createLogger(undefined))`
 * is what the `computerd` binary does; the local container host is `./host`, `wrangler dev` with it `./dev`.
 */
export { type Daemon, startDaemon } from "./cli/boot.js";
export { type Config, ConfigError, readConfig } from "./cli/env.js";
export { createLogger, type Logger } from "./log/logger.js";
export type { FuseOptions, MountMode, MountSetting } from "./mount/options.js";
