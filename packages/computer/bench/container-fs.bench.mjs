#!/usr/bin/env node
/**
 * The fs-bench scenarios through the whole container path: one shell script
 * runs inside a container started for a Durable Object in workerd (computerd
 * under the local container host, its real FUSE mount at /workspace), sent
 * there with `workspace.runtime.exec`, and times each step itself. The same
 * script runs in the same process layout on tmpfs and on the local disk, and
 * the table gives the ratios. Interleaved by round; medians.
 *
 *   node packages/computer/bench/container-fs.bench.mjs [rounds]
 *
 * Needs the packages built (npm run build); runs as root. Not a test.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startHost } from "@cloudflare/computerd/host";
import { benchWorker, percentile } from "./lib.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const rounds = Number(process.argv[2] ?? 3);

/** POSIX sh (dash): prints `<scenario> <ms>` per step, in the directory given as $1. */
const SCRIPT = String.raw`
set -e
cd "$1"
ms() { echo $(( $(date +%s%N) / 1000000 )); }
step() { name="$1"; shift; s=$(ms); "$@" >/dev/null 2>/tmp/bench-step.err || { echo "$name failed: $(tail -c 300 /tmp/bench-step.err)" >&2; exit 1; }; echo "$name $(( $(ms) - s ))"; }
create() { i=0; while [ $i -lt 1000 ]; do echo x > f$i; i=$((i+1)); done; }
statall() { find . -maxdepth 1 -name 'f*' -exec stat {} + ; }
tree() { for a in 0 1 2 3 4 5 6 7 8 9; do for b in 0 1 2 3 4 5 6 7 8 9; do mkdir -p t/$a/$b/0 t/$a/$b/1 t/$a/$b/2 t/$a/$b/3 t/$a/$b/4 t/$a/$b/5 t/$a/$b/6 t/$a/$b/7 t/$a/$b/8 t/$a/$b/9; done; done; }
step "create 1000 small files" create
step "stat 1000 files" statall
step "rm 1000 files" sh -c 'rm -f f*'
step "mkdir tree 10x10x10" tree
step "find over that tree" find t
step "write 64 MiB" sh -c 'head -c 67108864 /dev/zero > big'
step "copy 64 MiB" cp big big2
step "read 64 MiB" cat big2
step "git init + commit 100 files" sh -c 'mkdir -p g && cd g && git init -q && i=0; while [ $i -lt 100 ]; do echo $i > file$i; i=$((i+1)); done; git add -A && git -c user.name=b -c user.email=b@e commit -qm bench'
rm -rf t big big2 g
`;

const HOST = `
import { DurableObject } from "cloudflare:workers";
import { Workspace } from "@cloudflare/computer";
import { CloudflareContainerBackend, localContainer } from "@cloudflare/computer/backends/container";
export class Bench extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.workspace = new Workspace({
      storage: ctx.storage,
      backends: [new CloudflareContainerBackend({
        container: () => localContainer({ url: env.HOST_URL, name: "fsbench", storage: ctx.storage }),
        heartbeatIntervalMs: 0,
      })],
    });
  }
  async run(script) {
    await this.workspace.fs.mkdir("/workspace/bench", { recursive: true });
    await this.workspace.fs.writeFile("/workspace/bench.sh", script);
    const result = await (await this.workspace.runtime.exec("sh /workspace/bench.sh /workspace/bench", {
      encoding: "utf8", timeoutMs: 600000,
    })).result();
    if (result.status !== "completed") throw new Error("exit " + result.exitCode + ": " + result.stdout + result.stderr);
    return result.stdout;
  }
}
export default {
  async fetch(request, env) {
    const stub = env.BENCH.get(env.BENCH.idFromName("fsbench"));
    return new Response(await stub.run(await request.text()));
  },
};
`;

function parse(stdout) {
  return Object.fromEntries(
    stdout
      .trim()
      .split("\n")
      .map((line) => {
        const at = line.lastIndexOf(" ");
        return [line.slice(0, at), Number(line.slice(at + 1))];
      }),
  );
}

function local(dir) {
  const run = spawnSync("sh", ["-c", SCRIPT, "sh", dir], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(run.stderr);
  return parse(run.stdout);
}

const host = await startHost({ port: 0, log: () => {} });
const mf = await benchWorker(HOST, here, { bindings: { HOST_URL: host.url } });
const tmpfs = mkdtempSync("/dev/shm/container-fs-bench-");
const disk = mkdtempSync(join(process.env.BENCH_DISK_DIR ?? "/var/tmp", "container-fs-bench-"));
const samples = { container: [], tmpfs: [], disk: [] };
try {
  for (let round = 0; round <= rounds; round++) {
    const response = await mf.dispatchFetch("http://bench/", { method: "POST", body: SCRIPT });
    if (!response.ok) throw new Error(await response.text());
    const container = parse(await response.text());
    const onTmpfs = local(tmpfs);
    const onDisk = local(disk);
    // Round 0 warms caches and the container; it is not counted.
    if (round === 0) continue;
    samples.container.push(container);
    samples.tmpfs.push(onTmpfs);
    samples.disk.push(onDisk);
  }
} finally {
  await mf.dispose();
  await host.close();
  rmSync(tmpfs, { recursive: true, force: true });
  rmSync(disk, { recursive: true, force: true });
}

const median = (where, name) =>
  percentile(
    samples[where].map((sample) => sample[name]),
    50,
  );
console.log(`fs-bench through the container path (DO in workerd → local container host → computerd FUSE),`);
console.log(`${rounds} rounds after 1 warm-up, interleaved; medians in ms, timed inside each shell\n`);
console.log("| scenario | container ms | tmpfs ms | disk ms | container/tmpfs | container/disk |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const name of Object.keys(samples.container[0] ?? {})) {
  const [c, t, d] = [median("container", name), median("tmpfs", name), median("disk", name)];
  const ratio = (a, b) => (b > 0 ? `${(a / b).toFixed(2)}x` : "n/a");
  console.log(`| ${name} | ${c} | ${t} | ${d} | ${ratio(c, t)} | ${ratio(c, d)} |`);
}
console.log(`\nreproduce: node packages/computer/bench/container-fs.bench.mjs ${rounds}`);
