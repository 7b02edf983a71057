#!/usr/bin/env bash
# Builds computerd's addons with the system C compiler against the running
# Node's headers (no node-gyp, no download): fuse_dev.node (computerd's own
# FUSE layer's native part, with its io_uring transport in fuse_uring.c)
# and memory.node (malloc_trim for idle reclaim).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
node_include="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")/include/node"
[[ -f $node_include/node_api.h ]] || node_include=/usr/include/node
mkdir -p build
build() {
  local name=$1
  shift
  local fresh=1 source
  for source in "$@"; do [[ build/$name.node -nt $source ]] || fresh=0; done
  ((fresh)) && return 0
  cc -O2 -Wall -Wextra -Wno-unused-parameter -fPIC -shared -DNODE_GYP_MODULE_NAME=$name \
    -I"$node_include" -o build/$name.node.tmp $(printf '%s\n' "$@" | grep '\.c$')
  mv build/$name.node.tmp build/$name.node
}
build fuse_dev fuse_dev.c fuse_uring.c fuse_uring.h
build memory memory.c
