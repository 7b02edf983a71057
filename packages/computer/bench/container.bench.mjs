#!/usr/bin/env node
/**
 * container-shell latency, end to end: a Durable Object in workerd
 * (Miniflare) with a Workspace on the container backend, computerd as a real
 * process with a real FUSE mount under the local container host. Each run is
 * one `exec` including the push before and the pull after; timings are taken
 * inside the Durable Object. Two baselines measured in the same run put the
 * numbers in proportion: spawning `/bin/sh -c true` from Node, and the same
 * exec sent straight to computerd over capnweb from Node (no DO, no sync).
 * A second object runs with egress `http-gateway`: the same exec (commands
 * enter the gateway's network namespace instead of a fresh one), and a curl
 * whose request travels the gateway path (proxy port → computerd's tunnel →
 * the host's proxy → the egress channel → the object's gateway) and back.
 *
 *   node packages/computer/bench/container.bench.mjs [runs]
 *
 * Needs the packages built (npm run build); runs as root (FUSE, namespaces). Not a test.
 */
import { spawnSync } from "node:child_process";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createWorkspaceClient } from "@cloudflare/computer-rpc/client";
import { startHost } from "@cloudflare/computerd/host";
import { benchWorker, p50p95 as stats } from "./lib.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const runs = Number(process.argv[2] ?? 200);
const WARMUP = 10;

const HOST = `
import { DurableObject } from "cloudflare:workers";
import { Workspace } from "@cloudflare/computer";
import { CloudflareContainerBackend, localContainer } from "@cloudflare/computer/backends/container";
const gateway = { fetch: async (request) => new Response("gateway " + request.url) };
export class Bench extends DurableObject {
  workspace(egress) {
    // One object per egress mode (idFromName), each with its own container named after it.
    this.ws ??= new Workspace({
      storage: this.ctx.storage,
      backends: [new CloudflareContainerBackend({
        container: () => localContainer({ url: this.env.HOST_URL, name: "bench-" + egress, storage: this.ctx.storage }),
        heartbeatIntervalMs: 0,
        egress: egress === "http-gateway" ? { mode: egress, gateway } : { mode: egress },
      })],
    });
    return this.ws;
  }
  async run(source, runs, egress) {
    const workspace = this.workspace(egress);
    const times = [];
    let pushed = 0, pulled = 0;
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      const result = await (await workspace.runtime.exec(source, { encoding: "utf8" })).result();
      times.push(performance.now() - started);
      if (result.status !== "completed") throw new Error(result.stderr);
      pushed += result.pushed;
      pulled += result.pulled;
    }
    return { times, pushed, pulled };
  }
}
export default {
  async fetch(request, env) {
    const { source, runs, egress } = await request.json();
    const stub = env.BENCH.get(env.BENCH.idFromName(egress));
    return Response.json(await stub.run(source, runs, egress));
  },
};
`;

/** [row label, egress mode, shell source] */
const WORKLOADS = [
  ["`true`", "none", "true"],
  [
    "`write 100 files`",
    "none",
    "mkdir -p out && i=0; while [ $i -lt 100 ]; do echo $i$RANDOM > out/f$i; i=$((i+1)); done",
  ],
  ["`true`, egress http-gateway", "http-gateway", "true"],
  ["`curl http://example.test/`, egress http-gateway", "http-gateway", "curl -sS http://example.test/ >/dev/null"],
];

const host = await startHost({ port: 0, log: () => {} });
const mf = await benchWorker(HOST, here, { bindings: { HOST_URL: host.url } });

const rows = [];
try {
  // Baseline 1: the process spawn every exec pays, without any daemon.
  const spawnTimes = [];
  for (let i = 0; i < runs + WARMUP; i++) {
    const started = performance.now();
    spawnSync("/bin/sh", ["-c", "true"]);
    if (i >= WARMUP) spawnTimes.push(performance.now() - started);
  }
  rows.push(["baseline: spawn /bin/sh -c true (Node)", stats(spawnTimes)]);

  for (const [name, egress, source] of WORKLOADS) {
    const response = await mf.dispatchFetch("http://bench/", {
      method: "POST",
      body: JSON.stringify({ source, runs: runs + WARMUP, egress }),
    });
    if (!response.ok) throw new Error(await response.text());
    const { times, pushed, pulled } = await response.json();
    rows.push([`DO exec ${name} (push + run + pull)`, stats(times.slice(WARMUP)), { pushed, pulled }]);
  }

  // Baseline 2: the same computerd, reached directly from Node over capnweb: the daemon's share of an exec.
  const container = host.containers.get("bench-none");
  const client = await createWorkspaceClient({
    url: `ws://127.0.0.1:${container.port}/api`,
    headers: { authorization: `Bearer ${container.secret}` },
  });
  const direct = [];
  for (let i = 0; i < runs + WARMUP; i++) {
    const started = performance.now();
    const handle = await client.shell.exec({ source: "true", id: `direct-${i}` });
    for await (const _ of handle.events);
    if (i >= WARMUP) direct.push(performance.now() - started);
  }
  await client.close();
  rows.splice(1, 0, ["baseline: computerd exec `true` from Node (no DO, no sync)", stats(direct)]);
} finally {
  await mf.dispose();
  await host.close();
}

const base = rows[0][1].p50;
console.log(`container-shell exec round trip, ${runs} runs after ${WARMUP} warm-up, ms`);
console.log("| path | p50 | p95 | p50 / spawn |");
console.log("|---|---:|---:|---:|");
for (const [name, { p50, p95 }] of rows) {
  console.log(`| ${name} | ${p50.toFixed(2)} | ${p95.toFixed(2)} | ${(p50 / base).toFixed(1)}x |`);
}
console.log(`\nreproduce: node packages/computer/bench/container.bench.mjs ${runs}`);
