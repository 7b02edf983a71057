/**
 * What the built-in host commands share: the slice of just-bash's command
 * context they read, and turning it into plain values for an RPC call.
 */
import type { ByteString, Command, ExecResult } from "just-bash";

/** The parts of just-bash's command context the host commands use. */
export interface HostCommandContext {
  cwd: string;
  env: Map<string, string>;
  stdin: ByteString;
}

export type HostCommand = Command;

/** Shell variables as a plain record: RPC cannot carry a Map's identity, and git wants strings. */
export function flattenEnv(env: Map<string, string>): Record<string, string> {
  return Object.fromEntries(env);
}

/** just-bash hands stdin as latin1-shaped bytes; the host commands take UTF-8 text. */
export function stdinText(stdin: ByteString): string {
  const raw = stdin as unknown as string;
  if (raw.length === 0) return "";
  const bytes = Uint8Array.from(raw, (char) => char.charCodeAt(0) & 0xff);
  return new TextDecoder().decode(bytes);
}

export function result(stdout: string, stderr: string, exitCode: number): ExecResult {
  return { stdout, stderr, exitCode };
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Builds a just-bash command without importing just-bash at run time (the type is all we need). */
export function hostCommand(
  name: string,
  execute: (args: string[], ctx: HostCommandContext) => Promise<ExecResult>,
): Command {
  return { name, trusted: true, execute: (args, ctx) => execute(args, ctx) };
}
