#!/usr/bin/env node
/**
 * The public surface of the published `@cloudflare/computer@0.2.1` (the
 * `computer-reference` devDependency) and how ours measures up to it.
 *
 *   node scripts/compat-surface.mjs            every reference name and kind, per subpath
 *   node scripts/compat-surface.mjs --report   per subpath: compatible / incompatible / missing, with counts
 *   node scripts/compat-surface.mjs --write    regenerate test/compat/*.compat.ts from test/compat/gaps.json
 *   node scripts/compat-surface.mjs --check    exit 1 when the fixtures are stale or gaps.json
 *                                              disagrees with what the compiler finds
 *   node scripts/compat-surface.mjs --prepare  write the de-branded reference (.cache/compat-reference)
 *                                              that tsconfig.compat.json reads (every other mode does too)
 *   COMPAT_REFERENCE=080 node scripts/compat-surface.mjs --report
 *                                              the same report against @cloudflare/computer@0.8.0
 *                                              (`computer-reference-080`), the newer contract; report
 *                                              and listing only: the fixtures and gaps.json are 0.2.1's
 *   node scripts/compat-surface.mjs --explain <Name>...
 *                                              print tsc's elaboration of why a name does not fit,
 *                                              per direction of its predicate
 *
 * The names come from the reference's own `.d.ts` entry points, walked with
 * the TypeScript compiler API, so the list cannot drift from the package.
 * Only names, kinds and type-parameter counts are read; nothing is copied.
 *
 * The fixtures are generated, one line per name, and left alone by biome
 * (an override in biome.json) so a diagnostic's line always names its name.
 * A fixture is one line per name (see test/compat/check.ts for the
 * predicates). Known gaps carry `// @ts-expect-error` with their issue-19 row,
 * so `tsc -p tsconfig.compat.json` (part of `npm run typecheck`) fails both
 * when a new gap appears and when a listed gap has been fixed.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { prepareDebrandedReference } from "./compat-debrand.mjs";

const require = createRequire(import.meta.url);
const ts = require("typescript");

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const compatDir = join(packageRoot, "test", "compat");
/** `COMPAT_REFERENCE=080` measures against the 0.8.0 package instead (report and listing modes only). */
const against080 = process.env.COMPAT_REFERENCE === "080";
const referenceRoot = join(packageRoot, "node_modules", against080 ? "computer-reference-080" : "computer-reference");
const referenceName = "computer-reference";
/**
 * Where `--prepare` writes the reference's declarations without their private
 * members (ignored by git; tsconfig.compat.json's `paths` point
 * `computer-reference` here).
 */
const debrandedRoot = join(packageRoot, ".cache", against080 ? "compat-reference-080" : "compat-reference");

/** Types user code builds and hands to us: ours must accept theirs. */
const acceptedTypes = new Set([
  "WorkspaceObserver",
  "WorkspaceSpan",
  "WorkspaceAttributes",
  "WorkspaceAttributeValue",
  "WorkspaceBackend",
  "WorkspaceModuleBackend",
  // The element type of `backends`: what a user lists and hands to the Workspace.
  "WorkspaceRegisteredBackend",
  "WorkspaceModuleBackendHandle",
  // What a module backend's handle answers `exec` with: built by the backend, read by the runtime.
  "ModuleExecutionEnvelope",
  "BackendHandle",
  "WorkspaceRuntimeLoader",
  "WorkerShellLoader",
  "WorkspaceTrustedModule",
  "WorkspaceLike",
  "AssetsEnv",
  "R2PutBucket",
  "WorkspaceEgressPolicy",
  "DurableObjectStorageLike",
  "Mount",
  "MountBase",
  "EagerMount",
  "MountFactory",
  "ShellValue",
  "RawShellValue",
  "WriteFileContent",
  "GitIdentity",
  "ArtifactScope",
  "ArtifactImportSource",
  "SyncRetryScheduler",
  "CommandMap",
]);
/** Names that look like results but are built by callers. */
const inputSuffix = /(Options|Init|Input|Props|Config|Args|Request|Policy)$/;
/** Small unions that flow both ways (passed in and read back). */
const mutualTypes = new Set(["ExecEncoding", "KillSignal"]);

// ---------------------------------------------------------------------------
// Subpaths

