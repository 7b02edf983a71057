/**
 * scripts/inline-packages.mjs on a throwaway package: a sibling's dist is
 * copied in and imported relatively, copies nothing reaches are dropped, and
 * an import npm would not install fails the build with the file named.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";

const script = fileURLToPath(new URL("./inline-packages.mjs", import.meta.url));
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** A package `host` whose dist imports the sibling `@x/lib`; `libImports` is what lib's index imports. */
function fixture(options: { hostDependencies: Record<string, string>; libImports: string; hostImports?: string }) {
  const root = mkdtempSync(join(tmpdir(), "inline-packages-"));
  dirs.push(root);
  const host = join(root, "host");
  write(
    join(host, "package.json"),
    JSON.stringify({
      name: "host",
      exports: { ".": { types: "./dist/index.d.ts", default: "./dist/index.js" } },
      dependencies: options.hostDependencies,
    }),
  );
  write(join(host, "dist/index.js"), `import { a } from "@x/lib";\n${options.hostImports ?? ""}export const b = a;\n`);
  write(join(host, "dist/index.d.ts"), 'export declare const b: typeof import("@x/lib").a;\n');
  const lib = join(host, "node_modules/@x/lib");
  write(
    join(lib, "package.json"),
    JSON.stringify({
      name: "@x/lib",
      exports: {
        ".": { types: "./dist/index.d.ts", node: "./dist/index.node.js", default: "./dist/index.js" },
        "./unused": "./dist/unused.js",
      },
    }),
  );
  write(join(lib, "dist/index.js"), `${options.libImports}export const a = 1;\n`);
  write(join(lib, "dist/index.node.js"), "export const a = 2;\n");
  write(join(lib, "dist/index.d.ts"), "export declare const a: number;\n");
  write(join(lib, "dist/unused.js"), 'import "never-installed";\n');
  return host;
}

function inline(host: string, ...args: string[]) {
  return spawnSync(process.execPath, [script, ...args, "@x/lib"], { cwd: host, encoding: "utf8" });
}

it("copies the sibling, imports it relatively through its exports and drops what nothing reaches", () => {
  const host = fixture({ hostDependencies: { capnweb: "0.12.0" }, libImports: 'import "capnweb";\n' });
  const result = inline(host);
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  expect(readFileSync(join(host, "dist/index.js"), "utf8")).toContain('from "./_packages/lib/index.js"');
  expect(readFileSync(join(host, "dist/index.d.ts"), "utf8")).toContain('import("./_packages/lib/index.js")');
  expect(existsSync(join(host, "dist/_packages/lib/index.d.ts"))).toBe(true);
  expect(existsSync(join(host, "dist/_packages/lib/index.node.js"))).toBe(false);
  expect(existsSync(join(host, "dist/_packages/lib/unused.js"))).toBe(false);
});

it("takes the sibling's export condition it is given", () => {
  const host = fixture({ hostDependencies: {}, libImports: "" });
  expect(inline(host, "--condition", "node").status).toBe(0);
  expect(readFileSync(join(host, "dist/index.js"), "utf8")).toContain('from "./_packages/lib/index.node.js"');
});

it("fails on an import the sibling brings that the package does not declare", () => {
  const host = fixture({ hostDependencies: {}, libImports: 'import "capnweb";\n' });
  const result = inline(host);
  expect(result.status).toBe(1);
  expect(result.stderr).toContain("dist/_packages/lib/index.js imports capnweb");
});

it("fails on the package's own undeclared import, and on a subpath the sibling does not export", () => {
  const undeclared = fixture({ hostDependencies: {}, libImports: "", hostImports: 'import "left-pad";\n' });
  expect(inline(undeclared).stderr).toContain("dist/index.js imports left-pad");
  const subpath = fixture({ hostDependencies: {}, libImports: "", hostImports: 'import "@x/lib/missing";\n' });
  const result = inline(subpath);
  expect(result.status).toBe(1);
  expect(result.stderr).toContain("imports @x/lib/missing, which @x/lib does not export");
});
