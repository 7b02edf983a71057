// Demo of @cloudflare/dofs: a Durable Object's SQLite storage as a /workspace
// filesystem, surviving a restart. Starts workerd through Miniflare (no network,
// no Cloudflare account), persists to .cache/demo, and prints every step.
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";

const root = fileURLToPath(new URL("..", import.meta.url));
const persistDir = join(root, ".cache", "demo", "durable-objects");

if (!existsSync(join(root, "packages/dofs/dist/index.js"))) {
  console.error("packages/dofs/dist is missing: run `npm run setup` (or `npm start`) first.");
  process.exit(1);
}

const bundleDemoWorker = async () => {
  const result = await build({
    entryPoints: [join(root, "scripts/demo.worker.js")],
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    conditions: ["workerd", "worker", "import"],
    external: ["cloudflare:*", "node:*"],
    logLevel: "warning",
  });
  return result.outputFiles[0]?.text ?? "";
};

const startWorkerd = async () => {
  // Miniflare 5 takes a config-shaped form; these are the v4 options it converts.
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      modules: true,
      // Miniflare 5 no longer follows a script's imports (modulesRules is gone): bundle it as wrangler would.
      script: await bundleDemoWorker(),
      compatibilityDate: "2026-11-17", // not newer than the pinned workerd
      compatibilityFlags: ["nodejs_compat"],
      durableObjects: { COMPUTER: { className: "DemoComputer", useSQLite: true } },
      resourcePersistencePath: persistDir,
      cf: false, // no download of request.cf data
      host: "127.0.0.1",
      port: 0,
    }),
  );
  await mf.ready;
  return mf;
};

const call = async (mf, method, ...args) => {
  const response = await mf.dispatchFetch(`http://demo.local/${method}`, {
    method: "POST",
    body: JSON.stringify(args),
  });
  const body = await response.json();
  if (!response.ok) throw new Error(`${method}: ${body.error}`);
  return body.value;
};

const t0 = performance.now();
let stepNumber = 0;
const step = (title) =>
  console.log(`\n\x1b[1m${++stepNumber}. ${title}\x1b[0m  \x1b[2m+${Math.round(performance.now() - t0)} ms\x1b[0m`);
const show = (line) => console.log(`   ${line}`);

const files = {
  "/workspace/README.md": "# notes\nA workspace that lives in a Durable Object.\n",
  "/workspace/src/hello.ts": 'export const hello = (name: string): string => "hello, " + name;\n',
  "/workspace/src/durable.ts": "// every write lands in the object's SQLite\nexport const durable = true;\n",
  "/workspace/docs/todo.txt": "- write files\n- grep for durable things\n- restart the object\n",
};

rmSync(join(root, ".cache", "demo"), { recursive: true, force: true });

step("Start workerd (Miniflare) with a SQLite-backed Durable Object");
let mf = await startWorkerd();
const firstInstance = await call(mf, "instanceId");
show(`Durable Object "demo" is up, instance ${firstInstance}`);

step("Write files under /workspace");
for (const { path, size } of await call(mf, "writeFiles", files)) show(`wrote ${path} (${size} B)`);

step("Read one back");
for (const line of (await call(mf, "readText", "/workspace/src/hello.ts")).trimEnd().split("\n")) show(`| ${line}`);

step('grep "durable" /workspace');
for (const match of await call(mf, "grep", "durable", "/workspace")) show(`${match.path}:${match.line}: ${match.text}`);

step("find /workspace");
for (const entry of await call(mf, "find", "/workspace")) show(`${entry.type.padEnd(4)} ${entry.path}`);

step("Restart: stop workerd, start a new one on the same persistence directory");
await mf.dispose();
show("workerd stopped; on disk:");
const listFiles = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? listFiles(join(dir, d.name)) : [join(dir, d.name)],
  );
// The object's own database (plus its WAL); Miniflare keeps a metadata.sqlite beside it.
const objectFiles = listFiles(persistDir).filter((file) => /[0-9a-f]{64}\.sqlite(-wal)?$/.test(file));
for (const file of objectFiles) show(`  ${relative(root, file)} (${statSync(file).size} B)`);
mf = await startWorkerd();
const secondInstance = await call(mf, "instanceId");
show(`Durable Object "demo" is up again, instance ${secondInstance} (was ${firstInstance})`);

step("Read every file again");
let survived = 0;
for (const [path, text] of Object.entries(files)) {
  const now = await call(mf, "readText", path);
  const same = now === text;
  if (same) survived++;
  show(`${same ? "✓" : "✗"} ${path}`);
}
await mf.dispose();

const ok = survived === Object.keys(files).length && secondInstance !== firstInstance;
console.log(
  ok
    ? `\n\x1b[1;32mAll ${survived} files survived the restart.\x1b[0m Done in ${Math.round(performance.now() - t0)} ms.`
    : `\n\x1b[1;31mOnly ${survived}/${Object.keys(files).length} files survived the restart.\x1b[0m`,
);
process.exitCode = ok ? 0 : 1;
