/**
 * Cold start of a container: from the local container host's `start` to the
 * exit of the first command run in it (`true`, over computerd's RPC), for
 * computerd as a process of the host (its own dist/ on the host's Node and
 * root: the local host's default) and for computerd booted from the
 * workspace image (containers/rootfs.sh: chrooted into the image's root
 * filesystem, its own Node and bundle). Both in their own mount and pid
 * namespaces with a real FUSE mount; the rounds alternate, so both see the
 * same machine. Reports medians, the image's ratio to the host's process,
 * and the image's size.
 *
 *   node packages/computerd/bench/container-start.mjs [--rounds 7]
 *
 * Needs root and /dev/fuse, and the image (built here through rootfs.sh, cached).
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createWorkspaceClient } from "@cloudflare/computer-rpc/client";
import { ContainerSet } from "../dist/local-host/containers.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const roundsAt = process.argv.indexOf("--rounds");
const rounds = roundsAt === -1 ? 7 : Number(process.argv[roundsAt + 1]);

const rootfs = execFileSync("bash", ["containers/rootfs.sh"], {
  cwd: root,
  encoding: "utf8",
  stdio: ["ignore", "pipe", "inherit"],
})
  .trim()
  .split("\n")
  .at(-1);
const baseEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/root", LANG: "C.UTF-8" };
const kinds = {
  "host process": new ContainerSet({ entry: fileURLToPath(new URL("../dist/cli/main.js", import.meta.url)), baseEnv }),
  image: new ContainerSet({ entry: "", rootfs, baseEnv }),
};

/** ms from start() to listening, and to the first command's exit. */
async function coldStart(set, name) {
  const started = performance.now();
  const container = await set.start(name, { env: { FUSE_MOUNT: "fuse" }, enableInternet: false, runtimeId: name });
  const listening = performance.now() - started;
  const client = await createWorkspaceClient({ url: `http://127.0.0.1:${container.port}/api` });
  let code;
  for await (const event of (await client.shell.exec({ source: "true" })).events)
    if (event.name === "exit") code = event.code;
  const firstExit = performance.now() - started;
  await client.close();
  await set.stop(name);
  if (code !== 0) throw new Error(`${name}: the first command exited ${code}`);
  return { listening, firstExit };
}

const samples = Object.fromEntries(Object.keys(kinds).map((kind) => [kind, { listening: [], firstExit: [] }]));
// One unmeasured round each: the page cache holds both Nodes and bundles from here on, as on a warm host.
for (const [kind, set] of Object.entries(kinds)) await coldStart(set, `warm-${kind.replace(" ", "-")}`);
for (let round = 0; round < rounds; round++) {
  for (const [kind, set] of Object.entries(kinds)) {
    const result = await coldStart(set, `bench-${kind.replace(" ", "-")}-${round}`);
    samples[kind].listening.push(result.listening);
    samples[kind].firstExit.push(result.firstExit);
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const base = samples["host process"];
console.log(`container cold start, median of ${rounds} (ms; ratio to the host's computerd process)`);
for (const [kind, { listening, firstExit }] of Object.entries(samples)) {
  const ratio = (value, of) => (median(value) / median(of)).toFixed(2);
  console.log(
    `  ${kind.padEnd(12)} listening ${median(listening).toFixed(0).padStart(5)} (${ratio(listening, base.listening)}x)` +
      `   first command's exit ${median(firstExit).toFixed(0).padStart(5)} (${ratio(firstExit, base.firstExit)}x)`,
  );
}
const size = (path) => execFileSync("du", ["-sh", path], { encoding: "utf8" }).split("\t")[0];
console.log(
  `image: ${size(rootfs)} root filesystem, of which /opt/computerd ${size(`${rootfs}/opt/computerd`)} (${rootfs})`,
);
