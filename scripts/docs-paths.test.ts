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
      if (!existsSync(join(root, path))) missing.push(`${doc}: ${path}`);
    }
  }
  expect(missing).toEqual([]);
});
