/**
 * Global setup of the `computer-shell:workerd` project, in Node:
 *
 * 1. bundles the sandboxes into dist/sandbox/ (`scripts/build-sandboxes.mjs`,
 *    ~2 s), so the Dynamic Worker runs the sources under test, not a stale bundle;
 * 2. starts a plain HTTP server on 127.0.0.1 for the egress tests
 *    (`localServerUrl`);
 * 3. runs the compared pipelines with the real GNU tools over the corpus
 *    (`gnuPipelines`), recorded here and compared inside workerd.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { corpusFiles, PIPELINES, type PipelineName } from "./corpus.js";

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  execFileSync("node", [join(packageRoot, "scripts", "build-sandboxes.mjs")], { stdio: "inherit" });

  const server = createServer((request, response) => {
    response.writeHead(200, { "content-type": "text/plain" });
    response.end(`local server saw ${request.method} ${request.url}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  project.provide("localServerUrl", `http://127.0.0.1:${port}`);

  const dir = mkdtempSync(join(tmpdir(), "worker-shell-corpus-"));
  for (const { path, text } of corpusFiles()) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const gnu = {} as Record<PipelineName, string>;
  for (const [name, pipeline] of Object.entries(PIPELINES) as Array<[PipelineName, string]>) {
    gnu[name] = execFileSync("bash", ["-c", pipeline], {
      cwd: dir,
      env: { ...process.env, LC_ALL: "C" },
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
  }
  project.provide("gnuPipelines", gnu);

  return async () => {
    rmSync(dir, { recursive: true, force: true });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
}
