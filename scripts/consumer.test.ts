/**
 * A new user's first hour, from the packed tarballs (docs/packaging.md):
 * outside the repository, plain npm installs `@cloudflare/computer` (and, for
 * the local container host, `@cloudflare/computerd` and `@cloudflare/dofs`);
 * the README's quick start is written as printed, type-checked with `tsc`,
 * served by `wrangler dev` and curled, and the output must be the one the
 * README shows. Then the container variant of docs/container.md runs one
 * `container-shell` command through `computerd host` started from its
 * installed tarball. Needs root and /dev/fuse (CI runs as root) and the npm
 * registry (the npm cache keeps repeat runs short).
 *
 * Install time and node_modules size are printed, not asserted: they are
 * benchmark figures (docs/packaging.md has the measured ones).
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { block, readSection } from "./consumer/docs.js";
import { consumerEnv, freePort, run, type Service, startService } from "./consumer/processes.js";
import { FLOOR_NODE, floorNode } from "./lib/floor-node.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const PNPM = ["-y", "pnpm@12.4.2"];
const QUICK_START = readSection(join(root, "README.md"), "## Quick start: a workspace in your own Worker");
const CONTAINER = readSection(join(root, "docs/container.md"), "## Your own Worker on the local container host");
/** The dev tools a consumer installs, at the versions the repository pins (root package.json). */
const PINNED: Record<string, string> = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).devDependencies;

const work = mkdtempSync(join(tmpdir(), "computer-consumer-"));
const worker = join(work, "worker");
const host = join(work, "host");
const tarballs = join(work, "tarballs");
const services: Service[] = [];

/**
 * node-gyp cannot download Node's headers here (no internet but the npm registry), so native addons build
 * against the headers next to the Node that runs this test (scripts/lib/node.sh does the same for setup):
 * the consumer's npm, a child of this Node through PATH, then compiles for the ABI that runs the code.
 */
function npmEnv(): NodeJS.ProcessEnv {
  const prefix = dirname(dirname(realpathSync(process.execPath)));
  const nodedir = existsSync(join(prefix, "include/node/common.gypi")) ? prefix : undefined;
  return consumerEnv(nodedir ? { npm_config_nodedir: nodedir } : {});
}

function tarball(name: string): string {
  const file = readdirSync(tarballs).find((entry) => entry.startsWith(`${name.replace("@", "").replace("/", "-")}-`));
  if (file === undefined) throw new Error(`no tarball for ${name} in ${tarballs}`);
  return join(tarballs, file);
}

/** Bytes under `dir` in MB; `nested: false` leaves out its node_modules (packages counted on their own). */
function sizeMb(dir: string, nested = true): number {
  let bytes = 0;
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory() && (nested || entry.name !== "node_modules")) walk(full);
      else if (entry.isFile()) bytes += statSync(full).size;
    }
  };
  walk(dir);
  return Math.round((bytes / 1024 / 1024) * 10) / 10;
}

function emptyProject(dir: string): void {
  mkdirSync(join(dir, "src"), { recursive: true });
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ name: "consumer", private: true, type: "module" })}\n`);
}

/** `npm install` of one README line: our packages from their tarballs, the rest at the repository's pins. */
async function npmInstall(dir: string, names: string[], dev: boolean): Promise<number> {
  const specs = names.map((name) => {
    if (name.startsWith("@cloudflare/computer") || name === "@cloudflare/dofs") return tarball(name);
    const version = PINNED[name];
    if (version === undefined) throw new Error(`the docs install ${name}, which the root package.json does not pin`);
    return `${name}@${version}`;
  });
  const { ms } = await run(
    "npm",
    ["install", "--no-audit", "--no-fund", ...(dev ? ["-D"] : []), ...specs],
    dir,
    npmEnv(),
  );
  return ms;
}

/** Every package @cloudflare/computer brings (dependencies, optional ones, required peers), as installed dirs. */
function computerClosure(): Map<string, string> {
  const found = new Map<string, string>();
  const locate = (name: string, from: string): string | undefined => {
    for (let dir = from; dir.startsWith(worker); dir = dirname(dir)) {
      const candidate = join(dir, "node_modules", name);
      if (existsSync(join(candidate, "package.json"))) return candidate;
    }
    return undefined;
  };
  const visit = (name: string, from: string) => {
    const dir = locate(name, from);
    if (dir === undefined || found.has(dir)) return;
    found.set(dir, name);
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const optionalPeers = new Set(
      Object.entries(manifest.peerDependenciesMeta ?? {})
        .filter(([, meta]) => (meta as { optional?: boolean }).optional)
        .map(([peer]) => peer),
    );
    const names = [
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.optionalDependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}).filter((peer) => !optionalPeers.has(peer)),
    ];
    for (const child of names) visit(child, dir);
  };
  visit("@cloudflare/computer", worker);
  return found;
}

async function wranglerDev(vars: Record<string, string> = {}): Promise<{ service: Service; url: string }> {
  const port = await freePort();
  const inspector = await freePort();
  const args = ["dev", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspector)];
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
  const service = startService(join(worker, "node_modules/.bin/wrangler"), args, worker, consumerEnv());
  services.push(service);
  await service.waitFor(/Ready on http:\/\/127\.0\.0\.1:\d+/, 60_000);
  return { service, url: `http://127.0.0.1:${port}` };
}

