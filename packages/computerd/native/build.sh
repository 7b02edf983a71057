#!/usr/bin/env bash
# Builds computerd's addons with the system C compiler against the running
# Node's headers (no node-gyp, no download): fuse_dev.node (computerd's own
# FUSE layer's native part) and memory.node (malloc_trim for idle reclaim).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
node_include="$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")/include/node"
[[ -f $node_include/node_api.h ]] || node_include=/usr/include/node
mkdir -p build
for name in fuse_dev memory; do
  [[ build/$name.node -nt $name.c ]] && continue
  cc -O2 -Wall -Wextra -Wno-unused-parameter -fPIC -shared -DNODE_GYP_MODULE_NAME=$name \
    -I"$node_include" -o build/$name.node.tmp $name.c
  mv build/$name.node.tmp build/$name.node
done
