// The console page: wires the file tree and editor, the three terminals and
// the chat panel to one workspace, named by ?w=<name> (default "main").
import { startChat } from "./chat.js";
import { startFiles } from "./files.js";
import { startTerminal } from "./terminal.js";

const name = new URLSearchParams(location.search).get("w") || "main";
const api = (path) => `/api/w/${encodeURIComponent(name)}${path}`;
document.getElementById("workspace-name").textContent = name;

const files = startFiles(api);
for (const backend of ["worker-shell", "worker-javascript", "container-shell"]) {
  // A command may change files: show the tree as it is afterwards.
  startTerminal(api, backend, () => files.refresh());
}
startChat(api, () => files.refresh());

const model = document.getElementById("model");
fetch("/api/model")
  .then((response) => response.json())
  .then((choice) => {
    model.textContent = choice.kind === "demo" ? "model: scripted demo" : `model: ${choice.model}`;
    model.title = choice.kind === "demo" ? choice.reason : choice.baseURL;
    model.classList.toggle("demo", choice.kind === "demo");
  });
