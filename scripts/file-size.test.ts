/**
 * No source file of ours over 600 lines (STYLE.md: a file has one job, and
 * a long one is a sign it has several). Generated files are exempt by name,
 * each with the reason; tests, scripts and examples count like the rest.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const LIMIT = 600;
const SOURCE = /\.(?:ts|mts|cts|js|mjs|cjs|py|sh)$/;

/** Generated, not written: path → why. None today; a generated file over the limit goes here. */
const GENERATED = new Map<string, string>();
const ROOTS = ["packages", "scripts", "examples", "containers", ".ci"];
/** Dependencies, build output, caches and generated shell groups: not ours to size. */
const SKIPPED = new Set(["node_modules", "dist", ".cache", ".wrangler", "groups", "results"]);

function sourcesUnder(dir: string): string[] {
  if (!existsSync(join(root, dir))) return [];
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : sourcesUnder(path);
    return SOURCE.test(entry.name) ? [path] : [];
  });
}

function lineCount(text: string): number {
  return text.endsWith("\n") ? text.split("\n").length - 1 : text.split("\n").length;
}

it(`no source file is over ${LIMIT} lines`, () => {
  const long = ROOTS.flatMap(sourcesUnder)
    .filter((path) => !GENERATED.has(path))
    .map((path) => ({ path, lines: lineCount(readFileSync(join(root, path), "utf8")) }))
    .filter(({ lines }) => lines > LIMIT)
    .map(({ path, lines }) => `${path}: ${lines} lines`);
  expect(long).toEqual([]);
});
