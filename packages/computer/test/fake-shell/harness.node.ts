/** Shared by this folder's Node tests: a peer store on better-sqlite3 and readers for exec streams. */
import { type Database, WorkspaceFilesystem } from "@cloudflare/dofs";
import { openNodeDatabase } from "@cloudflare/dofs/node";
import type { BackendContext, WireExecEvent } from "../../src/runtime/backend.js";
import { TestRunner, type TestRunnerOptions } from "./runner.js";

export interface Peer {
  db: Database & { close(): void };
  fs: WorkspaceFilesystem;
  runner: TestRunner;
}

/** A fresh in-memory store with `/workspace`, as the Workspace's first push would leave it. */
export async function openPeer(options: TestRunnerOptions = {}): Promise<Peer> {
  const db = openNodeDatabase();
  const fs = new WorkspaceFilesystem(db);
  await fs.mkdir("/workspace");
  return { db, fs, runner: new TestRunner(fs, options) };
}

/** What a Workspace would hand `attach`; these tests use only `db` and `now`. */
export function contextFor(db: Database): BackendContext {
  return {
    db,
    fs: new WorkspaceFilesystem(db),
    now: Date.now,
    git: () => {
      throw new Error("git is not configured in these tests");
    },
    artifacts: () => {
      throw new Error("artifacts are not configured in these tests");
    },
  };
}

export async function collect(stream: ReadableStream<WireExecEvent>): Promise<WireExecEvent[]> {
  const events: WireExecEvent[] = [];
  for await (const event of stream as unknown as AsyncIterable<WireExecEvent>) events.push(event);
  return events;
}

const decoder = new TextDecoder();

/** Decodes a stream's bytes as a whole, so a character split across events comes out whole. */
export function output(events: WireExecEvent[], name: "stdout" | "stderr"): string {
  const chunks = events.flatMap((event) => (event.name !== "exit" && event.name === name ? [event.value] : []));
  return decoder.decode(Buffer.concat(chunks));
}

export function exitCode(events: WireExecEvent[]): number | undefined {
  const exit = events.find((event) => event.name === "exit");
  return exit?.name === "exit" ? exit.code : undefined;
}

export interface ShResult {
  stdout: string;
  stderr: string;
  code: number | undefined;
  events: WireExecEvent[];
}

let counter = 0;

/** Runs `source` to completion on `runner`. */
export async function sh(
  runner: TestRunner,
  source: string,
  options: { cwd?: string; env?: Record<string, string>; stdin?: string | Uint8Array; timeoutMs?: number } = {},
): Promise<ShResult> {
  const { stdin, ...rest } = options;
  const exec = await runner.exec({
    source,
    id: `t${++counter}`,
    ...rest,
    ...(stdin === undefined ? {} : { stdin: typeof stdin === "string" ? new TextEncoder().encode(stdin) : stdin }),
  });
  const events = await collect(exec.events);
  return { stdout: output(events, "stdout"), stderr: output(events, "stderr"), code: exitCode(events), events };
}
