#!/usr/bin/env bash
# Builds the image's one runnable artifact: containers/dist/computerd.mjs, an
# esbuild bundle of computerd and its JavaScript dependencies. The native
# modules (fuse-napi, built from source with our patch; fuse-native, the
# libfuse 2 fallback; better-sqlite3) stay external and are installed next to
# it (containers/dist/node_modules) from the workspace's own copies.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
pkg=packages/computerd
out=containers/dist
npx -y pnpm@12.4.2 --filter @cloudflare/dofs --filter @cloudflare/computer-rpc --filter @cloudflare/computerd run build
rm -rf "$out" && mkdir -p "$out/node_modules"
"$pkg/node_modules/.bin/esbuild" "$pkg/dist/cli/main.js" --bundle --platform=node --target=node20 --format=esm \
  --external:fuse-napi --external:fuse-native --external:better-sqlite3 \
  --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" \
  --outfile="$out/computerd.mjs" --log-level=warning
# The native modules and everything they require at run time, dereferenced out of pnpm's store.
node --input-type=module - "$out/node_modules" "$pkg" packages/dofs <<'JS'
import { cpSync, existsSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
const [target, ...from] = process.argv.slice(2);
const done = new Set();
function copy(name, base) {
  let dir = base;
  while (!existsSync(join(dir, "node_modules", name))) {
    if (dirname(dir) === dir) throw new Error(`cannot find ${name} from ${base}`);
    dir = dirname(dir);
  }
  const real = realpathSync(join(dir, "node_modules", name));
  if (done.has(name)) return;
  done.add(name);
  cpSync(real, join(target, name), { recursive: true, dereference: true });
  const manifest = JSON.parse(readFileSync(join(real, "package.json"), "utf8"));
  for (const dep of Object.keys(manifest.dependencies ?? {})) copy(dep, real);
}
copy("fuse-napi", from[0]);
copy("fuse-native", from[0]);
copy("better-sqlite3", from[1]);
JS
# computerd's addons (fuse_dev: COMPUTERD_FUSE_DRIVER=kernel; memory: malloc_trim at idle), built from source by the package build.
mkdir -p "$out/native" && cp "$pkg/native/build/fuse_dev.node" "$pkg/native/build/memory.node" "$out/native/"
echo "built $out/computerd.mjs ($(du -sh "$out" | cut -f1) with native modules)"