function readJson(path) {
  return JSON.parse(readFileSync(path, "utf8"));
}

/** The reference's subpaths and their `.d.ts` entry points. */
function referenceSubpaths() {
  const { exports } = readJson(join(referenceRoot, "package.json"));
  return Object.entries(exports).map(([subpath, target]) => ({
    subpath,
    dts: join(referenceRoot, target.types),
  }));
}

/**
 * Our source entry for a subpath, through our package.json `exports` (so a
 * subpath we do not export is missing even if a file happens to exist).
 */
function oursEntry(subpath) {
  const { exports } = readJson(join(packageRoot, "package.json"));
  let types = exports[subpath]?.types;
  if (types === undefined) {
    for (const [pattern, target] of Object.entries(exports)) {
      if (!pattern.endsWith("*")) continue;
      const prefix = pattern.slice(0, -1);
      if (subpath.startsWith(prefix)) types = target.types.replace("*", subpath.slice(prefix.length));
    }
  }
  if (types === undefined) return undefined;
  const source = join(
    packageRoot,
    sandboxTypes(types) ?? types.replace(/^\.\/dist\//, "src/").replace(/\.d\.ts$/, ".ts"),
  );
  try {
    readFileSync(source);
  } catch {
    return undefined;
  }
  return source;
}

/**
 * A bundled sandbox module (dist/sandbox/...) has no source file of its own:
 * its committed declaration is the `types` of the `imports` entry that maps
 * to the same bundle.
 */
function sandboxTypes(types) {
  if (!types.startsWith("./dist/sandbox/")) return undefined;
  const group = /^\.\/dist\/sandbox\/worker-shell\/(.+)\.d\.ts$/.exec(types)?.[1];
  if (group !== undefined && !shellGroups().has(group)) return undefined;
  const { imports = {} } = readJson(join(packageRoot, "package.json"));
  const bundle = types.replace(/\.d\.ts$/, ".js");
  for (const target of Object.values(imports)) {
    const pattern = target.default;
    const prefix = pattern.endsWith("*.js") ? pattern.slice(0, -4) : pattern;
    if (pattern === bundle || (pattern.endsWith("*.js") && bundle.startsWith(prefix))) return target.types;
  }
  return undefined;
}

/**
 * The shell groups the build writes: `core`, the keys of SHELL_GROUP_COMMANDS and those of
 * SHELL_UNAVAILABLE_GROUPS (read from its source, before any build).
 */
function shellGroups() {
  const source = readFileSync(join(packageRoot, "src/backends/worker-shell/protocol/messages.ts"), "utf8");
  const table = /SHELL_GROUP_COMMANDS = \{([^}]*)\}/.exec(source)?.[1] ?? "";
  const unavailable = /SHELL_UNAVAILABLE_GROUPS = \{([\s\S]*?)\n\} as const/.exec(source)?.[1] ?? "";
  return new Set([
    "core",
    ...[...table.matchAll(/^\s*"?([\w-]+)"?:/gm)].map((match) => match[1]),
    ...[...unavailable.matchAll(/^\s*"?([\w-]+)"?: \{/gm)].map((match) => match[1]),
  ]);
}

function slug(subpath) {
  return subpath === "." ? "root" : subpath.slice(2).replaceAll("/", "-");
}

// ---------------------------------------------------------------------------
// The reference's names

const compatConfig = (() => {
  const configPath = join(packageRoot, "tsconfig.compat.json");
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  return ts.parseJsonConfigFileContent(config.config, ts.sys, packageRoot);
})();
const compilerOptions = against080
  ? {
      ...compatConfig.options,
      // The fixtures import `computer-reference`; here that is the 0.8.0 copy.
      paths: {
        "computer-reference": [join(debrandedRoot, "index.d.ts")],
        "computer-reference/*": [join(debrandedRoot, "*.d.ts")],
      },
    }
  : compatConfig.options;

function kindOf(checker, exported) {
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const flags = symbol.flags;
  // `export { type X }` of a class still names a value in the reference's
  // types; user code can only use it as a type.
  const typeOnly = exported.declarations?.some(
    (d) => ts.isExportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly),
  );
  let kind;
  if (flags & ts.SymbolFlags.Class) kind = typeOnly ? "interface" : "class";
  else if (flags & ts.SymbolFlags.Function) kind = typeOnly ? "type" : "function";
  else if (flags & ts.SymbolFlags.Variable) kind = typeOnly ? "type" : "const";
  else if (flags & ts.SymbolFlags.Enum) kind = "enum";
  else if (flags & ts.SymbolFlags.Interface) kind = "interface";
  else if (flags & ts.SymbolFlags.TypeAlias) kind = "type";
  else kind = "other";
  const declaration = symbol.declarations?.[0];
  const typeParameters = declaration?.typeParameters ?? [];
  const required = typeParameters.filter((p) => p.default === undefined).length;
  return { kind, typeArguments: required };
}

