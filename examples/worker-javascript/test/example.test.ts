/**
 * Drives the example through its HTTP routes: the Worker is bundled the way
 * wrangler would (esbuild), then served by Miniflare with a SQLite Durable
 * Object and the Worker Loader. Needs `@cloudflare/computer` built (dist/),
 * like any consumer of the package; `npm test` builds it first.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { useExampleWorker } from "../../test-support/worker.js";

const example = join(dirname(fileURLToPath(import.meta.url)), "..");
const { request, exec } = useExampleWorker(example, { workerLoaders: { LOADER: {} } });

describe("examples/worker-javascript", () => {
  it("writes and reads files under /workspace, and refuses paths outside it", async () => {
    const put = await request("/c/alice/file/workspace/notes/a.txt", { method: "PUT", body: "hello" });
    expect(put.status).toBe(204);
    const get = await request("/c/alice/file/workspace/notes/a.txt");
    expect(get.status).toBe(200);
    expect(await get.text()).toBe("hello");
    expect((await request("/c/alice/file/workspace/missing.txt")).status).toBe(404);
    expect((await request("/c/bob/file/workspace/notes/a.txt")).status).toBe(404);
    expect((await request("/c/alice/file/etc/passwd")).status).toBe(400);
    expect((await request("/c/alice/file/workspace/%2e%2e/etc", { method: "PUT", body: "x" })).status).toBe(400);
  });

  it("runs a module with input, env, stdin and a cwd, against the same files", async () => {
    await request("/c/carol/file/workspace/lib/double.js", { method: "PUT", body: "export default (n) => n * 2;" });
    const source = `import double from "./double.js";
      import { readFile, writeFile } from "node:fs/promises";
      export default async (input) => {
        let stdin = "";
        for await (const chunk of process.stdin) stdin += chunk;
        console.log("hello from", process.env.WHO);
        await writeFile("out.txt", stdin.toUpperCase());
        return { doubled: double(input.n), cwd: process.cwd(), wrote: await readFile("out.txt", "utf8") };
      }`;
    const response = await exec("carol", {
      source,
      input: { n: 21 },
      cwd: "/workspace/lib",
      env: { WHO: "carol" },
      stdin: "piped",
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      status: "completed",
      exitCode: 0,
      stdout: "hello from carol\n",
      stderr: "",
      value: { doubled: 42, cwd: "/workspace/lib", wrote: "PIPED" },
    });
    expect(await (await request("/c/carol/file/workspace/lib/out.txt")).text()).toBe("PIPED");
  });

  it("reports a thrown error as failed and a refused import as 400", async () => {
    const failed = await exec("dave", { source: 'export default () => { throw new Error("nope") }' });
    expect(await failed.json()).toMatchObject({
      status: "failed",
      exitCode: 1,
      stderr: expect.stringContaining("nope"),
    });
    const refused = await exec("dave", { source: 'import x from "lodash"; export default x' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: "EMODULE" });
    expect((await exec("dave", { input: 1 })).status).toBe(400);
  });
});
