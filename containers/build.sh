#!/usr/bin/env bash
# Builds the image's context, containers/dist/ (gitignored), which is the
# whole of /opt/computerd in the image:
#   computerd.mjs     esbuild bundle of computerd and its JavaScript dependencies
#   *.child.js, *.cjs files computerd starts beside itself (egress anchor, fetch preload)
#   node_modules/     the native modules (fuse-napi built from source with our patch;
#                     fuse-native, the libfuse 2 fallback; better-sqlite3) and their deps
#   native/           computerd's own addons (fuse_dev, memory)
#   node/             the Node that runs it all: the project's (.node-version), the very
#                     binary the addons were built against, and npm for commands
#   image.json        what was built: Node version, ABI, npm, the addons and the ABI each needs
# The build ends with containers/check-abi: an addon built for another Node than
# the one in node/ fails the build here, not the container at boot.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/lib/node.sh
source containers/node-version.sh
require_project_node containers/build.sh
pkg=packages/computerd
out=containers/dist
# The packages' dist/ first, unless SKIP_PACKAGE_BUILD=1: the tests set it, since they run beside
# others that load those dist/ folders (scripts/setup built them), which a rebuild empties for a while.
if [[ ${SKIP_PACKAGE_BUILD:-0} != 1 ]]; then
  npx -y pnpm@12.4.2 --filter @cloudflare/dofs --filter @cloudflare/computer-rpc --filter @cloudflare/computerd run build
fi
[[ -f $pkg/dist/cli/main.js ]] || { echo "build.sh: $pkg is not built (npm run build)" >&2 && exit 1; }
rm -rf "$out" && mkdir -p "$out/node_modules"
"$pkg/node_modules/.bin/esbuild" "$pkg/dist/cli/main.js" --bundle --platform=node \
  --target="node${IMAGE_NODE_VERSION%%.*}" --format=esm \
  --external:fuse-napi --external:fuse-native --external:better-sqlite3 \
  --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" \
  --outfile="$out/computerd.mjs" --log-level=warning
# Resolved by computerd relative to its own module (egress/namespace.ts, egress/env.ts).
cp "$pkg/dist/egress/anchor.child.js" "$pkg/dist/egress/fetch-proxy.preload.cjs" "$out/"
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
# What the image never loads: fuse-napi's prebuilds (its build/Release, from source with our
# patch, comes first), other platforms' libraries and prebuilds, examples, objects and sources.
arch="$(node -p process.arch)"
(
  cd "$out/node_modules"
  rm -rf fuse-napi/prebuilds fuse-shared-library-darwin fuse-shared-library-linux/example better-sqlite3/deps better-sqlite3/src
  [[ $arch == arm64 ]] || rm -rf fuse-shared-library-linux-arm
  [[ $arch == x64 ]] || rm -rf fuse-shared-library-linux
  find fuse-native/prebuilds -mindepth 1 -maxdepth 1 ! -name "linux-$arch" -exec rm -rf {} +
  rm -f fuse-native/prebuilds/*/electron.napi.node
  find . -type d \( -name obj.target -o -name .deps -o -name obj \) -prune -exec rm -rf {} +
  rm -f better-sqlite3/build/Release/test_extension.node
)
# computerd's addons (fuse_dev: COMPUTERD_FUSE_DRIVER=kernel; memory: malloc_trim at idle), built from source by the package build.
mkdir -p "$out/native" && cp "$pkg/native/build/fuse_dev.node" "$pkg/native/build/memory.node" "$out/native/"

# The image's Node: the official binary of .node-version (npm package node-linux-<arch>), and npm.
node_cache=.cache/image-node/$IMAGE_NODE_VERSION-npm$IMAGE_NPM_VERSION
if [[ ! -x $node_cache/bin/node ]]; then
  package="$(node_package)"
  rm -rf "$node_cache" && mkdir -p "$node_cache/lib/node_modules" "$node_cache/bin"
  npm install --prefix "$node_cache/fetch" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    "$package@$IMAGE_NODE_VERSION" "npm@$IMAGE_NPM_VERSION" >/dev/null
  cp "$node_cache/fetch/node_modules/$package/bin/node" "$node_cache/bin/node"
  mv "$node_cache/fetch/node_modules/npm" "$node_cache/lib/node_modules/npm"
  rm -rf "$node_cache/fetch"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$node_cache/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$node_cache/bin/npx"
fi
cp -a "$node_cache" "$out/node"

node containers/check-abi.mjs "$out"
echo "built $out ($(du -sh "$out" | cut -f1): computerd.mjs, native modules, Node $IMAGE_NODE_VERSION)"
