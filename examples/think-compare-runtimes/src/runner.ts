/**
 * One side of a comparison: a Durable Object (named `<run id>:<runtime>`)
 * with its own Workspace that runs the agent task once, with `exec` limited
 * to one runtime. Events are appended to the object's SQLite as they happen
 * and pushed to every open event stream; a stream opened late replays them
 * first. `stop()` aborts the model call and kills a running command.
 */
import { DurableObject } from "cloudflare:workers";
import { withWorkspace, workspaceOf } from "@cloudflare/computer";
import { CloudflareContainerBackend, withWorkspaceContainer } from "@cloudflare/computer/backends/container";
import { type ShellHostContext, WorkerShellBackend } from "@cloudflare/computer/backends/worker-shell";
import { createAITools } from "@cloudflare/computer/tools";
import { stepCountIs, streamText } from "ai";
import { compareDemoScript } from "./demo-script.js";
import type { RunEvent, RunState, RunStatus } from "./events.js";
import { chooseModel, type ModelEnv } from "./model.js";

export interface Env extends ModelEnv {
  RUNNER: DurableObjectNamespace<Runner>;
  LOADER: WorkerLoader;
  /** Set by `npm run dev` (and the tests): the local container host's URL. */
  COMPUTER_CONTAINER_HOST?: string;
}

export const RUNTIMES = {
  "container-shell": "a Linux container (computerd) with /workspace mounted over FUSE",
  "worker-shell": "just-bash in a Dynamic Worker, directly on the workspace's files",
} as const;
export type Runtime = keyof typeof RUNTIMES;

const SYSTEM = `You are an agent with a computer. Your files are in /workspace. Do the task with the tools,
running commands with exec, then answer in one or two sentences.`;

type EventBody = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, "t"> : never) : never;

const encoder = new TextEncoder();