/** name → { kind, typeArguments } for every subpath. */
export function referenceSurface() {
  const subpaths = referenceSubpaths();
  const program = ts.createProgram(
    subpaths.map((s) => s.dts),
    compilerOptions,
  );
  const checker = program.getTypeChecker();
  return subpaths.map(({ subpath, dts }) => {
    const source = program.getSourceFile(dts);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    const names = moduleSymbol
      ? checker
          .getExportsOfModule(moduleSymbol)
          .map((s) => ({ name: s.getName(), ...kindOf(checker, s) }))
          .sort((a, b) => a.name.localeCompare(b.name))
      : [];
    return { subpath, names };
  });
}

// ---------------------------------------------------------------------------
// Fixtures

function predicateFor({ name, kind }) {
  if (kind === "class") return "ClassFits";
  if (kind === "function" || kind === "const" || kind === "enum") return "ValueFits";
  if (mutualTypes.has(name)) return "MutualFits";
  if (acceptedTypes.has(name) || inputSuffix.test(name)) return "OptionsFits";
  return "ResultFits";
}

function lineFor(entry) {
  const predicate = predicateFor(entry);
  const args = entry.typeArguments > 0 ? `<${Array(entry.typeArguments).fill("any").join(", ")}>` : "";
  const value = entry.kind === "class" || predicate === "ValueFits";
  const ours = value ? `typeof O.${entry.name}` : `O.${entry.name}${args}`;
  const ref = value ? `typeof R.${entry.name}` : `R.${entry.name}${args}`;
  return `type _${entry.name} = Fits<${predicate}<${ours}, ${ref}>>;`;
}

function readGaps() {
  return readJson(join(compatDir, "gaps.json"));
}

/** The fixture text for one subpath; `gaps` decides the expect-error lines. */
function fixtureText({ subpath, names }, gaps) {
  const entry = oursEntry(subpath);
  const lines = [
    `// Generated by scripts/compat-surface.mjs from ${referenceName} (the published @cloudflare/computer@0.2.1).`,
    "// Do not edit: known gaps live in gaps.json; run `node scripts/compat-surface.mjs --write`.",
    `import type * as R from "${subpath === "." ? referenceName : `${referenceName}/${subpath.slice(2)}`}";`,
  ];
  if (entry !== undefined) {
    const spec = relative(compatDir, entry).replace(/(\.d)?\.ts$/, ".js");
    lines.push(`import type * as O from "${spec.startsWith(".") ? spec : `./${spec}`}";`);
  }
  const predicates = [...new Set(["Fits", ...names.map(predicateFor)])].sort();
  lines.push(`import type { ${predicates.join(", ")} } from "./check.js";`, "");
  if (entry === undefined) {
    // The whole subpath is missing: each name is one gap against an empty module.
    lines.push("declare namespace O {}", "");
  }
  const subpathGaps = gaps[subpath] ?? {};
  for (const entry of names) {
    const gap = subpathGaps[entry.name];
    if (gap) lines.push(`// @ts-expect-error ${gap.status}, issue 19 row ${gap.row}`);
    lines.push(lineFor(entry));
  }
  return `${lines.join("\n")}\n`;
}

function fixturePath(subpath) {
  return join(compatDir, `${slug(subpath)}.compat.ts`);
}

// ---------------------------------------------------------------------------
// Measuring: compile the fixtures with no expect-errors and read the diagnostics

/** subpath → name → "compatible" | "incompatible" | "missing" */
/**
 * A program of the compat project with `files` (path → text) in place of the
 * fixtures on disk, plus every other file tsc -p tsconfig.compat.json
 * compiles (the usage files), so the same declarations load as for the
 * fixtures (whether @types/node is in, say, decides what `Buffer` is).
 */
