/**
 * Keeps the docs honest: every repository path a README, a doc or a code
 * comment names in backticks must exist, and no comment cites the reference's
 * spec (a reader of this repository does not have it: cite `docs/` instead).
 * Paths of packages that later issues add are listed in PLANNED; delete an
 * entry when its package lands.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const PLANNED = new Set<string>([]);
const ROOTS = ["packages/", "docs/", "scripts/", "examples/", "containers/", ".ci/"];

/**
 * Whether a named path exists. `{a,b}` stands for each alternative (all must
 * exist), `<name>` for any entry of its folder (at least one must fit).
 */
function pathExists(path: string): boolean {
  const braces = /\{([^}]*)\}/.exec(path);
  if (braces) {
    return (braces[1] ?? "").split(",").every((alt) => pathExists(path.replace(braces[0], alt)));
  }
  const slot = path.indexOf("<");
  if (slot === -1) return existsSync(join(root, path));
  const close = path.indexOf(">", slot);
  const dir = join(root, path.slice(0, slot));
  if (close === -1 || !existsSync(dir)) return false;
  return readdirSync(dir).some((entry) => pathExists(path.slice(0, slot) + entry + path.slice(close + 1)));
}

function docs(): string[] {
  const packages = readdirSync(join(root, "packages")).map((name) => join("packages", name, "README.md"));
  const examples = readdirSync(join(root, "examples")).map((name) => join("examples", name, "README.md"));
  const pages = readdirSync(join(root, "docs")).map((name) => join("docs", name));
  return ["README.md", "examples/README.md", ...packages, ...examples, ...pages].filter(
    (path) => path.endsWith(".md") && existsSync(join(root, path)),
  );
}

/** Folders that hold no source of ours: dependencies, build output, generated shell groups. */
const SKIPPED_DIRS = new Set(["node_modules", "dist", "groups", ".wrangler", "results"]);
const SOURCE = /\.(?:ts|mts|cts|js|mjs|cjs)$/;

function sourcesUnder(dir: string): string[] {
  if (!existsSync(join(root, dir))) return [];
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : sourcesUnder(path);
    return SOURCE.test(entry.name) ? [path] : [];
  });
}

/** The comment text of a source file: `//` tails and block-comment lines (a heuristic, not a parser). */
function comments(text: string): string[] {
  const found: string[] = [];
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (trimmed.startsWith("*") || trimmed.startsWith("/*")) found.push(trimmed);
    else {
      const at = line.indexOf("// ");
      if (at >= 0) found.push(line.slice(at));
    }
  }
  return found;
}

/** The folder of the package `file` belongs to: a path a package's own file names may start there. */
function packageOf(file: string): string {
  let dir = dirname(file);
  while (dir !== "." && !existsSync(join(root, dir, "package.json"))) dir = dirname(dir);
  return dir;
}

function missingPaths(where: string, text: string): string[] {
  const missing: string[] = [];
  const home = packageOf(where);
  for (const [, path] of text.matchAll(/`([^`\s]+)`/g)) {
    if (path === undefined || !ROOTS.some((prefix) => path.startsWith(prefix))) continue;
    // Globs and generated outputs (bench results and .cache are gitignored) name no single file.
    if (path.includes("*") || path.includes("/results/") || path.includes("/.cache/") || PLANNED.has(path)) continue;
    const named = path.replace(/[.,:;)]+$/, "");
    if (!pathExists(named) && !(home !== "." && pathExists(join(home, named)))) missing.push(`${where}: ${path}`);
  }
  return missing;
}

it("every path named in a README or doc exists", () => {
  const missing = docs().flatMap((doc) => missingPaths(doc, readFileSync(join(root, doc), "utf8")));
  expect(missing).toEqual([]);
});

const sources = ["packages", "scripts", "examples"].flatMap(sourcesUnder);

it("every path named in a code comment exists", () => {
  expect(sources.length).toBeGreaterThan(100);
  const missing = sources.flatMap((file) =>
    missingPaths(file, comments(readFileSync(join(root, file), "utf8")).join("\n")),
  );
  expect(missing).toEqual([]);
});

it("no comment or doc cites the reference's spec by section or behavior number", () => {
  const citation = /\bspec 0\d|\b0[1-6]-[a-z-]+\.md|§\s?\d|\bbehaviou?rs? \d/i;
  const cited: string[] = [];
  for (const file of sources) {
    for (const line of comments(readFileSync(join(root, file), "utf8"))) {
      // RFC sections are public; only the reference's spec is out of a reader's reach.
      if (citation.test(line.replace(/RFC \d+ §[\d.]+/g, ""))) cited.push(`${file}: ${line}`);
    }
  }
  for (const doc of docs()) {
    for (const line of readFileSync(join(root, doc), "utf8").split("\n")) {
      if (citation.test(line.replace(/RFC \d+ §[\d.]+/g, ""))) cited.push(`${doc}: ${line.trim()}`);
    }
  }
  expect(cited).toEqual([]);
});
