#!/usr/bin/env bash
# Builds the workspace image's root filesystem without Docker, from the same
# inputs as containers/Dockerfile: Debian bookworm (minbase, as debian:bookworm-slim
# is) with containers/packages.txt, and containers/dist/ (containers/build.sh) at
# /opt/computerd. The local container host boots computerd inside it
# (`computerd host --rootfs DIR`).
#
#   bash containers/rootfs.sh        # prints the rootfs directory on its last line
#
# Cached under .cache/image/: the Debian part by packages.txt and this script
# (a few minutes with mmdebstrap the first time), the image by that and dist/'s
# contents, so a re-run with nothing changed only hashes dist/.
# SKIP_BUILD=1 takes containers/dist/ as it is instead of running build.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cache=.cache/image
# One build at a time: test projects running in parallel each ask for the image.
mkdir -p "$cache" && exec 9>"$cache/.lock" && flock 9
log() { printf '\033[1;34m[rootfs]\033[0m %s\n' "$*" >&2; }
[[ ${SKIP_BUILD:-0} == 1 ]] || bash containers/build.sh >&2
[[ -f containers/dist/image.json ]] || { echo "rootfs: containers/dist is not built (containers/build.sh)" >&2 && exit 1; }
command -v mmdebstrap >/dev/null || { echo "rootfs: mmdebstrap is needed (apt-get install mmdebstrap; scripts/setup does)" >&2 && exit 1; }

mapfile -t packages < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' containers/packages.txt | grep -v '^$')
base_key="$(cat containers/packages.txt containers/rootfs.sh | sha256sum | cut -c1-16)"
config_key="$(cat containers/Dockerfile containers/image-config.mjs | sha256sum | cut -c1-8)"
dist_key="$(cd containers/dist && find . -type f -o -type l | LC_ALL=C sort | xargs -d '\n' sha256sum 2>/dev/null | sha256sum | cut -c1-16)"
base=$cache/base-$base_key
image=$cache/rootfs-$base_key-$dist_key-$config_key

if [[ ! -f $base.done ]]; then
  log "mmdebstrap bookworm minbase + ${#packages[@]} packages into $base"
  rm -rf "$base" "$cache"/base-* && mkdir -p "$cache"
  # Trimmed as Debian's slim images are: no manuals, docs or translations.
  mmdebstrap --variant=minbase --include="$(
    IFS=,
    echo "${packages[*]}"
  )" \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' \
    bookworm "$base" \
    "deb http://deb.debian.org/debian bookworm main" \
    "deb http://deb.debian.org/debian bookworm-updates main" \
    "deb http://deb.debian.org/debian-security bookworm-security main" >&2
  touch "$base.done"
fi

if [[ ! -f $image.done ]]; then
  log "image $image: base + containers/dist at /opt/computerd"
  rm -rf "$cache"/rootfs-* && mkdir -p "$image"
  cp -a "$base/." "$image/"
  mkdir -p "$image/opt/computerd" "$image/workspace"
  cp -a containers/dist/. "$image/opt/computerd/"
  # The Dockerfile's ENV and ENTRYPOINT, for whoever boots this directory (the local container host).
  node containers/image-config.mjs containers/Dockerfile >"$image/opt/computerd/image-config.json"
  touch "$image.done"
fi
log "$(du -sh "$image" | cut -f1) in $image"
realpath "$image"
