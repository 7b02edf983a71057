/**
 * The assistant: an Agents SDK `Agent` (so it lives at
 * `/agents/assistant/<name>` and talks WebSocket) that is also a Workspace
 * host. Its working directory is the workspace; its tools are
 * `createAITools` with `exec` on two backends — worker-shell (just-bash in a
 * Dynamic Worker, instant) and container-shell (Linux, computerd over FUSE) —
 * and the model picks one per call. Every turn streams text deltas, tool
 * calls and tool results (exec's running snapshots too) to every connected
 * client; the conversation is kept in the object's SQLite, so it survives
 * restarts and reconnects.
 */
import { isThinkWorkspace, withWorkspace, workspaceOf } from "@cloudflare/computer";
import { CloudflareContainerBackend, withWorkspaceContainer } from "@cloudflare/computer/backends/container";
import { type ShellHostContext, WorkerShellBackend } from "@cloudflare/computer/backends/worker-shell";
import { createAITools } from "@cloudflare/computer/tools";
import { Agent, type Connection } from "agents";
import { type ModelMessage, stepCountIs, streamText } from "ai";
import { thinkDemoScript } from "./demo-script.js";
import { chooseModel, type ModelEnv, NO_MODEL_NOTE } from "./model.js";
import type { ClientMessage, ServerMessage } from "./protocol.js";

export interface Env extends ModelEnv {
  Assistant: DurableObjectNamespace<Assistant>;
  LOADER: WorkerLoader;
  /** Set by `npm run dev` (and the tests): the local container host's URL. */
  COMPUTER_CONTAINER_HOST?: string;
}

const SYSTEM = `You are a helpful assistant with a computer. Your working directory is /workspace, a durable
filesystem: use the file tools (read, write, edit, ls, find, grep, delete) for files, and exec to run commands.
exec has two backends: "worker-shell" (a fast bash-like shell with coreutils, grep, sed, awk, jq; no network)
and "container-shell" (a real Linux container with the same files). Prefer worker-shell; use container-shell for
real programs. Keep answers short.`;

/** Steps (model calls) per turn; each step may call several tools. */
const MAX_STEPS = 12;

export class Assistant extends withWorkspace(
  // The container mixin inside, so `self` below has getWorkspaceContainer().
  withWorkspaceContainer(Agent<Env>, { binding: "Assistant" }),
  (self) => ({
    storage: self.ctx.storage,
    // Think's file methods (readFile → null when missing, …): the file route below uses them.
    useThink: true,
    backends: [
      new WorkerShellBackend({
        loader: self.env.LOADER,
        workspace: { binding: "Assistant", id: self.ctx.id.toString() },
        // `ctx.exports` is typed from Cloudflare.GlobalProps, which this example does not generate.
        ctx: self.ctx as unknown as ShellHostContext,
      }),
      new CloudflareContainerBackend({ container: () => self.getWorkspaceContainer() }),
    ],
  }),
) {
  /** Turns run one after another: a prompt sent while one runs waits for it. */
  #turns: Promise<void> = Promise.resolve();

  #history(): ModelMessage[] {
    this.sql`CREATE TABLE IF NOT EXISTS chat_messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, message TEXT NOT NULL)`;
    return this.sql<{ message: string }>`SELECT message FROM chat_messages ORDER BY seq`.map(
      (row) => JSON.parse(row.message) as ModelMessage,
    );
  }

  #append(messages: ModelMessage[]): void {
    for (const message of messages) this.sql`INSERT INTO chat_messages (message) VALUES (${JSON.stringify(message)})`;
  }

  #send(message: ServerMessage): void {
    this.broadcast(JSON.stringify(message));
  }

  override async onConnect(connection: Connection): Promise<void> {
    const { label, demo } = chooseModel(this.env, thinkDemoScript);
    const turns = this.#history().filter((message) => message.role === "user").length;
    const ready: ServerMessage = { type: "ready", model: label, demo, turns, ...(demo ? { note: NO_MODEL_NOTE } : {}) };
    connection.send(JSON.stringify(ready));
  }

  override async onMessage(connection: Connection, raw: string | ArrayBuffer): Promise<void> {
    let message: ClientMessage;
    try {
      message = JSON.parse(typeof raw === "string" ? raw : new TextDecoder().decode(raw)) as ClientMessage;
    } catch {
      connection.send(JSON.stringify({ type: "error", message: "messages are JSON" } satisfies ServerMessage));
      return;
    }
    if (message?.type !== "prompt" || typeof message.text !== "string" || message.text.trim() === "") {
      connection.send(JSON.stringify({ type: "error", message: 'send {"type":"prompt","text":"…"}' }));
      return;
    }
    const turn = this.#turns
      .then(() => this.#turn(message.text))
      .catch((error: unknown) => this.#send({ type: "error", message: errorMessage(error) }));
    this.#turns = turn;
    await turn;
  }

  async #turn(text: string): Promise<void> {
    const workspace = workspaceOf(this);
    await workspace.fs.mkdir("/workspace", { recursive: true });
    const { model } = chooseModel(this.env, thinkDemoScript);
    const tools = createAITools({
      workspace,
      shell: {
        backends: {
          "worker-shell": { description: "just-bash in a Dynamic Worker: coreutils, grep, sed, awk, jq; instant" },
          "container-shell": { description: "a Linux container (computerd) with the same /workspace mounted" },
        },
        defaultBackend: "worker-shell",
      },
    });
    const user: ModelMessage = { role: "user", content: text };
    const result = streamText({
      model,
      system: SYSTEM,
      messages: [...this.#history(), user],
      tools,
      stopWhen: stepCountIs(MAX_STEPS),
    });
    // All of the turn's text (result.text is only the last step's).
    let said = "";
    for await (const part of result.fullStream) {
      if (part.type === "text-delta") {
        said += part.text;
        this.#send({ type: "text", delta: part.text });
      } else if (part.type === "tool-call") {
        this.#send({ type: "tool-call", id: part.toolCallId, tool: part.toolName, input: part.input });
      } else if (part.type === "tool-result") {
        this.#send({
          type: "tool-result",
          id: part.toolCallId,
          tool: part.toolName,
          output: part.output,
          preliminary: part.preliminary === true,
        });
      } else if (part.type === "tool-error") {
        this.#send({
          type: "tool-result",
          id: part.toolCallId,
          tool: part.toolName,
          output: { error: String(part.error) },
        });
      } else if (part.type === "error") {
        this.#send({ type: "error", message: errorMessage(part.error) });
        return;
      }
    }
    const { messages } = await result.response;
    this.#append([user, ...messages]);
    this.#send({ type: "done", text: said });
  }

  /** `GET …/messages`: the stored conversation; `GET …/file/workspace/<path>`: a file of the workspace. */
  override async onRequest(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (request.method !== "GET") return new Response("GET only\n", { status: 405 });
    if (url.pathname.endsWith("/messages")) return Response.json(this.#history());
    const match = /\/file(\/workspace\/.+)$/.exec(url.pathname);
    if (!match) return new Response("GET …/messages or …/file/workspace/<path>\n", { status: 404 });
    const path = decodeURIComponent(match[1] as string);
    if (path.split("/").includes("..")) return new Response("no .. in paths\n", { status: 400 });
    const workspace = workspaceOf(this);
    if (!isThinkWorkspace(workspace)) throw new Error("the assistant's workspace is created with useThink");
    const bytes = await workspace.readFileBytes(path);
    return bytes === null
      ? new Response(`ENOENT: no such file or directory, open '${path}'\n`, { status: 404 })
      : new Response(bytes);
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