function compatProgram(files, options) {
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (path) => files.get(path) ?? readFile(path);
  host.fileExists = (path) => files.has(path) || ts.sys.fileExists(path);
  host.getSourceFile = (path, languageVersion, onError, fresh) =>
    files.has(path)
      ? ts.createSourceFile(path, files.get(path), languageVersion, true)
      : getSourceFile(path, languageVersion, onError, fresh);
  // Against 0.8.0 the hand-written usage files (written for 0.2.1) stay out; only the environment counts.
  const others = compatConfig.fileNames.filter(
    (f) => !f.endsWith(".compat.ts") && !(against080 && f.startsWith(compatDir)),
  );
  return ts.createProgram([...files.keys(), ...others], options, host);
}

function measure(surface) {
  const files = new Map(surface.map((s) => [fixturePath(s.subpath), fixtureText(s, {})]));
  const program = compatProgram(files, compilerOptions);
  const failures = new Map();
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const file = diagnostic.file;
    if (!file || !files.has(file.fileName)) {
      if (file && !file.fileName.includes("node_modules")) {
        const where = `${relative(packageRoot, file.fileName)}`;
        console.error(`note: ${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`);
      }
      continue;
    }
    const { line } = file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    const text = file.text.split("\n")[line] ?? "";
    const match = /^type _(\w+) =/.exec(text);
    if (!match) continue;
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    const missing = /has no exported member|does not exist on type|Cannot find/.test(message);
    const key = `${file.fileName}\0${match[1]}`;
    if (missing || !failures.has(key)) failures.set(key, missing ? "missing" : "incompatible");
  }
  return Object.fromEntries(
    surface.map(({ subpath, names }) => {
      // A subpath we do not export: every name is missing, whatever the placeholder module says.
      const exported = oursEntry(subpath) !== undefined;
      const statusOf = (name) =>
        exported ? (failures.get(`${fixturePath(subpath)}\0${name}`) ?? "compatible") : "missing";
      return [subpath, Object.fromEntries(names.map(({ name }) => [name, statusOf(name)]))];
    }),
  );
}

// ---------------------------------------------------------------------------
// Explaining one name: each direction of its predicate as an assignment, so
// tsc elaborates which member, parameter or return type does not fit.

function explainChecks(entry) {
  const predicate = predicateFor(entry);
  const args = entry.typeArguments > 0 ? `<${Array(entry.typeArguments).fill("any").join(", ")}>` : "";
  const type = (side) =>
    entry.kind === "class" || predicate === "ValueFits"
      ? `typeof ${side}.${entry.name}`
      : `${side}.${entry.name}${args}`;
  const [ours, ref] = [type("O"), type("R")];
  const assign = (label, from, to) => ({ label, from, to });
  if (predicate === "ClassFits")
    return [
      assign(
        "constructor: theirs' arguments passed to ours",
        `ConstructorParameters<${ref}>`,
        `ConstructorParameters<${ours}>`,
      ),
      assign(
        "instance: ours where theirs is expected",
        `Public<InstanceType<${ours}>>`,
        `Public<InstanceType<${ref}>>`,
      ),
      assign(
        "statics: ours where theirs is expected",
        `Omit<Public<${ours}>, "prototype">`,
        `Omit<Public<${ref}>, "prototype">`,
      ),
    ];
  if (predicate === "OptionsFits") return [assign("theirs where ours is expected", ref, ours)];
  if (predicate === "MutualFits")
    return [assign("ours where theirs is expected", ours, ref), assign("theirs where ours is expected", ref, ours)];
  return [assign("ours where theirs is expected", ours, ref)];
}

