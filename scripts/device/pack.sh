#!/usr/bin/env bash
# Builds the workspace here and packs what the GPU machine needs into .device/ (git-ignored):
#   .device/node.xz            this machine's node binary, xz-compressed (the GPU machine has none)
#   .device/workspace.tar.xz   every package's dist/, the N-API addon's .node (built and prebuilt), and the
#                              node_modules the tests and benchmarks need (pnpm layout kept)
#   .device/commit.txt         the commit packed (the copy sent to the GPU machine has no .git)
# Then on the GPU machine: `bash scripts/device/run.sh` with carry ['.device'].
#
# Usage: bash scripts/device/pack.sh [--skip-build] [--allow-build-failures] [--baseline COMMIT]
#
# --baseline COMMIT also packs the BUILT packages of an earlier commit, so one device call can run
# the JS rows of both commits side by side (issue 44: "no row worse than before"; bench/compare.mjs,
# `BENCH_BASELINE=1 bash scripts/device/run.sh bench`, or `run.sh compare` alone). The commit is
# checked out with `git worktree add` into .device-carry/baseline-src (git-ignored, not carried),
# installed offline from the same pnpm store and built there. Only what differs between the commits travels, in .device/baseline.tar.xz:
# every package's dist/ and package.json and the N-API addon's .node files; on the GPU machine
# run.sh copies the unpacked tree to /tmp/cumem-baseline and lays these over it, so the baseline
# runs the same bench scripts and node_modules with the earlier packages.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
skip_build=0
allow_build_failures=0
baseline_commit=
while [ "$#" -gt 0 ]; do
  case "$1" in
    --skip-build) skip_build=1 ;;
    --allow-build-failures) allow_build_failures=1 ;;
    --baseline) baseline_commit=${2:?--baseline needs a commit}; shift ;;
    *) echo "pack.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

limit_mib=60
mkdir -p .device
step() { echo "== pack: $*"; }

# 1. Build. pnpm -r runs each package's own `build` (tsc -b; the N-API package also compiles its
# addon) in dependency order; --no-bail builds what it can and reports the rest.
build_status=0
if [ "$skip_build" = 0 ]; then
  step "building every package (log: .device/build.log)"
  export COREPACK_INTEGRITY_KEYS=0
  set +e
  pnpm -r --no-bail build >.device/build.log 2>&1
  build_status=$?
  set -e
  tail -n 25 .device/build.log
  if [ "$build_status" != 0 ]; then
    echo "pack: the build FAILED (exit $build_status); see .device/build.log" >&2
    if [ "$allow_build_failures" = 0 ]; then
      echo "pack: stopping (pass --allow-build-failures to pack what did build)" >&2
      exit 1
    fi
  fi
fi
# The prebuilt N-API binary a published package carries (run.sh's prebuilt-addon stage loads it on
# the GPU machine); prebuilds/ is not committed.
if [ "$skip_build" = 0 ]; then
  step "prebuilt N-API binary (scripts/prebuild.cjs)"
  if ! node packages/driver-napi/scripts/prebuild.cjs >>.device/build.log 2>&1; then
    echo "pack: the prebuilt binary FAILED; see .device/build.log" >&2
    [ "$allow_build_failures" = 1 ] || exit 1
  fi
fi
missing=()
for package_json in packages/*/package.json testing/*/package.json; do
  directory=$(dirname "$package_json")
  # Only packages that publish a dist/ (the crash suite's and the fake libcuda's builds compile C).
  if grep -q '"\./dist/' "$package_json" && [ ! -f "$directory/dist/index.js" ]; then missing+=("$directory/dist"); fi
