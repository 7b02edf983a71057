// Runs git.bench.ts: bundles it with esbuild (packages stay external) and imports the result.
import { mkdirSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const here = fileURLToPath(new URL(".", import.meta.url));
const outfile = `${here}../node_modules/.cache/git.bench.mjs`;
mkdirSync(`${here}../node_modules/.cache`, { recursive: true });
await build({
  entryPoints: [`${here}git.bench.ts`],
  bundle: true,
  outfile,
  format: "esm",
  platform: "node",
  packages: "external",
  logLevel: "warning",
});
await import(pathToFileURL(outfile).href);
