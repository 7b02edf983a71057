# Sourced by containers/build.sh: the Node the image runs is the project's own
# (.node-version), the one whose ABI the bundle's native modules are built
# for. The npm beside it is pinned here (the npm package of Node has no npm).
IMAGE_NODE_VERSION="$(tr -d '[:space:]' <"$(dirname "${BASH_SOURCE[0]}")/../.node-version")"
IMAGE_NPM_VERSION=11.21.3
