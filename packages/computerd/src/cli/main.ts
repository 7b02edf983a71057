#!/usr/bin/env node
/**
 * computerd's entry point. Exit codes: 2 for a bad configuration or a mount
 * that cannot come up, 130/143 after SIGINT/SIGTERM, 1 for an uncaught error.
 */
import { SIGNAL_EXIT_CODES } from "@cloudflare/computer-rpc";
import { createLogger, type Logger } from "../log/logger.js";
import { startDaemon } from "./boot.js";
import { type Config, ConfigError, readConfig } from "./env.js";

/** The signals that stop the daemon; it exits as a shell reports a command they killed. */
const STOP_SIGNALS = ["SIGINT", "SIGTERM"] as const;

async function main(): Promise<void> {
  if (process.argv[2] === "host") {
    const { runHost } = await import("../local-host/main.js");
    await runHost(process.argv.slice(3)).catch((error: unknown) => {
      process.stderr.write(`computerd host: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(2);
    });
    return;
  }
  let log: Logger = createLogger(process.env.LOG_FILE || undefined);
  process.on("uncaughtException", (error) => {
    log.error("uncaught exception", error);
    process.exit(1);
  });
  process.on("unhandledRejection", (error) => {
    log.error("unhandled rejection", error);
    process.exit(1);
  });

  let config: Config;
  try {
    config = readConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    log.error(`computerd: ${error.message}`);
    process.exit(2);
  }
  log = createLogger(config.logFile);

  // Signals are handled from before the mount: one that arrives mid-boot shuts down once boot is done.
  const booting = startDaemon(config, log);
  // Every way out through process.exit (an uncaught error, a failed shutdown) ends the commands first: none may
  // outlive the daemon and write into the mount point once the mount is gone. A SIGKILL leaves this no chance;
  // there the container's pid namespace does it (computerd is its pid 1; see host/containers.ts).
  booting.then(
    (daemon) => process.once("exit", () => daemon.killCommands()),
    () => {},
  );
  for (const signal of STOP_SIGNALS) {
    process.once(signal, () => {
      log.info(`${signal}: shutting down`);
      booting
        .then((daemon) => daemon.close())
        .catch(() => {})
        .finally(() => process.exit(SIGNAL_EXIT_CODES[signal]));
    });
  }
  try {
    await booting;
  } catch (error) {
    log.error("computerd failed to start", error);
    process.exit(2);
  }
}

void main();