async function curl(url: string): Promise<string> {
  const response = await fetch(url, { signal: AbortSignal.timeout(90_000) });
  return await response.text();
}

const figures: string[] = [];

beforeAll(async () => {
  mkdirSync(tarballs);
  for (const dir of ["computer", "computerd", "dofs"]) {
    const pkg = join(root, "packages", dir);
    if (!existsSync(join(pkg, "dist"))) throw new Error(`packages/${dir} has no dist/: run npm run build first`);
    await run("npx", [...PNPM, "pack", "--pack-destination", tarballs], pkg, consumerEnv());
  }
  emptyProject(worker);
  emptyProject(host);
  // The Worker's project and the host's install side by side: the host builds native addons.
  const installWorker = (async () => {
    let ms = 0;
    for (const { dev, names } of QUICK_START.installs) ms += await npmInstall(worker, names, dev);
    figures.push(
      `worker project: npm install ${(ms / 1000).toFixed(1)} s, node_modules ${sizeMb(join(worker, "node_modules"))} MB`,
    );
  })();
  const installHost = (async () => {
    const ms = await npmInstall(host, ["@cloudflare/computerd", "@cloudflare/dofs"], false);
    figures.push(
      `host project: npm install ${(ms / 1000).toFixed(1)} s, node_modules ${sizeMb(join(host, "node_modules"))} MB`,
    );
  })();
  await Promise.all([installWorker, installHost]);
}, 420_000);

afterAll(async () => {
  await Promise.all(services.map((service) => service.stop()));
  process.stdout.write(`consumer install figures (${work}):\n  ${figures.join("\n  ")}\n`);
  rmSync(work, { recursive: true, force: true });
}, 60_000);

it("@cloudflare/computer brings no native module, no workspace sibling and no unused dependency", () => {
  const closure = computerClosure();
  const native = [...closure].filter(([dir]) => {
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const scripts = manifest.scripts ?? {};
    return existsSync(join(dir, "binding.gyp")) || manifest.gypfile === true || scripts.install || scripts.postinstall;
  });
  expect(native.map(([, name]) => name)).toEqual([]);
  const names = [...closure.values()];
  expect(names).toContain("capnweb");
  for (const unwanted of ["@cloudflare/dofs", "@cloudflare/computer-rpc", "@cloudflare/containers", "better-sqlite3"]) {
    expect(names).not.toContain(unwanted);
  }
  const mb = [...closure.keys()].reduce((sum, dir) => sum + sizeMb(dir, false), 0);
  figures.push(`@cloudflare/computer and its dependencies: ${closure.size} packages, ${mb.toFixed(1)} MB`);
});

it("the README quick start type-checks, serves and prints what the README shows", async () => {
  writeFileSync(join(worker, "wrangler.jsonc"), block(QUICK_START, "jsonc"));
  writeFileSync(join(worker, "tsconfig.json"), block(QUICK_START, "json"));
  writeFileSync(join(worker, "src/index.ts"), block(QUICK_START, "ts"));
  await run(join(worker, "node_modules/.bin/tsc"), ["-p", "."], worker, consumerEnv());
  const dev = await wranglerDev();
  expect(await curl(`${dev.url}${QUICK_START.curl.path}`)).toBe(QUICK_START.curl.expected);
  await dev.service.stop();
}, 180_000);

