#!/usr/bin/env node
// `npm run chat [-- <name>]`: a terminal chat with the assistant served by
// `npm run dev` (at $THINK_URL, else http://127.0.0.1:$PORT, default 8787).
// One line in is one prompt; text, tool calls and exec output are printed
// as they arrive. Each name is its own assistant with its own files and
// history (default "me"). End with Ctrl-D or /exit; with stdin piped, the
// client exits once every prompt has been answered.
import { createInterface } from "node:readline";
import WebSocket from "ws";

const name = process.argv[2] ?? "me";
const base = process.env.THINK_URL ?? `http://127.0.0.1:${process.env.PORT ?? "8787"}`;
const url = `${base.replace(/^http/, "ws").replace(/\/$/, "")}/agents/assistant/${encodeURIComponent(name)}`;
const out = (text) => process.stdout.write(text);

const socket = new WebSocket(url);
/** Created once connected, so no line typed (or piped) before that is lost. */
let rl;
/** Prompts sent and not yet answered; stdin may end before they are. */
let pending = 0;
let inputEnded = false;
/** Per exec call: how much of its stdout/stderr was already printed from running snapshots. */
const printed = new Map();

function finishIfIdle() {
  if (!inputEnded || pending !== 0) return;
  socket.close(1000);
  // The agent's side has not answered the close frame in our runs: a second later, drop the connection
  // rather than wait out ws's 30 s close timeout.
  setTimeout(() => socket.terminate(), 1000).unref();
}

function printExecOutput(id, output) {
  const seen = printed.get(id) ?? { stdout: 0, stderr: 0 };
  for (const stream of ["stdout", "stderr"]) {
    const text = typeof output?.[stream] === "string" ? output[stream] : "";
    const fresh = text.slice(seen[stream]);
    if (fresh) out(fresh.replace(/^/gm, stream === "stdout" ? "  │ " : "  ! ").replace(/\n? *[│!] ?$/, "\n"));
    seen[stream] = text.length;
  }
  printed.set(id, seen);
}

function describeCall(tool, input) {
  if (tool === "exec") return `exec on ${input?.backend ?? "default backend"}: ${input?.command}`;
  if (typeof input?.path === "string") return `${tool} ${input.path}`;
  return `${tool} ${JSON.stringify(input)}`;
}

socket.on("message", (data) => {
  let message;
  try {
    message = JSON.parse(String(data));
  } catch {
    return;
  }
  switch (message.type) {
    case "ready":
      out(
        `connected to ${name} — model: ${message.model}${message.turns ? `, ${message.turns} earlier turn(s)` : ""}\n`,
      );
      if (message.note) out(`${message.note}\n`);
      listen();
      break;
    case "text":
      out(message.delta);
      break;
    case "tool-call":
      out(`\n  ⚙ ${describeCall(message.tool, message.input)}\n`);
      break;
    case "tool-result":
      if (message.tool === "exec") {
        printExecOutput(message.id, message.output);
        if (!message.preliminary && message.output?.exitCode !== undefined) {
          out(`  └ exit ${message.output.exitCode}\n`);
        }
      } else if (!message.preliminary) {
        const error = message.output?.error;
        out(error ? `  └ error: ${error}\n` : "  └ ok\n");
      }
      break;
    case "done":
      out("\n");
      pending -= 1;
      finishIfIdle();
      if (!inputEnded) rl?.prompt();
      break;
    case "error":
      out(`\n[error] ${message.message}\n`);
      pending = Math.max(0, pending - 1);
      finishIfIdle();
      break;
    // Frames of the Agents SDK itself (identity, state, MCP servers) are not for this client.
  }
});

/** Starts reading prompts (after the assistant's "ready", so its greeting comes first). */
function listen() {
  if (rl) return;
  // At a terminal, readline shows the "you> " prompt and echoes typing; piped input stays out of the output.
  const tty = process.stdin.isTTY === true;
  rl = createInterface({
    input: process.stdin,
    ...(tty ? { output: process.stdout, terminal: true } : { terminal: false }),
  });
  rl.setPrompt("you> ");
  rl.prompt();
  rl.on("line", (line) => {
    const text = line.trim();
    if (text === "/exit") return rl.close();
    if (text === "") return rl.prompt();
    pending += 1;
    socket.send(JSON.stringify({ type: "prompt", text }));
  });
  rl.on("close", () => {
    inputEnded = true;
    finishIfIdle();
  });
}

socket.on("close", () => {
  rl?.close();
  // Let stdout drain instead of process.exit(): piped output would be cut short.
  process.stdin.destroy();
});
socket.on("error", (error) => {
  console.error(`cannot reach ${url}: ${error.message} (is \`npm run dev\` running?)`);
  process.exit(1);
});
