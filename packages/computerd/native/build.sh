#!/usr/bin/env bash
# Builds fuse_dev.node (computerd's own FUSE layer's native part) with the
# system C compiler against the running Node's headers: no node-gyp, no download.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
node_include="$(dirname "$(dirname "$(command -v node)")")/include/node"
[[ -f $node_include/node_api.h ]] || node_include=/usr/include/node
mkdir -p build
[[ build/fuse_dev.node -nt fuse_dev.c ]] && exit 0
cc -O2 -Wall -Wextra -Wno-unused-parameter -fPIC -shared -DNODE_GYP_MODULE_NAME=fuse_dev \
  -I"$node_include" -o build/fuse_dev.node.tmp fuse_dev.c
mv build/fuse_dev.node.tmp build/fuse_dev.node
