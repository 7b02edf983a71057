/**
 * Keeps the docs honest: every repository path a README or a doc names in
 * backticks must exist. Paths of packages that later issues add are listed
 * in PLANNED; delete an entry when its package lands.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
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
  const pages = readdirSync(join(root, "docs")).map((name) => join("docs", name));
  return ["README.md", ...packages, ...pages].filter((path) => path.endsWith(".md") && existsSync(join(root, path)));
}

it("every path named in a README or doc exists", () => {
  const missing: string[] = [];
  for (const doc of docs()) {
    const text = readFileSync(join(root, doc), "utf8");
    for (const [, path] of text.matchAll(/`([^`\s]+)`/g)) {
      if (path === undefined || !ROOTS.some((prefix) => path.startsWith(prefix))) continue;
      // Globs and generated outputs (bench results are gitignored) name no single file.
      if (path.includes("*") || path.includes("/results/") || PLANNED.has(path)) continue;
      if (!pathExists(path)) missing.push(`${doc}: ${path}`);
    }
  }
  expect(missing).toEqual([]);
});
