#!/usr/bin/env node
/**
 * Bundles the code that runs inside a worker-shell Dynamic Worker
 * (`src/backends/worker-shell/shell.worker.ts`, with just-bash) into module
 * strings, split into command groups, and writes one TypeScript module per
 * group to `src/backends/worker-shell/groups/<group>.ts` (generated, not
 * committed: ~2 MB of bundled code).
 *
 * esbuild splits the bundle at just-bash's lazy `import()` of each command.
 * `core` is the entry `shell.js` and everything reachable from it without
 * passing through an optional command's chunk; each optional group is what
 * its commands reach beyond core. Chunks only unavailable commands reach
 * (python, js-exec, sqlite3) or just-bash's coverage instrumentation are
 * left out.
 *
 * Run by `npm run build` before tsc, and by the worker-shell test setup when
 * the groups are missing. `--check` exits 1 when a group file is stale.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const dir = join(root, "src", "backends", "worker-shell");
const outDir = join(dir, "groups");

/** Kept in step with SHELL_GROUP_COMMANDS in protocol.ts (a test compares them). */
const GROUPS = {
  curl: ["curl"],
  jq: ["jq"],
  yq: ["yq"],
  "html-to-markdown": ["html-to-markdown"],
  file: ["file"],
  xan: ["xan"],
};
const UNAVAILABLE = ["sqlite3", "python3", "js-exec"];
/** just-bash's fuzzing instrumentation: loaded only with a coverage writer, and it imports every command. */
const NEVER = ["flag-coverage"];

/** Stubs for what the shell never calls (see stubs/), and native codecs left to fail at their lazy import. */
function stubs() {
  return {
    name: "worker-shell-stubs",
    setup(builder) {
      builder.onResolve({ filter: /(^|\/)undici-[A-Z0-9]+\.js$/ }, () => ({
        path: join(dir, "sandbox", "stubs", "undici.ts"),
      }));
      builder.onResolve({ filter: /^seek-bzip$/ }, () => ({ path: join(dir, "sandbox", "stubs", "seek-bzip.ts") }));
      builder.onResolve({ filter: /^(@mongodb-js\/zstd|node-liblzma)$/ }, (args) => ({
        path: args.path,
        external: true,
      }));
    },
  };
}

const result = await build({
  entryPoints: { shell: join(dir, "sandbox", "shell.ts") },
  outdir: join(root, ".cache", "worker-shell"),
  bundle: true,
  splitting: true,
  write: false,
  metafile: true,
  minify: true,
  format: "esm",
  platform: "node",
  target: "es2022",
  chunkNames: "chunks/[name]-[hash]",
  external: ["cloudflare:workers", "node:*"],
  plugins: [stubs()],
  // just-bash's chunks call createRequire(import.meta.url); a loaded Worker's modules have no URL.
  define: { "import.meta.url": JSON.stringify("file:///shell.js") },
  legalComments: "none",
  absWorkingDir: root,
  logLevel: "warning",
});

const outBase = join(root, ".cache", "worker-shell");
const nameOf = (path) => path.slice(path.indexOf(".cache/worker-shell/") + ".cache/worker-shell/".length);
const code = new Map(result.outputFiles.map((file) => [nameOf(file.path), file.text]));
const outputs = new Map(
  Object.entries(result.metafile.outputs).map(([path, meta]) => [nameOf(join(root, path)), meta]),
);

/** The chunk esbuild made for a just-bash command's lazy import, e.g. `chunks/jq-X2P7Q64K-ABCD1234.js`. */
function commandChunks(command) {
  const pattern = new RegExp(`^chunks/${command.replace(/[-]/g, "\\-")}-[A-Z0-9]+-[A-Z0-9]+\\.js$`);
  const found = [...outputs.keys()].filter((name) => pattern.test(name));
  if (found.length === 0) throw new Error(`no chunk for the ${command} command: just-bash changed its layout`);
  return found;
}

const resolveImport = (from, path) => nameOf(join(outBase, dirname(from), path));

/** Every output reachable from `starts`, through static and dynamic imports, never entering `stop`. */
function closure(starts, stop = new Set()) {
  const seen = new Set();
  const queue = [...starts];
  while (queue.length > 0) {
    const name = queue.pop();
    if (seen.has(name) || stop.has(name)) continue;
    seen.add(name);
    for (const imported of outputs.get(name)?.imports ?? []) {
      if (imported.external) continue;
      const target = outputs.has(imported.path) ? imported.path : nameOf(join(root, imported.path));
      if (outputs.has(target)) queue.push(target);
      else queue.push(resolveImport(name, imported.path));
    }
  }
  return seen;
}

const optionalRoots = new Map();
for (const [group, commands] of Object.entries(GROUPS)) optionalRoots.set(group, commands.flatMap(commandChunks));
const unavailableRoots = [...UNAVAILABLE, ...NEVER].flatMap(commandChunks);
const fence = new Set([...[...optionalRoots.values()].flat(), ...unavailableRoots]);
const core = closure(["shell.js"], fence);

const groups = { core: [...core].sort() };
for (const [group, roots] of optionalRoots) groups[group] = [...closure(roots, core)].sort();

const files = new Map();
for (const [group, names] of Object.entries(groups)) {
  const body = names.map((name) => `  ${JSON.stringify(name)}: { js: ${JSON.stringify(code.get(name))} },`).join("\n");
  const bytes = names.reduce((sum, name) => sum + Buffer.byteLength(code.get(name)), 0);
  const marker =
    group === "core"
      ? ""
      : `  ${JSON.stringify(`groups/${group}.js`)}: { js: ${JSON.stringify(`export const group = ${JSON.stringify(group)};`)} },\n`;
  files.set(
    join(outDir, `${group}.ts`),
    `// Generated by scripts/build-worker-shell.mjs from shell.worker.ts and just-bash. Do not edit.
// The "${group}" modules of a worker-shell Dynamic Worker: ${names.length} modules, ${bytes} bytes.
import type { ShellModuleGroup } from "../host/modules.js";

const group: ShellModuleGroup = {
${marker}${body}
};
export default group;
`,
  );
}

if (process.argv.includes("--check")) {
  let stale = 0;
  for (const [path, text] of files) {
    let current = "";
    try {
      current = readFileSync(path, "utf8");
    } catch {}
    if (current !== text) {
      console.error(`${path} is stale: run node scripts/build-worker-shell.mjs`);
      stale += 1;
    }
  }
  process.exit(stale === 0 ? 0 : 1);
}
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, ".gitignore"), "# Generated by scripts/build-worker-shell.mjs.\n*\n");
for (const [path, text] of files) writeFileSync(path, text);
const summary = Object.entries(groups).map(([group, names]) => `${group} ${names.length}`);
console.log(`worker-shell groups: ${summary.join(", ")}; main module ${Buffer.byteLength(code.get("shell.js"))} bytes`);
