#!/usr/bin/env bash
# Builds the addon with AddressSanitizer into a scratch directory and runs this package's CPU
# tests with it: the driver conformance suite over the fake libcuda (testing/fake-libcuda, in its
# ordinary calloc/free mode, which ASan watches) and the fake-driver tests. Fails on any ASan
# report, crashed process, or failing test not listed in scripts/asan-unmodeled.txt. node itself is not instrumented: libasan is preloaded, and leak detection is off
# because node leaks by design at exit.
#   bash packages/driver-napi/scripts/test-asan.sh
# The ASan addon is put in build/Release (searched before prebuilds/) only while the tests run;
# the ordinary build and any prebuilt binary are set aside and restored.
set -euo pipefail
package="$(cd "$(dirname "$0")/.." && pwd)"
root="$(cd "$package/../.." && pwd)"
started=$SECONDS

libasan="$(gcc -print-file-name=libasan.so)"
if [ ! -e "$libasan" ] || [ "$libasan" = "libasan.so" ]; then
  echo "test-asan: no libasan.so from gcc; install libasan (gcc's AddressSanitizer runtime)" >&2
  exit 1
fi

scratch="$(mktemp -d "${TMPDIR:-/tmp}/cumem-asan-XXXXXX")"
prebuild_dir="$package/prebuilds/linux-x64"
release_dir="$package/build/Release"
addon="$release_dir/cumem_napi.node"
# The ordinary addon and a prebuilt binary (`pnpm build:prebuilt`) are set aside while the ASan
# one is there, then restored.
saved_prebuilds=""
if [ -d "$prebuild_dir" ]; then
  saved_prebuilds="$scratch/prebuilds-saved"
  mv "$prebuild_dir" "$saved_prebuilds"
fi
saved_addon=""
if [ -f "$addon" ]; then
  saved_addon="$scratch/addon-saved.node"
  mv "$addon" "$saved_addon"
fi
cleanup() {
  rm -f "$addon"
  [ -n "$saved_addon" ] && mv "$saved_addon" "$addon"
  [ -n "$saved_prebuilds" ] && mkdir -p "$package/prebuilds" && mv "$saved_prebuilds" "$prebuild_dir"
  rm -rf "$scratch"
}
trap cleanup EXIT

# A copy of what node-gyp needs, so the ordinary build/ is left alone.
cp -r "$package/binding.gyp" "$package/native" "$scratch/"
ln -s "$package/node_modules" "$scratch/node_modules"
gyp="$(node -e "console.log(require.resolve('node-gyp/bin/node-gyp.js', { paths: ['$package'] }))" 2>/dev/null ||
  echo "$(dirname "$(dirname "$(command -v node)")")/lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js")"
nodedir="$(dirname "$(dirname "$(command -v node)")")"
nodedir_arg=()
[ -e "$nodedir/include/node/node_api.h" ] && nodedir_arg=("--nodedir=$nodedir")
echo "test-asan: building the addon with -fsanitize=address in $scratch"
(cd "$scratch" &&
  CXXFLAGS="-fsanitize=address -fno-omit-frame-pointer -g" LDFLAGS="-fsanitize=address" \
    node "$gyp" rebuild "${nodedir_arg[@]}" -j 2 >"$scratch/build.log" 2>&1) || {
  tail -40 "$scratch/build.log"
  exit 1
}
mkdir -p "$release_dir"
cp "$scratch/build/Release/cumem_napi.node" "$addon"
echo "test-asan: built in $((SECONDS - started)) s"

fake_dir="$(dirname "$(node "$root/testing/fake-libcuda/build.mjs" "$scratch/fake")")"
log="$scratch/asan"
# allocator_may_return_null: the conformance suite asks for absurd sizes and expects OUT_OF_MEMORY.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:allocator_may_return_null=1:log_path=$log"
# The conformance suite loads libcuda.so.1: the fake, found through LD_LIBRARY_PATH.
status=0
(cd "$package" &&
  LD_PRELOAD="$libasan" LD_LIBRARY_PATH="$fake_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" CUMEM_TEST_DRIVERS=napi \
    node "$root/node_modules/vitest/vitest.mjs" run --pool=forks --reporter=default --reporter=json \
    --outputFile.json="$scratch/results.json" src/napi-driver.test.ts test/fake-driver.test.ts) \
  >"$scratch/vitest.log" 2>&1 || status=$?
reports=$(cat "$log".* 2>/dev/null | grep -c "ERROR: AddressSanitizer" || true)
if [ "$reports" != "0" ]; then
  cat "$log".* >&2
fi
# Gated: ASan reports, crashed test processes, and which tests fail. The fake does not model every
# error case of a real driver, so some conformance tests fail over it by design: they are listed
# in scripts/asan-unmodeled.txt with the failure each is expected to give, and any other failure (a listed test failing otherwise, or a listed test that now passes, so the
# list stays exact) fails the step. UPDATE_UNMODELED=1 rewrites the list from this run.
crashed=$(grep -cE "Worker exited unexpectedly|Channel closed|Segmentation fault|SIGSEGV|SIGABRT" "$scratch/vitest.log" || true)
grep -E "^ +Tests |^ +Test Files " "$scratch/vitest.log" || tail -20 "$scratch/vitest.log"
if [ "$crashed" != "0" ]; then
  grep -nE -B5 -A20 "Worker exited unexpectedly|Channel closed|Segmentation fault|SIGSEGV|SIGABRT" "$scratch/vitest.log" | head -80
fi
unmodeled_status=0
node "$package/scripts/compare-unmodeled.mjs" "$scratch/results.json" "$package/scripts/asan-unmodeled.txt" ||
  unmodeled_status=$?
echo "test-asan: $reports AddressSanitizer error(s), $crashed crashed test process(es); vitest exit $status;" \
  "failures against the unmodeled list: $([ "$unmodeled_status" = 0 ] && echo as listed || echo DIFFER); $((SECONDS - started)) s in all"
[ "$reports" = "0" ] && [ "$crashed" = "0" ] && [ "$unmodeled_status" = "0" ]
