#!/usr/bin/env node
/**
 * worker-javascript latency, end to end: one HTTP request into a Worker whose
 * Durable Object runs one execution on the backend and returns its result.
 * Miniflare (programmatic) with SQLite storage and the Worker Loader; 200
 * runs per workload after 10 warm-up runs, reporting p50/p95 in ms.
 *
 *   node packages/computer/bench/worker-javascript.bench.mjs [runs]
 *
 * Needs `@cloudflare/computer` built (npm run build). Not a test.
 */
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { benchWorker, percentile } from "./lib.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const runs = Number(process.argv[2] ?? 200);

const HOST = `
import { DurableObject } from "cloudflare:workers";
import { Workspace } from "@cloudflare/computer";
import { WorkerJavaScriptBackend } from "@cloudflare/computer/backends/worker-javascript";
export class Bench extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.workspace = new Workspace({
      storage: ctx.storage,
      backends: [new WorkerJavaScriptBackend({ loader: env.LOADER, maxRetainedExecutions: 10 })],
    });
  }
  async run(source) {
    await this.workspace.fs.mkdir("/workspace", { recursive: true });
    const result = await (await this.workspace.runtime.exec(source, { encoding: "utf8" })).result();
    if (result.status !== "completed") throw new Error(result.stderr);
    return result.value;
  }
}
export default {
  async fetch(request, env) {
    const source = await request.text();
    const stub = env.BENCH.get(env.BENCH.idFromName("bench"));
    return Response.json(await stub.run(source));
  },
};
`;

const WORKLOADS = {
  "export default () => 1": "export default () => 1",
  "read + write 100 files": `import fs from "node:fs/promises";
    export default async () => {
      await fs.mkdir("bench", { recursive: true });
      for (let i = 0; i < 100; i++) await fs.writeFile("bench/f" + i + ".txt", "content " + i);
      let total = 0;
      for (let i = 0; i < 100; i++) total += (await fs.readFile("bench/f" + i + ".txt", "utf8")).length;
      return total;
    }`,
};

const mf = await benchWorker(HOST, here, { workerLoaders: { LOADER: {} } });
try {
  console.log(`worker-javascript, ${runs} runs each (Miniflare, Node ${process.version})`);
  for (const [name, source] of Object.entries(WORKLOADS)) {
    const once = async () => {
      const response = await mf.dispatchFetch("http://bench/", { method: "POST", body: source });
      if (!response.ok) throw new Error(`${name}: ${response.status} ${await response.text()}`);
      await response.text();
    };
    for (let i = 0; i < 10; i++) await once();
    const times = [];
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      await once();
      times.push(performance.now() - start);
    }
    console.log(
      `  ${name.padEnd(24)} p50 ${percentile(times, 50).toFixed(1)} ms   p95 ${percentile(times, 95).toFixed(1)} ms`,
    );
  }
} finally {
  await mf.dispose();
}
