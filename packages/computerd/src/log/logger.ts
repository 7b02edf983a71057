/**
 * The daemon's log: stderr always, and `LOG_FILE` (appended, `ISO [level] msg`)
 * when set. Synchronous appends: a log line must survive the crash it reports.
 */
import { appendFileSync } from "node:fs";

export interface Logger {
  info(message: string): void;
  error(message: string, error?: unknown): void;
}

export function createLogger(file: string | undefined, stream: NodeJS.WritableStream = process.stderr): Logger {
  const write = (level: "info" | "error", message: string): void => {
    const line = `${new Date().toISOString()} [${level}] ${message}\n`;
    stream.write(line);
    if (file !== undefined) {
      try {
        appendFileSync(file, line);
      } catch {
        // A log file we cannot write must not take the daemon down; stderr still has the line.
      }
    }
  };
  return {
    info: (message) => write("info", message),
    error: (message, error) => write("error", error === undefined ? message : `${message}: ${describe(error)}`),
  };
}

export function describe(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  return String(error);
}
