// One terminal per backend: a command line, its output streamed in as it
// arrives (server-sent events), the exit, and the sync counters.
import { events, post } from "./sse.js";

export function startTerminal(api, backend, changed) {
  const node = document.getElementById("terminal-template").content.firstElementChild.cloneNode(true);
  node.id = `terminal-${backend}`;
  node.querySelector(".terminal-title").textContent = backend;
  node.querySelector(".command").placeholder =
    backend === "worker-javascript" ? "cat a.txt, ls, or JavaScript" : "a shell command";
  document.getElementById("terminals").append(node);
  const output = node.querySelector(".output");
  const input = node.querySelector(".command");
  const counters = node.querySelector(".counters");
  const stop = node.querySelector(".stop");
  let running = null;

  const write = (text, className) => {
    const span = document.createElement("span");
    span.textContent = text;
    if (className) span.className = className;
    output.append(span);
    output.scrollTop = output.scrollHeight;
  };

  stop.addEventListener("click", () => {
    if (running) post(api("/kill"), { backend, id: running }).catch((error) => write(`${error.message}\n`, "stderr"));
  });

  node.querySelector(".prompt").addEventListener("submit", async (event) => {
    event.preventDefault();
    const command = input.value;
    if (command.trim() === "" || input.disabled) return;
    input.value = "";
    input.disabled = true;
    write(`$ ${command}\n`, "meta");
    try {
      const response = await post(api("/exec"), { backend, command });
      for await (const { event: name, data } of events(response)) {
        if (name === "start") {
          running = data.id;
          stop.disabled = false;
          if (data.source) write(`(runs as JavaScript)\n${data.source}\n`, "meta");
        } else if (name === "stdout" || name === "stderr") {
          write(data.text, name === "stderr" ? "stderr" : undefined);
        } else if (name === "exit") {
          // A module's return value; most terminal lines return nothing (null).
          const value = data.value === undefined || data.value === null ? "" : ` → ${JSON.stringify(data.value)}`;
          write(`[exit ${data.code} · ${data.status}${value}]\n`, data.code === 0 ? "meta exit-ok" : "meta");
        } else if (name === "sync") {
          const sync = data.sync.status === "complete" ? "complete" : `pending: ${data.sync.error ?? ""}`;
          counters.textContent = `pushed ${data.pushed} · pulled ${data.pulled} · sync ${sync}`;
          counters.dataset.pushed = data.pushed;
          counters.dataset.pulled = data.pulled;
        } else if (name === "error") {
          write(`${data.message}\n`, "stderr");
        }
      }
    } catch (error) {
      write(`${error.message}\n`, "stderr");
    } finally {
      running = null;
      stop.disabled = true;
      input.disabled = false;
      input.focus();
      changed();
    }
  });
}
