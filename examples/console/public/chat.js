// The chat panel: the conversation so far goes to the agent, whose answer,
// tool calls and tool results stream back as server-sent events.
import { events, post } from "./sse.js";

export function startChat(api, changed) {
  const log = document.getElementById("chat-log");
  const input = document.getElementById("chat-input");
  const history = [];

  const add = (className, text, tag = "div") => {
    const node = document.createElement(tag);
    node.className = className;
    node.textContent = text;
    log.append(node);
    log.scrollTop = log.scrollHeight;
    return node;
  };

  document.getElementById("chat-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const content = input.value.trim();
    if (content === "" || input.disabled) return;
    input.value = "";
    input.disabled = true;
    history.push({ role: "user", content });
    add("message user", content);
    const answer = add("message assistant", "");
    const calls = new Map();
    try {
      const response = await post(api("/chat"), { messages: history });
      for await (const { event: name, data } of events(response)) {
        if (name === "model" && data.kind === "demo") add("note", data.reason);
        else if (name === "text") answer.textContent += data.text;
        else if (name === "tool-call") {
          const tool = add("tool", "", "details");
          tool.dataset.tool = data.name;
          tool.append(
            Object.assign(document.createElement("summary"), {
              textContent: `${data.name} ${JSON.stringify(data.input)}`,
            }),
          );
          calls.set(data.id, tool);
        } else if (name === "tool-result" || name === "tool-error") {
          const tool = calls.get(data.id) ?? add("tool", "", "details");
          const body = name === "tool-result" ? JSON.stringify(data.output, null, 2) : data.message;
          tool.append(Object.assign(document.createElement("pre"), { textContent: body, className: name }));
          tool.open = true;
        } else if (name === "error") add("message error", data.message);
      }
      // Keep the answer after the tool blocks it summarizes.
      log.append(answer);
      history.push({ role: "assistant", content: answer.textContent });
    } catch (error) {
      add("message error", error.message);
      history.pop();
    } finally {
      input.disabled = false;
      input.focus();
      changed();
    }
  });
}
