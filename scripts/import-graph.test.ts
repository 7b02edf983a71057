/**
 * Keeps the layering of docs/architecture.md ("Layers") true: within a
 * package, every import of a source file points at a folder on a lower
 * layer, never at one beside it or above it. A folder that imports one that
 * imports it back cannot happen then. A new top-level folder under a
 * package's src/ must be given a layer here (and in the doc) before it can
 * be imported at all. Test files may reach across layers (a test drives a
 * folder through the ones above it), so they are not checked.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Lowest layer first; folders on one layer do not import each other. `.` is the package's own entry files. */
const LAYERS: Record<string, string[][]> = {
  "packages/computer/src": [
    ["contracts"],
    ["observe", "mounts", "git", "artifacts"],
    ["runtime"],
    ["modules"],
    ["assets", "backends"],
    ["tools"],
    ["workspace"],
    ["."],
  ],
  "packages/computerd/src": [
    ["log"],
    ["http", "store", "memory", "exec", "egress"],
    ["mount", "local-host", "server"],
    ["cli", "dev"],
    ["."],
  ],
};

const SOURCE = /\.(?:ts|mts|cts)$/;
const TEST = /\.test\.ts$/;
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["'](\.{1,2}\/[^"']+)["']/g;

interface Violation {
  /** `file:line: the import`, relative to the package's src/. */
  at: string;
  from: string;
  to: string;
}

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourcesUnder(path);
    return SOURCE.test(name) && !TEST.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The top-level folder of a path relative to src/, or `.` for a file directly in it. */
function folderOf(path: string): string {
  const parts = path.split(sep);
  return parts.length === 1 ? "." : (parts[0] ?? ".");
}

/**
 * Checks the files of one package (path → text, relative to its src/)
 * against its layers: each import of a folder on the same or a higher layer,
 * and each folder no layer names, is a violation.
 */
function violations(layers: string[][], files: Map<string, string>): Violation[] {
  const layerOf = new Map<string, number>();
  layers.forEach((folders, index) => {
    for (const folder of folders) layerOf.set(folder, index);
  });
  const found: Violation[] = [];
  for (const [file, text] of files) {
    const from = folderOf(file);
    const fromLayer = layerOf.get(from);
    text.split("\n").forEach((line, index) => {
      for (const match of line.matchAll(IMPORT)) {
        const target = normalize(join(dirname(file), match[1] ?? ""));
        if (target.startsWith("..")) continue;
        const to = folderOf(target);
        if (to === from) continue;
        const toLayer = layerOf.get(to);
        if (fromLayer === undefined || toLayer === undefined || toLayer >= fromLayer) {
          found.push({ at: `${file}:${index + 1}: ${line.trim()}`, from, to });
        }
      }
    });
  }
  return found;
}

function packageFiles(src: string): Map<string, string> {
  const dir = join(root, src);
  return new Map(sourcesUnder(dir).map((path) => [relative(dir, path), readFileSync(path, "utf8")]));
}

describe("every import points down a layer", () => {
  for (const [src, layers] of Object.entries(LAYERS)) {
    it(src, () => {
      expect(violations(layers, packageFiles(src)).map((v) => v.at)).toEqual([]);
    });

    it(`${src}: every folder has a layer`, () => {
      const named = new Set(layers.flat());
      const folders = readdirSync(join(root, src)).filter((name) => statSync(join(root, src, name)).isDirectory());
      expect(folders.filter((folder) => !named.has(folder))).toEqual([]);
    });
  }
});

describe("the check itself", () => {
  const layers = [["low"], ["mid", "side"], ["top"], ["."]];

  it("lets an import go down", () => {
    const files = new Map([
      ["top/a.ts", 'import { b } from "../mid/b.js";\nimport type { C } from "../low/c.js";'],
      ["index.ts", 'export { a } from "./top/a.js";'],
      ["mid/d.ts", 'const e = await import("../low/e.js");'],
    ]);
    expect(violations(layers, files)).toEqual([]);
  });

  it("reports an import up, one beside, and an unplaced folder, with the line", () => {
    const files = new Map([
      ["low/a.ts", '// why\nimport { t } from "../top/t.js";'],
      ["mid/b.ts", 'export { s } from "../side/s.js";'],
      ["stray/c.ts", 'import "../low/a.js";'],
    ]);
    expect(violations(layers, files)).toEqual([
      { at: 'low/a.ts:2: import { t } from "../top/t.js";', from: "low", to: "top" },
      { at: 'mid/b.ts:1: export { s } from "../side/s.js";', from: "mid", to: "side" },
      { at: 'stray/c.ts:1: import "../low/a.js";', from: "stray", to: "low" },
    ]);
  });
});
