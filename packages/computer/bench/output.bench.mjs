#!/usr/bin/env node
/**
 * Memory of the Durable Object while container-shell prints a lot: a real
 * computerd under the local container host prints 1 GiB with bounded output
 * (the default: the result keeps 64 KiB, the rest is saved to a workspace
 * file as it flows), and 128 MiB with `output: false` (the whole output held
 * for `result()`, as 0.2.1 did). The workerd process's resident set is
 * sampled every 20 ms during each run. Each case runs in a fresh workerd;
 * the baseline is a fresh workerd running `true` on the same backend, and
 * every peak is given as a ratio to the baseline's.
 *
 *   node packages/computer/bench/output.bench.mjs [bounded MiB] [unbounded MiB]
 *
 * Needs the packages built (npm run build); runs as root (FUSE, namespaces). Not a test.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startHost } from "@cloudflare/computerd/host";
import { benchWorker } from "./lib.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const boundedMiB = Number(process.argv[2] ?? 1024);
const unboundedMiB = Number(process.argv[3] ?? 128);
const MiB = 1024 * 1024;

const HOST = `
import { DurableObject } from "cloudflare:workers";
import { Workspace } from "@cloudflare/computer";
import { CloudflareContainerBackend, localContainer } from "@cloudflare/computer/backends/container";
export class Bench extends DurableObject {
  async run(source, output, name) {
    const workspace = new Workspace({
      storage: this.ctx.storage,
      backends: [new CloudflareContainerBackend({
        container: () => localContainer({ url: this.env.HOST_URL, name, storage: this.ctx.storage }),
        heartbeatIntervalMs: 0,
      })],
      ...(output === false ? { output: false } : {}),
    });
    const started = performance.now();
    const result = await (await workspace.runtime.exec(source)).result();
    const ms = performance.now() - started;
    await workspace.close();
    return { ms, exitCode: result.exitCode, kept: result.stdout.byteLength, truncated: result.truncated ?? null };
  }
}
export default {
  async fetch(request, env) {
    const { source, output, name } = await request.json();
    const stub = env.BENCH.get(env.BENCH.idFromName(name));
    return Response.json(await stub.run(source, output, name));
  },
};
`;

/** Resident set of a process, in bytes. */
function rss(pid) {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("VmRSS:"));
  return Number(line?.split(/\s+/)[1] ?? 0) * 1024;
}

/** The workerd processes Miniflare started (children of this process, or theirs). */
function workerdPids() {
  const pids = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (comm.startsWith("workerd") && (ppid === process.pid || isDescendant(ppid))) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

function isDescendant(pid) {
  for (let at = pid, hops = 0; at > 1 && hops < 8; hops++) {
    if (at === process.pid) return true;
    try {
      const stat = readFileSync(`/proc/${at}/stat`, "utf8");
      at = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    } catch {
      return false;
    }
  }
  return false;
}

/** Runs one case in a fresh workerd with on-disk storage, sampling its resident set. */
async function measure(host, name, source, output) {
  const persist = mkdtempSync(join(tmpdir(), "output-bench-"));
  const mf = await benchWorker(HOST, here, { bindings: { HOST_URL: host.url }, durableObjectsPersist: persist });
  try {
    const pids = workerdPids();
    if (pids.length === 0) throw new Error("found no workerd process to sample");
    const sample = () => pids.reduce((sum, pid) => sum + rss(pid), 0);
    const before = sample();
    let peak = before;
    const timer = setInterval(() => {
      peak = Math.max(peak, sample());
    }, 20);
    const response = await mf.dispatchFetch("http://bench/", {
      method: "POST",
      body: JSON.stringify({ source, output, name }),
    });
    clearInterval(timer);
    peak = Math.max(peak, sample());
    if (!response.ok) throw new Error(await response.text());
    const outcome = await response.json();
    if (outcome.exitCode !== 0) throw new Error(`${name} exited ${outcome.exitCode}`);
    return { name, before, peak, ...outcome };
  } finally {
    await mf.dispose();
    rmSync(persist, { recursive: true, force: true });
  }
}

const print = (mib) => `head -c ${mib * MiB} /dev/zero | tr '\\0' 'x'`;
const host = await startHost({ port: 0, log: () => {} });
const rows = [];
try {
  rows.push(await measure(host, "baseline", "true", undefined));
  rows.push(await measure(host, "bounded", print(boundedMiB), undefined));
  rows.push(await measure(host, "unbounded", print(unboundedMiB), false));
} finally {
  await host.close();
}

const base = rows[0].peak;
const label = {
  baseline: "baseline: `true`",
  bounded: `${boundedMiB} MiB of output, bounded (default limits)`,
  unbounded: `${unboundedMiB} MiB of output, \`output: false\``,
};
console.log("container-shell: workerd resident set while one exec prints, one fresh workerd per row");
console.log("| run | kept in result | peak RSS MiB | peak / baseline | growth during run MiB | exec s |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const row of rows) {
  console.log(
    `| ${label[row.name]} | ${(row.kept / 1024).toFixed(0)} KiB | ${(row.peak / MiB).toFixed(0)} | ${(row.peak / base).toFixed(2)}x | ${((row.peak - row.before) / MiB).toFixed(0)} | ${(row.ms / 1000).toFixed(1)} |`,
  );
}
const bounded = rows[1].truncated?.stdout;
if (bounded)
  console.log(`\nbounded run: ${bounded.status} ${bounded.path ?? bounded.reason}, ${bounded.totalBytes} bytes`);
console.log(`\nreproduce: node packages/computer/bench/output.bench.mjs ${boundedMiB} ${unboundedMiB}`);
