#!/usr/bin/env node
/**
 * Inlines workspace packages into the dist/ of the package it runs in, so the
 * published tarball needs no `workspace:*` sibling (docs/packaging.md):
 *
 *   node ../../scripts/inline-packages.mjs [--condition node] @cloudflare/dofs @cloudflare/computer-rpc
 *
 * Run after tsc. Each named package's dist/ is copied to
 * `dist/_packages/<name without scope>/`, every import of it (`.js`, `.d.ts`,
 * `.cjs`, static and dynamic) is rewritten to a relative path through that
 * package's `exports` (with `--condition`, e.g. `node`, tried before
 * `default`), and copied files nothing reaches are removed again. Then every
 * bare import reachable from the package's `exports` and `bin` must be a
 * builtin or declared in `dependencies`/`peerDependencies`; the script exits 1
 * and names the file otherwise, so a tarball never ships an import npm would
 * not install.
 */
import { cpSync, existsSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";

const args = process.argv.slice(2);
const conditions = [];
while (args[0] === "--condition") {
  conditions.push(args[1]);
  args.splice(0, 2);
}
conditions.push("import", "default");

const root = process.cwd();
const dist = join(root, "dist");
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const SOURCE_FILE = /\.(js|cjs|mjs|d\.ts|d\.cts|d\.mts)$/;
// `from "x"`, `import "x"`, `import("x")`, `require("x")`: what tsc emits.
const PACKAGE_SPECIFIER = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(\/[\w./-]*)?$/;
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)(["'])([^"'\s]+)\2/g;

function fail(message) {
  process.stderr.write(`inline-packages: ${message}\n`);
  process.exit(1);
}

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : SOURCE_FILE.test(name) ? [path] : [];
  });
}

/** The installed directory of a dependency (its `exports` need not list package.json). */
function packageDir(name) {
  for (let dir = root; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (dirname(dir) === dir) fail(`${name} is not installed`);
  }
}

function splitSpecifier(specifier) {
  const parts = specifier.split("/");
  const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
  return { name, subpath: `.${specifier.slice(name.length)}` };
}

/** The file an export target names, for a declaration file or a module. */
function exportTarget(pkg, subpath, declaration) {
  const entry = pkg.exports?.[subpath];
  if (entry === undefined) return undefined;
  if (typeof entry === "string") return entry;
  if (declaration && entry.types) return entry.types;
  for (const condition of conditions) if (entry[condition]) return entry[condition];
  return undefined;
}

function relativeImport(fromFile, toFile) {
  const path = relative(dirname(fromFile), toFile).split(sep).join("/");
  return path.startsWith(".") ? path : `./${path}`;
}

// 1. Copy each inlined package's dist.
const inlined = new Map();
for (const name of args) {
  const pkgDir = packageDir(name);
  const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  const into = join(dist, "_packages", name.replace(/^@[^/]+\//, ""));
  if (!existsSync(join(pkgDir, "dist"))) fail(`${name} has no dist/: build it first`);
  rmSync(into, { recursive: true, force: true });
  cpSync(join(pkgDir, "dist"), into, { recursive: true });
  inlined.set(name, { pkg, into });
}

// 2. Rewrite imports of inlined packages everywhere in dist.
for (const file of walk(dist)) {
  const declaration = /\.d\.[cm]?ts$/.test(file);
  const text = readFileSync(file, "utf8");
  const rewritten = text.replace(SPECIFIER, (match, lead, quote, specifier) => {
    const { name, subpath } = splitSpecifier(specifier);
    const target = inlined.get(name);
    if (target === undefined) return match;
    const path = exportTarget(target.pkg, subpath, declaration);
    if (path === undefined) fail(`${relative(root, file)} imports ${specifier}, which ${name} does not export`);
    // A declaration file names the module (`x.js`), TypeScript finds `x.d.ts` next to it.
    const module = declaration ? path.replace(/\.d\.ts$/, ".js").replace(/\.d\.cts$/, ".cjs") : path;
    if (!module.startsWith("./dist/")) fail(`${name} exports ${subpath} from outside its dist/: ${path}`);
    return `${lead}${quote}${relativeImport(file, join(target.into, module.slice("./dist/".length)))}${quote}`;
  });
  if (rewritten !== text) writeFileSync(file, rewritten);
}

// 3. Walk the import graph from the package's entry points: keep reached copies, check bare imports.
const entries = [];
for (const entry of Object.values(manifest.exports ?? {})) {
  for (const target of typeof entry === "string" ? [entry] : Object.values(entry)) entries.push(target);
}
for (const bin of typeof manifest.bin === "string" ? [manifest.bin] : Object.values(manifest.bin ?? {})) {
  entries.push(bin);
}
const declared = new Set([
  ...Object.keys(manifest.dependencies ?? {}),
  ...Object.keys(manifest.peerDependencies ?? {}),
]);
const builtins = new Set(builtinModules);
const reached = new Set();
const undeclared = [];
const stack = entries
  .filter((target) => !target.includes("*"))
  .map((target) => resolve(root, target))
  // Wildcard exports (`./shell/*`) reach every file in their directory.
  .concat(
    entries
      .filter((target) => target.includes("*"))
      .flatMap((target) => {
        const dir = resolve(root, dirname(target));
        return existsSync(dir) ? walk(dir) : [];
      }),
  );
while (stack.length > 0) {
  const file = stack.pop();
  if (reached.has(file)) continue;
  reached.add(file);
  if (!existsSync(file)) fail(`${relative(root, file)} is imported or exported but does not exist`);
  const declaration = /\.d\.[cm]?ts$/.test(file);
  for (const [, , , specifier] of readFileSync(file, "utf8").matchAll(SPECIFIER)) {
    if (specifier.startsWith(".")) {
      const path = resolve(dirname(file), specifier);
      if (declaration) {
        const types = path.replace(/\.js$/, ".d.ts").replace(/\.cjs$/, ".d.cts");
        stack.push(existsSync(types) ? types : path);
      } else {
        stack.push(path);
        // The declaration next to a reached module ships with it.
        const types = path.replace(/\.js$/, ".d.ts").replace(/\.cjs$/, ".d.cts");
        if (existsSync(types)) stack.push(types);
      }
      continue;
    }
    if (specifier.startsWith("node:") || specifier.startsWith("cloudflare:") || builtins.has(specifier)) continue;
    // Module sources inside strings (generated bundles, templates) are not imports of this file.
    if (!PACKAGE_SPECIFIER.test(specifier)) continue;
    const { name } = splitSpecifier(specifier);
    if (name === manifest.name) continue;
    if (!declared.has(name)) undeclared.push(`${relative(root, file)} imports ${specifier}`);
  }
}
for (const { into } of inlined.values()) {
  for (const file of walk(into)) if (!reached.has(file)) rmSync(file);
}
if (undeclared.length > 0) {
  fail(`imports that are neither builtins nor declared dependencies:\n  ${undeclared.join("\n  ")}`);
}
process.stdout.write(
  `inline-packages: ${[...inlined.keys()].join(", ") || "nothing"} inlined into ${relative(process.cwd(), dist)}; ${reached.size} files reachable\n`,
);