done
if ! ls packages/driver-napi/build/Release/*.node >/dev/null 2>&1 && ! [ -d packages/driver-napi/prebuilds ]; then
  missing+=("packages/driver-napi/build/Release/*.node")
fi
if [ "${#missing[@]}" != 0 ]; then
  echo "pack: WARNING, not built (their tests still run from src/, their benchmarks will fail): ${missing[*]}" >&2
fi

# 2. The commit, for the results (a '-dirty' suffix when the tree differs from it).
step "commit"
if commit=$(git rev-parse HEAD 2>/dev/null); then
  if [ -n "$(git status --porcelain 2>/dev/null)" ]; then commit="$commit-dirty"; fi
else
  commit=unknown
fi
echo "$commit" >.device/commit.txt
cat .device/commit.txt

# 3. node, compressed. A ready copy in .device-carry/ is reused.
step "node $(node -v)"
if [ -f .device-carry/node.xz ]; then
  ln -f .device-carry/node.xz .device/node.xz 2>/dev/null || cp .device-carry/node.xz .device/node.xz
elif [ ! -f .device/node.xz ] || [ "$(command -v node)" -nt .device/node.xz ]; then
  xz -9 -T0 -c "$(readlink -f "$(command -v node)")" >.device/node.xz
fi
node -v >.device/node-version.txt

# 4. The workspace archive.
step "workspace.tar.xz"
node scripts/device/pack-list.mjs --verbose >.device/pack-list.txt
tar -C "$root" --owner=0 --group=0 -cf - -T .device/pack-list.txt | xz -9 -T0 >.device/workspace.tar.xz.partial
mv .device/workspace.tar.xz.partial .device/workspace.tar.xz

# 4b. The baseline (--baseline COMMIT).
pack_baseline() {
  local commit=$1
  source_dir=.device-carry/baseline-src
  mkdir -p .device-carry

  if [ -d "$source_dir" ]; then
    git worktree remove --force "$source_dir" 2>/dev/null || rm -rf "$source_dir"
    git worktree prune
  fi
  git worktree add --detach "$source_dir" "$commit"
  resolved=$(git -C "$source_dir" rev-parse HEAD)
  echo "== pack-baseline: $resolved in $source_dir (log: .device/baseline-build.log)"
  (
    cd "$source_dir"
    export COREPACK_INTEGRITY_KEYS=0
    pnpm install --offline --frozen-lockfile && pnpm -r --no-bail build
  ) >.device/baseline-build.log 2>&1 || {
    echo "pack-baseline: the baseline build FAILED; see .device/baseline-build.log" >&2
    tail -n 20 .device/baseline-build.log >&2
    exit 1
  }

  # What differs between the commits: dist/, package.json, the addon. Paths relative to the root.
  (
    cd "$source_dir"
    for directory in packages/* testing/*; do
      [ -f "$directory/package.json" ] || continue
      echo "$directory/package.json"
      [ -d "$directory/dist" ] && echo "$directory/dist"
    done
    ls packages/driver-napi/build/Release/*.node 2>/dev/null || true
  ) >.device/baseline-list.txt
  tar -C "$source_dir" --owner=0 --group=0 -cf - -T .device/baseline-list.txt | xz -9 -T0 >.device/baseline.tar.xz
  echo "$resolved" >.device/baseline-commit.txt
  du -h .device/baseline.tar.xz
  device_bytes=$(du -sb .device | cut -f1)
  tree_bytes=$( (git ls-files -z --cached --others --exclude-standard 2>/dev/null |
    du -cb --files0-from=- 2>/dev/null | tail -n 1 | cut -f1) || true)
  total=$((device_bytes + ${tree_bytes:-0}))
  echo "pack-baseline: .device + working tree = $((total / 1048576)) MiB (device limit 64 MiB)"
  if [ "$total" -gt $((63 * 1048576)) ]; then
    echo "pack-baseline: over 63 MiB: the GPU machine would refuse it" >&2
    exit 1
  fi
}
rm -f .device/baseline.tar.xz .device/baseline-commit.txt
if [ -n "$baseline_commit" ]; then
  step "baseline $baseline_commit"
  pack_baseline "$baseline_commit"
fi

# 5. Sizes: .device travels as a carried path, beside the tracked and untracked-not-ignored files.
step "sizes"
du -h .device/node.xz .device/workspace.tar.xz
device_bytes=$(du -sb .device | cut -f1)
# (du is told every file once; files deleted but still in the index only make it complain.)
tree_bytes=$( (git ls-files -z --cached --others --exclude-standard 2>/dev/null |
  du -cb --files0-from=- 2>/dev/null | tail -n 1 | cut -f1) || true)
tree_bytes=${tree_bytes:-0}
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
echo "pack: .device $(mib "$device_bytes") MiB + working tree $(mib "$tree_bytes") MiB = $(mib $((device_bytes + tree_bytes))) MiB (device limit 64 MiB)"
if [ "$device_bytes" -gt $((limit_mib * 1048576)) ]; then
  echo "pack: .device is over ${limit_mib} MiB" >&2
  exit 1
fi
if [ $((device_bytes + tree_bytes)) -gt $((63 * 1048576)) ]; then
  echo "pack: .device plus the working tree is over 63 MiB: the GPU machine would refuse it" >&2
  exit 1
fi
echo "pack: done. On the GPU machine: bash scripts/device/run.sh MODE...   (carry: ['.device']); the calls of a session: bash scripts/device/run.sh plan"
[ -n "$baseline_commit" ] && echo "pack: the baseline $(cat .device/baseline-commit.txt) is packed: BENCH_BASELINE=1 bash scripts/device/run.sh bench (or run.sh compare)"
if [ "$build_status" != 0 ]; then exit 3; fi