it(`on Node ${FLOOR_NODE}, the floor the README names, the quick start type-checks and deploys (--dry-run)`, async () => {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  expect(readme).toContain(`Node ${FLOOR_NODE} or later`);
  const node = floorNode();
  // That Node first on PATH too, for whatever wrangler and tsc start themselves.
  const env = consumerEnv({ PATH: `${dirname(node)}:${process.env.PATH ?? ""}` });
  writeFileSync(join(worker, "wrangler.jsonc"), block(QUICK_START, "jsonc"));
  writeFileSync(join(worker, "tsconfig.json"), block(QUICK_START, "json"));
  writeFileSync(join(worker, "src/index.ts"), block(QUICK_START, "ts"));
  const version = await run(node, ["--version"], worker, env);
  expect(version.output.trim()).toBe(`v${FLOOR_NODE}`);
  await run(node, [join(worker, "node_modules/typescript/bin/tsc"), "-p", "."], worker, env);
  const wrangler = join(worker, "node_modules/wrangler/bin/wrangler.js");
  const { output } = await run(node, [wrangler, "deploy", "--dry-run", "--outdir", join(work, "dry-run")], worker, env);
  expect(output).toContain("env.COMPUTER (Computer)");
  expect(output).toContain("env.LOADER");
  expect(output).toContain("--dry-run: exiting now.");
}, 300_000);

it("the container variant runs container-shell through computerd host from its tarball", async () => {
  // As root, with /dev/fuse: what the host's containers need (namespaces, FUSE).
  expect(process.getuid?.()).toBe(0);
  expect(existsSync("/dev/fuse")).toBe(true);
  writeFileSync(join(worker, "src/index.ts"), block(CONTAINER, "ts"));
  await run(join(worker, "node_modules/.bin/tsc"), ["-p", "."], worker, consumerEnv());
  const computerd = startService(
    join(host, "node_modules/.bin/computerd"),
    ["host", "--port", String(await freePort())],
    host,
    consumerEnv(),
  );
  services.push(computerd);
  const [, hostUrl = ""] = await computerd.waitFor(/computerd host listening url=(\S+)/, 30_000);
  const dev = await wranglerDev({ COMPUTER_CONTAINER_HOST: hostUrl });
  expect(await curl(`${dev.url}${CONTAINER.curl.path}`)).toBe(CONTAINER.curl.expected);
  // computerd mounts with its own kernel driver, the default, whose addon the tarball's install script built
  // (npm's fuse-napi, without our patch, would not do).
  expect(existsSync(join(host, "node_modules/@cloudflare/computerd/native/build/fuse_dev.node"))).toBe(true);
  expect(computerd.output()).toMatch(/mounted \/workspace \(kernel, protocol/);
  await dev.service.stop();
}, 180_000);

it("@cloudflare/dofs from its tarball runs on Node with the better-sqlite3 it asks for as a peer", async () => {
  const script = [
    'import { WorkspaceFilesystem } from "@cloudflare/dofs";',
    'import { openNodeDatabase } from "@cloudflare/dofs/node";',
    "const fs = new WorkspaceFilesystem(openNodeDatabase());",
    'await fs.writeFile("/a.txt", "dofs\\n");',
    'process.stdout.write(await fs.readFile("/a.txt", "utf8"));',
  ].join("\n");
  writeFileSync(join(host, "check.mjs"), script);
  const { output } = await run("node", ["check.mjs"], host, consumerEnv());
  expect(output).toBe("dofs\n");
});

it("@cloudflare/computerd's exports load from its tarball", async () => {
  const script = [
    'const daemon = await import("@cloudflare/computerd");',
    'const { startHost } = await import("@cloudflare/computerd/host");',
    'const { runWranglerDev } = await import("@cloudflare/computerd/dev");',
    "process.stdout.write([daemon.startDaemon, daemon.readConfig, startHost, runWranglerDev].map((f) => typeof f).join());",
  ].join("\n");
  writeFileSync(join(host, "exports.mjs"), script);
  const { output } = await run("node", ["exports.mjs"], host, consumerEnv());
  expect(output).toBe("function,function,function,function");
});
