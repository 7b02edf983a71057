/**
 * The trust boundary, checked from the source: code under a backend's
 * `sandbox/` runs in a Dynamic Worker that holds nothing of the host, so it
 * may import only its own folder, the backend's `protocol/` (what crosses the
 * boundary) and its runtime packages. A host import here would bundle host
 * code into the sandbox, or fail only at run time.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const backends = dirname(fileURLToPath(import.meta.url));
/** Packages a sandbox may import: its runtime, not the host's. */
const RUNTIME_PACKAGES = new Set(["cloudflare:workers", "just-bash"]);

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourcesUnder(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

function specifiers(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^"'`;]*?from\s*["']([^"']+)["']/g)) {
    if (match[1]) found.push(match[1]);
  }
  for (const match of text.matchAll(/(?:^|\n)\s*import\s*["']([^"']+)["']/g)) if (match[1]) found.push(match[1]);
  return found;
}

const sandboxes = readdirSync(backends).filter((name) => {
  try {
    return statSync(join(backends, name, "sandbox")).isDirectory();
  } catch {
    return false;
  }
});

describe("sandbox imports", () => {
  it("finds both Dynamic Worker sandboxes", () => {
    expect(sandboxes.sort()).toEqual(["worker-javascript", "worker-shell"]);
  });

  for (const backend of sandboxes) {
    it(`${backend}/sandbox imports only itself, ../protocol/ and its runtime`, () => {
      const sandbox = join(backends, backend, "sandbox");
      const protocol = join(backends, backend, "protocol");
      const outside: string[] = [];
      for (const file of sourcesUnder(sandbox)) {
        for (const spec of specifiers(readFileSync(file, "utf8"))) {
          if (!spec.startsWith(".")) {
            if (!RUNTIME_PACKAGES.has(spec)) outside.push(`${relative(backends, file)}: ${spec}`);
            continue;
          }
          const target = resolve(dirname(file), spec);
          const inside = [sandbox, protocol].some((root) => target === root || target.startsWith(root + sep));
          if (!inside) outside.push(`${relative(backends, file)}: ${spec}`);
        }
      }
      expect(outside).toEqual([]);
    });
  }
});