/** Prints tsc's elaboration for each name (at every subpath exporting it); 1 when any does not fit. */
function explain(wanted) {
  const surface = referenceSurface();
  const unknown = wanted.filter((name) => !surface.some((s) => s.names.some((n) => n.name === name)));
  for (const name of unknown) console.error(`${name} is not a public name of ${referenceName}`);
  if (unknown.length > 0) return 2;
  const files = new Map();
  const checksAt = [];
  for (const { subpath, names } of surface) {
    const entries = names.filter((n) => wanted.includes(n.name));
    if (entries.length === 0) continue;
    const path = join(compatDir, `${slug(subpath)}.explain.compat.ts`);
    const lines = fixtureText({ subpath, names: [] }, {})
      .replace(/import type \{[^}]*\} from "\.\/check\.js";/, 'import type { Public } from "./check.js";')
      .split("\n");
    for (const entry of entries) {
      const checks = explainChecks(entry).map((check) => {
        const id = `_${lines.length}`;
        lines.push(`declare const from${id}: ${check.from};`, `const to${id}: ${check.to} = from${id};`);
        return { ...check, line: lines.length - 1 };
      });
      checksAt.push({ subpath, entry, path, checks });
    }
    files.set(path, `${lines.join("\n")}\n`);
  }
  const program = compatProgram(files, { ...compilerOptions, noErrorTruncation: true });
  const diagnostics = ts.getPreEmitDiagnostics(program).filter((d) => d.file && files.has(d.file.fileName));
  const lineOf = (d) => d.file.getLineAndCharacterOfPosition(d.start ?? 0).line;
  let failed = 0;
  for (const { subpath, entry, path, checks } of checksAt) {
    console.log(`## ${subpath} ${entry.name} (${entry.kind}, ${predicateFor(entry)})`);
    for (const check of checks) {
      const mine = diagnostics.filter((d) => d.file.fileName === path && lineOf(d) === check.line);
      console.log(`\n### ${check.label}: ${mine.length === 0 ? "fits" : "does not fit"}`);
      for (const d of mine) console.log(shortenPaths(ts.flattenDiagnosticMessageText(d.messageText, "\n")));
      failed += mine.length;
    }
    console.log("");
  }
  const lines = new Set(checksAt.flatMap(({ path, checks }) => checks.map((c) => `${path}:${c.line}`)));
  for (const d of diagnostics.filter((d) => !lines.has(`${d.file.fileName}:${lineOf(d)}`)))
    console.log(`(fixture) ${shortenPaths(ts.flattenDiagnosticMessageText(d.messageText, "\n"))}`);
  return failed > 0 ? 1 : 0;
}

/** `import("/abs/path/to/x", { with: … }).T` → `import("x").T`, relative to the package. */
function shortenPaths(message) {
  return message
    .replace(/, \{ with: \{ "resolution-mode": "(import|require)" \} \}/g, "")
    .replaceAll(`${debrandedRoot}/dist/`, "reference:")
    .replaceAll(`${packageRoot}/`, "")
    .replaceAll(`${join(packageRoot, "..")}/`, "../");
}

function summarize(surface, results) {
  const rows = surface.map(({ subpath, names }) => {
    const counts = { compatible: 0, incompatible: 0, missing: 0 };
    for (const { name } of names) counts[results[subpath][name]] += 1;
    return { subpath, total: names.length, ...counts };
  });
  const total = rows.reduce(
    (sum, row) => ({
      total: sum.total + row.total,
      compatible: sum.compatible + row.compatible,
      incompatible: sum.incompatible + row.incompatible,
      missing: sum.missing + row.missing,
    }),
    { total: 0, compatible: 0, incompatible: 0, missing: 0 },
  );
  return { rows, total };
}

// ---------------------------------------------------------------------------

function printSurface(surface) {
  for (const { subpath, names } of surface) {
    console.log(`${subpath} (${names.length})`);
    for (const { name, kind } of names) console.log(`  ${kind.padEnd(9)} ${name}`);
  }
}

function printReport(surface, results) {
  for (const { subpath, names } of surface) {
    const by = (status) => names.filter((n) => results[subpath][n.name] === status).map((n) => n.name);
    console.log(`\n## ${subpath}`);
    for (const status of ["compatible", "incompatible", "missing"]) {
      const list = by(status);
      console.log(`${status} (${list.length}): ${list.join(", ") || "-"}`);
    }
  }
  const { rows, total } = summarize(surface, results);
  console.log("\n| subpath | names | compatible | incompatible | missing |\n| --- | --- | --- | --- | --- |");
  for (const r of rows)
    console.log(`| ${r.subpath} | ${r.total} | ${r.compatible} | ${r.incompatible} | ${r.missing} |`);
  console.log(`| all | ${total.total} | ${total.compatible} | ${total.incompatible} | ${total.missing} |`);
}

