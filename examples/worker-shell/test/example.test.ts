/**
 * Drives the example through its HTTP routes: the Worker is bundled the way
 * wrangler would (esbuild), then served by Miniflare with a SQLite Durable
 * Object and the Worker Loader the shell's Dynamic Worker comes from. Needs
 * `@cloudflare/computer` built (dist/, with the shell's command groups), like
 * any consumer of the package; `npm test` builds it first.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { useExampleWorker } from "../../test-support/worker.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
const { request, exec } = useExampleWorker(example, { workerLoaders: { LOADER: {} } });

describe("examples/worker-shell", () => {
  it("writes and reads files under /workspace, and refuses paths outside it", async () => {
    const put = await request("/c/alice/file/workspace/notes/a.txt", { method: "PUT", body: "hello" });
    expect(put.status).toBe(204);
    const get = await request("/c/alice/file/workspace/notes/a.txt");
    expect(get.status).toBe(200);
    expect(await get.text()).toBe("hello");
    const missing = await request("/c/alice/file/workspace/missing.txt");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: "ENOENT: no such file or directory, open '/workspace/missing.txt'",
    });
    // Another name is another Durable Object with its own files.
    expect((await request("/c/bob/file/workspace/notes/a.txt")).status).toBe(404);
    expect((await request("/c/alice/file/etc/passwd")).status).toBe(400);
    expect((await request("/c/alice/file/etc/passwd", { method: "PUT", body: "x" })).status).toBe(400);
    expect((await request("/c/alice/file/workspace/%2e%2e/etc", { method: "PUT", body: "x" })).status).toBe(400);
    expect((await request("/c/alice/file/workspace/a/%2E%2E/%2E%2E/etc/passwd")).status).toBe(400);
  });

  it("runs cat on a file written over HTTP, as command and as argv", async () => {
    await request("/c/carol/file/workspace/in.txt", { method: "PUT", body: "line one\nline two\n" });
    const response = await exec("carol", { command: "cat in.txt" });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      status: "completed",
      exitCode: 0,
      stdout: "line one\nline two\n",
      stderr: "",
      // No second copy of the files: nothing to push or pull.
      pushed: 0,
      pulled: 0,
      encoding: "utf8",
    });
    // argv words are quoted: the space and the `$` reach cat as one literal file name.
    await request("/c/carol/file/workspace/odd%20%24name.txt", { method: "PUT", body: "quoted" });
    const argv = await exec("carol", { argv: ["cat", "odd $name.txt"] });
    expect(await argv.json()).toMatchObject({ status: "completed", exitCode: 0, stdout: "quoted" });
  });

  it("runs a jq pipeline over a JSON file", async () => {
    const people = [
      { name: "ada", team: "core", age: 36 },
      { name: "grace", team: "tools", age: 45 },
      { name: "alan", team: "core", age: 41 },
    ];
    await request("/c/dave/file/workspace/data/people.json", { method: "PUT", body: JSON.stringify(people) });
    const response = await exec("dave", {
      command: `jq -r '.[] | select(.team == "core") | .name' people.json | sort -r | tr a-z A-Z`,
      cwd: "/workspace/data",
    });
    expect(await response.json()).toMatchObject({ status: "completed", exitCode: 0, stdout: "ALAN\nADA\n" });
    const sum = await exec("dave", { argv: ["jq", "map(.age) | add", "data/people.json"] });
    expect(await sum.json()).toMatchObject({ exitCode: 0, stdout: "122\n" });
  });

  it("serves a file a command wrote", async () => {
    const response = await exec("erin", {
      command: "mkdir -p out && printf 'made by %s\\n' shell > out/report.txt && echo done",
    });
    expect(await response.json()).toMatchObject({ status: "completed", exitCode: 0, stdout: "done\n" });
    const get = await request("/c/erin/file/workspace/out/report.txt");
    expect(get.status).toBe(200);
    expect(await get.text()).toBe("made by shell\n");
  });

  it("reports a failing command as a 200 with its exit code, and base64 output on request", async () => {
    const failed = await exec("frank", { command: "cat nope.txt" });
    expect(failed.status).toBe(200);
    expect(await failed.json()).toMatchObject({
      status: "failed",
      exitCode: 1,
      stderr: expect.stringContaining("nope.txt"),
    });
    const missing = await exec("frank", { command: "python3 -c 1" });
    expect(await missing.json()).toMatchObject({ exitCode: 127 });
    const encoded = await exec("frank", { command: "printf 'a\\tb'", encoding: "base64" });
    expect(await encoded.json()).toMatchObject({ exitCode: 0, stdout: btoa("a\tb"), encoding: "base64" });
  });

  it("refuses malformed exec bodies with 400", async () => {
    const bad = [
      {},
      { command: "" },
      { command: "true", argv: ["true"] },
      { argv: [] },
      { argv: ["echo", 1] },
      { command: "true", cwd: 7 },
      { command: "true", encoding: "latin1" },
    ];
    for (const body of bad) expect((await exec("gina", body)).status, JSON.stringify(body)).toBe(400);
    const notJson = await request("/c/gina/exec", { method: "POST", body: "{" });
    expect(notJson.status).toBe(400);
    // The runtime refuses a relative cwd before anything runs.
    const relative = await exec("gina", { command: "pwd", cwd: "workspace" });
    expect(relative.status).toBe(400);
    expect(await relative.json()).toMatchObject({ error: expect.stringContaining("cwd must be an absolute path") });
    expect((await request("/c/gina/exec")).status).toBe(405);
    expect((await request("/elsewhere")).status).toBe(404);
  });
});
