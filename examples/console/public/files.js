// The file tree of /workspace and the editor: open, edit, save, new file, delete.
const $ = (id) => document.getElementById(id);

export function startFiles(api) {
  const tree = $("tree");
  const text = $("editor-text");
  const status = $("editor-status");
  const save = $("save");
  const remove = $("delete");
  let open = null;

  const fileUrl = (path) => api(`/file${path.split("/").map(encodeURIComponent).join("/")}`);
  const say = (message, isError = false) => {
    status.textContent = message;
    status.classList.toggle("error", isError);
  };

  async function refresh() {
    const response = await fetch(api("/tree"));
    const { entries, truncated } = await response.json();
    tree.replaceChildren(
      ...entries.map(({ path, type }) => {
        const item = document.createElement("li");
        const depth = path.split("/").length - 3;
        item.textContent = `${path.slice(path.lastIndexOf("/") + 1)}${type === "dir" ? "/" : ""}`;
        item.style.paddingLeft = `${0.3 + depth}rem`;
        item.className = type === "dir" ? "dir" : "file";
        item.dataset.path = path;
        if (path === open) item.classList.add("open");
        if (type !== "dir") item.addEventListener("click", () => openFile(path));
        return item;
      }),
    );
    if (truncated) tree.append(Object.assign(document.createElement("li"), { textContent: "…", className: "dir" }));
  }

  async function openFile(path) {
    const response = await fetch(fileUrl(path));
    if (!response.ok) return say(`${path}: ${(await response.json()).error}`, true);
    open = path;
    text.value = await response.text();
    text.disabled = save.disabled = remove.disabled = false;
    remove.textContent = "Delete";
    $("editor-path").textContent = path;
    say("");
    for (const item of tree.children) item.classList.toggle("open", item.dataset.path === path);
  }

  save.addEventListener("click", async () => {
    const response = await fetch(fileUrl(open), { method: "PUT", body: text.value });
    if (!response.ok) return say(`not saved: ${(await response.json()).error}`, true);
    say(`saved ${new Date().toLocaleTimeString()}`);
    await refresh();
  });

  // Two clicks: the first asks, the second deletes.
  remove.addEventListener("click", async () => {
    if (remove.textContent === "Delete") {
      remove.textContent = "Really delete?";
      return;
    }
    const response = await fetch(fileUrl(open), { method: "DELETE" });
    if (!response.ok) return say(`not deleted: ${(await response.json()).error}`, true);
    say(`deleted ${open}`);
    open = null;
    text.value = "";
    text.disabled = save.disabled = remove.disabled = true;
    remove.textContent = "Delete";
    $("editor-path").textContent = "no file open";
    await refresh();
  });

  $("new-file").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = $("new-path");
    const path = `/workspace/${input.value.trim().replace(/^\/?(workspace\/)?/, "")}`;
    const response = await fetch(fileUrl(path), { method: "PUT", body: "" });
    if (!response.ok) return say(`not created: ${(await response.json()).error}`, true);
    input.value = "";
    await refresh();
    await openFile(path);
    text.focus();
  });

  $("refresh").addEventListener("click", () => refresh());
  refresh();
  return { refresh };
}
