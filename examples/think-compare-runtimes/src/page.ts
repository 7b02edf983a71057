/**
 * The page: plain HTML and a little JavaScript, no build step. It starts a
 * run, opens one EventSource per runtime and renders each side's events as
 * they arrive: the model's text, every tool call with its (live) output,
 * and the final status and time. `/#<run id>` shows (replays) that run.
 */
export const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Compare runtimes — @cloudflare/computer</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #222; }
  textarea { width: 100%; height: 4rem; font: inherit; }
  .columns { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; margin-top: 1rem; }
  section { border: 1px solid #ccc; border-radius: 6px; padding: .75rem; min-height: 12rem; }
  h2 { margin: 0 0 .5rem; font-size: 1rem; display: flex; justify-content: space-between; }
  .status { font-weight: normal; color: #666; }
  .call { margin: .5rem 0 0; color: #0550ae; font-family: ui-monospace, monospace; }
  pre { background: #f6f8fa; margin: .25rem 0; padding: .5rem; white-space: pre-wrap; max-height: 14rem; overflow: auto; }
  .note { color: #8a6d00; }
</style>
</head>
<body>
<h1>Same task, two runtimes</h1>
<p>One agent task runs on <b>container-shell</b> (a Linux container, the workspace over FUSE) and on
<b>worker-shell</b> (just-bash in a Dynamic Worker), each with its own workspace. Output appears as it happens.</p>
<form id="form">
  <textarea id="task" placeholder="The task (empty: the default task)"></textarea>
  <button type="submit" id="run">Run on both</button>
  <button type="button" id="stop" disabled>Stop</button>
  <span id="run-id" class="status"></span>
</form>
<div class="columns">
  <section data-runtime="container-shell"><h2>container-shell <span class="status"></span></h2><div class="log"></div></section>
  <section data-runtime="worker-shell"><h2>worker-shell <span class="status"></span></h2><div class="log"></div></section>
</div>
<script>
const $ = (selector, root = document) => root.querySelector(selector);
let current = null;
let open = [];

function column(runtime) {
  const section = $('section[data-runtime="' + runtime + '"]');
  return { log: $(".log", section), status: $(".status", section) };
}

function render(runtime, event, outputs) {
  const { log, status } = column(runtime);
  const add = (tag, text, cls) => {
    const node = document.createElement(tag);
    node.textContent = text;
    if (cls) node.className = cls;
    log.append(node);
    return node;
  };
  if (event.type === "start") {
    status.textContent = "running";
    add("div", "model: " + event.model, event.demo ? "note" : "");
  } else if (event.type === "text") {
    const last = log.lastElementChild;
    if (last && last.dataset.text) last.textContent += event.delta;
    else add("p", event.delta).dataset.text = "1";
  } else if (event.type === "tool-call") {
    const input = event.input || {};
    add("div", "⚙ " + event.tool + " " + (input.command || input.path || JSON.stringify(input)), "call");
    outputs.set(event.id, add("pre", ""));
  } else if (event.type === "tool-result") {
    const out = event.output || {};
    const pre = outputs.get(event.id);
    if (!pre) return;
    if (out.error) pre.textContent = "error: " + out.error;
    else if (event.tool === "exec") {
      pre.textContent = (out.stdout || "") + (out.stderr || "") + (out.exitCode == null ? "" : "[exit " + out.exitCode + "]");
    } else pre.textContent = JSON.stringify(out);
  } else if (event.type === "finish") {
    status.textContent = event.status + " in " + (event.durationMs / 1000).toFixed(1) + " s" + (event.error ? ": " + event.error : "");
  }
}

function follow(id, runtime, url) {
  const outputs = new Map();
  const source = new EventSource(url);
  open.push(source);
  source.onmessage = (message) => {
    const event = JSON.parse(message.data);
    render(runtime, event, outputs);
    if (event.type === "finish") {
      source.close();
      open = open.filter((s) => s !== source);
      if (open.length === 0 && current === id) $("#stop").disabled = true;
    }
  };
}

function show(id, runtimes) {
  for (const s of open) s.close();
  open = [];
  for (const section of document.querySelectorAll("section")) {
    $(".log", section).textContent = "";
    $(".status", section).textContent = "";
  }
  current = id;
  location.hash = id;
  $("#run-id").textContent = "run " + id;
  $("#stop").disabled = false;
  for (const runtime of runtimes) follow(id, runtime, "/api/runs/" + id + "/events/" + runtime);
}

$("#form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const response = await fetch("/api/runs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ task: $("#task").value }) });
  const run = await response.json();
  if (!response.ok) return alert(run.error);
  show(run.id, run.runtimes);
});

// A link to a run (/#<run id>) replays it: every event is kept.
if (location.hash.length > 1) {
  const id = location.hash.slice(1);
  fetch("/api/runs/" + id).then((r) => (r.ok ? r.json() : null)).then((run) => run && show(id, Object.keys(run.runs)));
}

$("#stop").addEventListener("click", async () => {
  if (current) await fetch("/api/runs/" + current + "/stop", { method: "POST" });
});
</script>
</body>
</html>
`;
