/**
 * The console as a person uses it, in headless Chromium (Debian's
 * `chromium`, driven by playwright-core) against the real dev script — the
 * local container host plus `wrangler dev`, as `npm start` runs them:
 * create a file in the editor and save it, `cat` it in each of the three
 * terminals and watch the output and the sync counters arrive, ask the
 * agent (the scripted demo model) and see its tool result; then SIGTERM,
 * check that every process and FUSE mount is gone, start again on the same
 * persisted state and find the file still there.
 *
 * Screenshots go to <repo>/.cache/screenshots/ (ignored by git); their paths
 * are printed. Needs root and the packages built.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allGone, type DevRun, startDev } from "../../test-support/dev-script.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
const repo = join(example, "..", "..");
const screenshots = join(repo, ".cache", "screenshots");
const CHROMIUM = "/usr/bin/chromium";
const FUSE_CONNECTIONS = "/sys/fs/fuse/connections";

let browser: Browser | undefined;
let dev: DevRun | undefined;
let persistTo: string;

beforeAll(async () => {
  mkdirSync(screenshots, { recursive: true });
  // Its own persisted state, so the test neither sees nor touches a person's `npm start` files.
  mkdirSync(join(repo, ".cache"), { recursive: true });
  persistTo = mkdtempSync(join(repo, ".cache", "console-test-"));
  // Root has no user namespace sandbox to drop into; the page is our own.
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
});
afterAll(async () => {
  await browser?.close();
  await dev?.stop();
  if (persistTo) rmSync(persistTo, { recursive: true, force: true });
});

async function shoot(page: Page, name: string): Promise<void> {
  const path = join(screenshots, `console-${name}.png`);
  await page.screenshot({ path, fullPage: true });
  console.log(`screenshot: ${path}`);
}

async function openConsole(run: DevRun): Promise<Page> {
  const page = await (browser as Browser).newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`${run.base}/?w=e2e`);
  await page.locator("#workspace-name", { hasText: "e2e" }).waitFor();
  return page;
}

async function runInTerminal(page: Page, backend: string, command: string): Promise<void> {
  const terminal = page.locator(`#terminal-${backend}`);
  await terminal.locator(".command").fill(command);
  await terminal.locator(".command").press("Enter");
}

/** The FUSE connection ids of the /workspace mounts that the given processes can see (their own namespaces). */
function workspaceMounts(pids: number[]): Set<number> {
  const ids = new Set<number>();
  for (const pid of pids) {
    let mountinfo = "";
    try {
      mountinfo = readFileSync(`/proc/${pid}/mountinfo`, "utf8");
    } catch {
      continue;
    }
    for (const line of mountinfo.split("\n")) {
      // "36 25 0:42 / /workspace rw,… - fuse computerd rw,…": the connection id is the minor device number.
      const fields = line.split(" ");
      const type = fields[fields.indexOf("-") + 1];
      if (fields[4] === "/workspace" && type?.startsWith("fuse")) ids.add(Number(fields[2]?.split(":")[1]));
    }
  }
  return ids;
}

/**
 * Waits (the test's timeout bounds it) until the connection is gone. A directory of the same id made after
 * `since` is a new mount of someone else (ids are reused), not ours.
 */
async function connectionGone(id: number, since: number): Promise<void> {
  for (;;) {
    const path = join(FUSE_CONNECTIONS, String(id));
    if (!existsSync(path)) return;
    try {
      if (statSync(path).ctimeMs > since) return;
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("examples/console in a browser", () => {
  it("edits a file, cats it in all three terminals, asks the agent, and keeps the file across a restart", async () => {
    dev = await startDev(example, { env: { PERSIST_TO: persistTo } });
    // The script announces the URL once the console answers (the test's timeout bounds the wait).
    while (!dev.output().includes(`console ready: ${dev.base}/`))
      await new Promise((resolve) => setTimeout(resolve, 100));
    const page = await openConsole(dev);
    await page.locator("#model", { hasText: "model: scripted demo" }).waitFor();

    // A new file from the tree, typed into the editor and saved.
    await page.locator("#new-path").fill("notes/hello.txt");
    await page.locator("#new-file button").click();
    await page.locator("#editor-path", { hasText: "/workspace/notes/hello.txt" }).waitFor();
    await page.locator("#editor-text").fill("hello from the browser\n");
    await page.locator("#save").click();
    await page.locator("#editor-status", { hasText: "saved" }).waitFor();
    await page.locator('#tree li[data-path="/workspace/notes/hello.txt"]').waitFor();
    await shoot(page, "1-editor");

    // `cat` in each terminal: the output streams in, then the exit and the sync counters.
    for (const backend of ["worker-shell", "worker-javascript", "container-shell"]) {
      await runInTerminal(page, backend, "cat notes/hello.txt");
      const terminal = page.locator(`#terminal-${backend}`);
      await terminal.locator(".output", { hasText: "hello from the browser" }).waitFor();
      await terminal.locator(".output", { hasText: "[exit 0 · completed" }).waitFor();
      await terminal.locator(".counters", { hasText: "sync complete" }).waitFor();
      const pushed = Number(await terminal.locator(".counters").getAttribute("data-pushed"));
      // Only the container has a second copy of the files: the bracket pushed them there first.
      if (backend === "container-shell") expect(pushed).toBeGreaterThan(0);
      else expect(pushed).toBe(0);
    }
    await shoot(page, "2-terminals");

    // The agent: without a configured model it says so, and the demo model's tool call reads the file.
    await page.locator("#chat-input").fill("What is in notes/hello.txt?");
    await page.locator("#chat-form button").click();
    await page.locator("#chat-log .note", { hasText: "no model configured" }).waitFor();
    const result = page.locator('#chat-log details[data-tool="read"] pre.tool-result');
    await result.waitFor();
    expect(await result.textContent()).toContain("hello from the browser");
    await page.locator("#chat-log .assistant", { hasText: "[demo model]" }).waitFor();
    await shoot(page, "3-chat");

    // Stop: wrangler, workerd, the host and every container it started (unshare + computerd) go away,
    // and with them the container's FUSE mount.
    const processes = dev.descendants();
    const mounts = workspaceMounts(processes);
    expect(mounts.size).toBe(1);
    await page.close();
    const stoppedAt = Date.now();
    expect(await dev.stop()).toBe(143);
    await allGone(processes);
    for (const id of mounts) await connectionGone(id, stoppedAt);

    // Start again on the same state: the file is still there, in the tree, the editor and the container.
    dev = await startDev(example, { env: { PERSIST_TO: persistTo } });
    const again = await openConsole(dev);
    await again.locator('#tree li[data-path="/workspace/notes/hello.txt"]').click();
    await again.locator("#editor-path", { hasText: "/workspace/notes/hello.txt" }).waitFor();
    expect(await again.locator("#editor-text").inputValue()).toBe("hello from the browser\n");
    await runInTerminal(again, "container-shell", "cat notes/hello.txt");
    await again.locator("#terminal-container-shell .output", { hasText: /hello from the browser\n\[exit 0/ }).waitFor();
    await shoot(again, "4-restarted");
    expect(await dev.stop()).toBe(143);
  });
});
