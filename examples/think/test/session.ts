/**
 * A test's side of the chat protocol (src/protocol.ts) over a real
 * WebSocket: connect, wait for "ready", then one prompt at a time, each
 * resolving with every frame up to its "done" (or "error").
 */
import WebSocket from "ws";
import type { ServerMessage } from "../src/protocol.js";

export interface ChatSession {
  ready: Extract<ServerMessage, { type: "ready" }>;
  prompt(text: string): Promise<ServerMessage[]>;
  /** Sends a raw frame; resolves with the frames up to the next "done" or "error". */
  send(raw: string): Promise<ServerMessage[]>;
  close(): void;
}

export async function openChat(base: URL, name: string): Promise<ChatSession> {
  const socket = new WebSocket(new URL(`/agents/assistant/${name}`, base.href.replace(/^http/, "ws")));
  const frames: ServerMessage[] = [];
  let wake = (): void => {};
  socket.on("message", (data: Buffer) => {
    const message = JSON.parse(String(data)) as ServerMessage;
    frames.push(message);
    wake();
  });
  socket.on("close", () => wake());
  const next = async (stop: (message: ServerMessage) => boolean): Promise<ServerMessage[]> => {
    for (;;) {
      const at = frames.findIndex(stop);
      if (at >= 0) return frames.splice(0, at + 1);
      if (socket.readyState === WebSocket.CLOSED) throw new Error(`socket closed; frames: ${JSON.stringify(frames)}`);
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  };
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  const ready = (await next((m) => m.type === "ready")).at(-1) as ChatSession["ready"];
  const send = async (raw: string): Promise<ServerMessage[]> => {
    socket.send(raw);
    return next((m) => m.type === "done" || m.type === "error");
  };
  return {
    ready,
    send,
    prompt: (text) => send(JSON.stringify({ type: "prompt", text })),
    close: () => socket.close(),
  };
}