function writeFixtures(surface, gaps) {
  for (const s of surface) writeFileSync(fixturePath(s.subpath), fixtureText(s, gaps));
  const known = new Set(surface.map((s) => `${slug(s.subpath)}.compat.ts`));
  const stray = readdirSync(compatDir).filter((f) => f.endsWith(".compat.ts") && !known.has(f));
  if (stray.length > 0) console.error(`stray fixtures (delete them): ${stray.join(", ")}`);
}

/** Problems: stale fixtures, gaps fixed but listed, gaps found but not listed. */
export function checkProblems() {
  const surface = referenceSurface();
  const gaps = readGaps();
  const results = measure(surface);
  const problems = [];
  for (const s of surface) {
    let onDisk = "";
    try {
      onDisk = readFileSync(fixturePath(s.subpath), "utf8");
    } catch {}
    if (onDisk !== fixtureText(s, gaps)) problems.push(`${relative(packageRoot, fixturePath(s.subpath))} is stale`);
    for (const { name } of s.names) {
      const status = results[s.subpath][name];
      const gap = gaps[s.subpath]?.[name];
      if (status === "compatible" && gap) problems.push(`${s.subpath} ${name}: fixed, remove it from gaps.json`);
      if (status !== "compatible" && !gap) problems.push(`${s.subpath} ${name}: new gap (${status})`);
      if (status !== "compatible" && gap && gap.status !== status)
        problems.push(`${s.subpath} ${name}: now ${status}, gaps.json says ${gap.status}`);
    }
    for (const name of Object.keys(gaps[s.subpath] ?? {}))
      if (!s.names.some((n) => n.name === name)) problems.push(`${s.subpath} ${name}: not a reference name`);
  }
  return { problems, summary: summarize(surface, results) };
}

/** gaps.json from what the compiler finds, keeping the rows already assigned. */
function seedGaps(surface, results, previous, defaultRows) {
  const gaps = {};
  for (const { subpath, names } of surface) {
    for (const { name } of names) {
      const status = results[subpath][name];
      if (status === "compatible") continue;
      const row = previous[subpath]?.[name]?.row ?? defaultRows(subpath, name);
      gaps[subpath] ??= {};
      gaps[subpath][name] = { status, row };
    }
  }
  return gaps;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const mode = process.argv[2];
  if (against080 && mode !== undefined && mode !== "--report" && mode !== "--explain") {
    console.error("COMPAT_REFERENCE=080 supports only the listing, --report and --explain (the fixtures are 0.2.1's)");
    process.exit(2);
  }
  // Every mode that compiles reads the reference through the de-branded copy.
  if (mode !== undefined) {
    prepareDebrandedReference({ referenceRoot, debrandedRoot, subpaths: referenceSubpaths(), compilerOptions });
  }
  if (mode === undefined) printSurface(referenceSurface());
  else if (mode === "--prepare") {
    // Done above: written for `tsc -p tsconfig.compat.json`.
  } else if (mode === "--explain") {
    const names = process.argv.slice(3);
    if (names.length === 0) {
      console.error("usage: compat-surface.mjs --explain <Name>...");
      process.exit(2);
    }
    process.exit(explain(names));
  } else if (mode === "--report") {
    const surface = referenceSurface();
    printReport(surface, measure(surface));
  } else if (mode === "--write") writeFixtures(referenceSurface(), readGaps());
  else if (mode === "--seed") {
    // Rewrites gaps.json to what the compiler finds (keeping known rows), then the fixtures.
    const surface = referenceSurface();
    let previous = {};
    try {
      previous = readGaps();
    } catch {}
    const { defaultRow } = await import("./compat-rows.mjs");
    const gaps = seedGaps(surface, measure(surface), previous, defaultRow);
    writeFileSync(join(compatDir, "gaps.json"), `${JSON.stringify(gaps, null, 2)}\n`);
    writeFixtures(surface, gaps);
  } else if (mode === "--check") {
    const { problems, summary } = checkProblems();
    for (const p of problems) console.error(p);
    console.log(`compatible ${summary.total.compatible} of ${summary.total.total}`);
    process.exit(problems.length > 0 ? 1 : 0);
  } else {
    console.error(`unknown mode ${mode}`);
    process.exit(2);
  }
}