export class Runner extends withWorkspace(
  withWorkspaceContainer(DurableObject<Env>, { binding: "RUNNER" }),
  (self) => ({
    storage: self.ctx.storage,
    backends: [
      new WorkerShellBackend({
        loader: self.env.LOADER,
        workspace: { binding: "RUNNER", id: self.ctx.id.toString() },
        ctx: self.ctx as unknown as ShellHostContext,
      }),
      new CloudflareContainerBackend({ container: () => self.getWorkspaceContainer() }),
    ],
  }),
) {
  #abort: AbortController | undefined;
  #streams = new Set<WritableStreamDefaultWriter<Uint8Array>>();

  #sql(): SqlStorage {
    const sql = this.ctx.storage.sql;
    sql.exec("CREATE TABLE IF NOT EXISTS run_meta (id INTEGER PRIMARY KEY CHECK (id = 1), state TEXT NOT NULL)");
    sql.exec("CREATE TABLE IF NOT EXISTS run_events (seq INTEGER PRIMARY KEY AUTOINCREMENT, event TEXT NOT NULL)");
    return sql;
  }

  #read(): RunState | null {
    const row = this.#sql().exec<{ state: string }>("SELECT state FROM run_meta").toArray()[0];
    return row ? (JSON.parse(row.state) as RunState) : null;
  }

  #write(state: RunState): void {
    this.#sql().exec("INSERT OR REPLACE INTO run_meta (id, state) VALUES (1, ?)", JSON.stringify(state));
  }

  #emit(state: RunState, body: EventBody): void {
    const event = { t: Date.now() - state.startedAt, ...body } as RunEvent;
    const cursor = this.#sql().exec("INSERT INTO run_events (event) VALUES (?) RETURNING seq", JSON.stringify(event));
    const seq = cursor.one().seq as number;
    state.events = seq;
    if (event.type === "finish") {
      state.status = event.status;
      state.durationMs = event.durationMs;
    }
    this.#write(state);
    const frame = encoder.encode(`id: ${seq}\ndata: ${JSON.stringify(event)}\n\n`);
    for (const writer of this.#streams) {
      writer.write(frame).catch(() => this.#streams.delete(writer));
      if (event.type === "finish") {
        this.#streams.delete(writer);
        writer.close().catch(() => {});
      }
    }
  }

  /** The run's state; null if this object never started one. */
  async state(): Promise<RunState | null> {
    const state = this.#read();
    // A run is in memory only while this object lives: after a restart, a "running" run was interrupted.
    if (state?.status === "running" && !this.#abort) {
      this.#emit(state, {
        type: "finish",
        status: "failed",
        durationMs: Date.now() - state.startedAt,
        error: "interrupted",
      });
    }
    return this.#read();
  }

  /** Starts the task unless this object already ran one; returns at once (the run goes on in the background). */
  async start(runId: string, runtime: Runtime, task: string): Promise<RunState> {
    const existing = await this.state();
    if (existing) return existing;
    const { label, demo } = chooseModel(this.env, compareDemoScript);
    const state: RunState = {
      runId,
      runtime,
      task,
      status: "running",
      startedAt: Date.now(),
      durationMs: null,
      events: 0,
    };
    this.#write(state);
    this.#emit(state, { type: "start", runtime, task, model: label, demo });
    this.#abort = new AbortController();
    this.ctx.waitUntil(this.#run(state, this.#abort.signal));
    return { ...state };
  }

  async stop(): Promise<RunState | null> {
    this.#abort?.abort(new Error("stopped"));
    return this.state();
  }

  async #run(state: RunState, signal: AbortSignal): Promise<void> {
    let status: RunStatus = "completed";
    let error: string | undefined;
    try {
      const workspace = workspaceOf(this);
      await workspace.fs.mkdir("/workspace", { recursive: true });
      const runtime = state.runtime as Runtime;
      const tools = createAITools({
        workspace,
        shell: { backends: { [runtime]: { description: RUNTIMES[runtime] } }, defaultBackend: runtime },
      });
      const result = streamText({
        model: chooseModel(this.env, compareDemoScript).model,
        system: SYSTEM,
        prompt: state.task,
        tools,
        stopWhen: stepCountIs(12),
        abortSignal: signal,
      });
      for await (const part of result.fullStream) {
        if (part.type === "text-delta") this.#emit(state, { type: "text", delta: part.text });
        else if (part.type === "tool-call") {
          this.#emit(state, { type: "tool-call", id: part.toolCallId, tool: part.toolName, input: part.input });
        } else if (part.type === "tool-result") {
          const { toolCallId: id, toolName: tool, output } = part;
          this.#emit(state, { type: "tool-result", id, tool, output, preliminary: part.preliminary === true });
        } else if (part.type === "error") throw part.error;
      }
      if (signal.aborted) status = "stopped";
    } catch (caught) {
      status = signal.aborted ? "stopped" : "failed";
      if (status === "failed") error = caught instanceof Error ? caught.message : String(caught);
    } finally {
      this.#abort = undefined;
    }
    this.#emit(state, {
      type: "finish",
      status,
      durationMs: Date.now() - state.startedAt,
      ...(error === undefined ? {} : { error }),
    });
  }

  /** `GET …/events`: Server-Sent Events, stored ones first (after `Last-Event-ID`), then live until "finish". */
  override async fetch(request: Request): Promise<Response> {
    const state = await this.state();
    if (!state) return new Response("no such run\n", { status: 404 });
    const after = Number(request.headers.get("last-event-id") ?? 0) || 0;
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    const stored = this.#sql()
      .exec<{ seq: number; event: string }>("SELECT seq, event FROM run_events WHERE seq > ? ORDER BY seq", after)
      .toArray();
    for (const { seq, event } of stored) void writer.write(encoder.encode(`id: ${seq}\ndata: ${event}\n\n`));
    if (state.status === "running") this.#streams.add(writer);
    else void writer.close();
    return new Response(readable, {
      headers: { "content-type": "text/event-stream", "cache-control": "no-store" },
    });
  }
}
