/** tsconfig.sources.json (tsc) and scripts/sibling-sources.ts (vitest) map the same imports to the same files. */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { siblingSourceMap, TYPE_SOURCE_PACKAGES } from "./sibling-sources.js";

const root = fileURLToPath(new URL("..", import.meta.url));

describe("sibling sources", () => {
  it("tsconfig.sources.json paths equal the exports' source files", () => {
    const text = readFileSync(join(root, "tsconfig.sources.json"), "utf8").replace(/^\s*\/\/.*$/gm, "");
    const paths = (JSON.parse(text) as { compilerOptions: { paths: Record<string, string[]> } }).compilerOptions.paths;
    const expected = Object.fromEntries(
      [...siblingSourceMap(TYPE_SOURCE_PACKAGES)].map(([id, file]) => [id, [`./${relative(root, file)}`]]),
    );
    expect(paths).toEqual(expected);
  });
});
