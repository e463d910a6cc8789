#!/usr/bin/env bash
# An arm64 Node for the tarball smoke test's qemu-user load of the linux-arm64 prebuilt binary:
# Debian's nodejs:arm64 and the libraries it needs, unpacked (dpkg -x, nothing installed) into
# a sysroot that `qemu-aarch64 -L <sysroot> <sysroot>/usr/bin/node` runs. Also installs the
# cross compiler and qemu-user (root, Debian/Ubuntu). Prints the sysroot's path on its last line.
# Usage: bash scripts/smoke/arm64-node.sh [sysroot]   (default: $TMPDIR/cumem-arm64-node)
set -euo pipefail
sysroot=${1:-${TMPDIR:-/tmp}/cumem-arm64-node}
if [ -x "$sysroot/usr/bin/node" ] && command -v qemu-aarch64 >/dev/null && command -v aarch64-linux-gnu-g++ >/dev/null; then
  echo "$sysroot"
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
apt-get update -qq
apt-get install -y -qq --no-install-recommends g++-aarch64-linux-gnu qemu-user >/dev/null
# nodejs:arm64 with its shared libraries, and the arch-independent modules Debian's node loads.
packages=(nodejs:arm64 libnode108:arm64 libc6:arm64 libstdc++6:arm64 libgcc-s1:arm64 libbrotli1:arm64
  libc-ares2:arm64 libicu72:arm64 libnghttp2-14:arm64 libssl3:arm64 libuv1:arm64 zlib1g:arm64
  node-acorn node-cjs-module-lexer node-undici node-xtend)
downloads=$(mktemp -d)
(cd "$downloads" && chmod 777 . && apt-get download -qq "${packages[@]}" >/dev/null)
mkdir -p "$sysroot"
for deb in "$downloads"/*.deb; do dpkg -x "$deb" "$sysroot"; done
rm -rf "$downloads"
qemu-aarch64 -L "$sysroot" "$sysroot/usr/bin/node" -p '`arm64 node ${process.version} (${process.arch})`' >&2
echo "$sysroot"
