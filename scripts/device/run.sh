#!/usr/bin/env bash
# Runs ON the GPU machine, in the root of the copy of the working tree, with .device/ carried
# (made here by scripts/device/pack.sh):
#
#   bash scripts/device/run.sh [all|tests|bench|quick|compare|sanitize|probes]        (default: all)
#
# The bench (issue 47) in one call of at most 10 minutes on a one-GPU machine:
#   bash scripts/device/run.sh bench      every suite, every row in BENCH_PROCESSES (5) interleaved
#                                         processes per implementation; BENCH_TIMEOUT (545 s for
#                                         `bench`); bench.json is rewritten after every round
#   bash scripts/device/run.sh quick      one process each, one repetition (bench/run.mjs --quick):
#                                         does everything start? into bench-quick.json / .log
#   bash scripts/device/run.sh compare    the JS rows of this tree and of the packed baseline
#                                         (pack.sh --baseline COMMIT), interleaved (bench/compare.mjs),
#                                         into compare.json / compare.log; COMPARE_TIMEOUT (545 s)
#
# Stages, each run even when an earlier one failed: unpack node to /tmp/node/bin, unpack the
# workspace archive over the tree, record the environment, `node scripts/test-gpu.mjs`,
# `node bench/run.mjs`. The exit code is 0 only when every stage that ran succeeded.
# Files written to $OUT (they come back): run.log, env.txt, test-gpu.log, test-gpu-summary.txt, demo.txt, readme-gpu.txt,
# prebuilt-addon.txt, test-gpu.json, bench.json, bench.log; `sanitize` (not part of `all`) writes sanitize.log.
# `sanitize`: compute-sanitizer memcheck over each crash case (both adapters, real libcuda) and a
# few GPU test files; fails on any reported error. Limit: SANITIZE_TIMEOUT (480).
# `probes` (not part of `all`): PROBE_SET (comma-separated, default `vmm`) chooses them. `compile`:
# see run_compile_probe; `ab`: see run_ab_probe; `copygap`: see run_copy_gap_probe. `vmm`: two open questions of the bench in one call, written to probe.txt:
# - where vmm.allocateFree2MiB's time goes against C, in rounds of fresh processes
#   (PROBE_ROUNDS, 5): bench/probes/vmm-placement.c's quick C pair, then
#   bench/probes/vmm-memory-vs-bare.mjs over each adapter with C's own loop loaded into the same
#   Node process (bench/probes/vmm-pair-lib.c);
# - whether memory.deviceAllocateClose4KiB depends on when in its process it runs, and whether
#   its consecutive repetitions differ from the same closure interleaved with the bare pair
#   (bench/js/allocate-close-order.mjs, two processes per adapter);
# - PROBE_PROFILE=1: CPU profiles and V8 traces of both, in profiles/ (see profile_probes).
# Time limits (seconds, environment): TEST_TIMEOUT (240), BENCH_TIMEOUT (200). BENCH_SUITES
# (comma-separated) runs only those bench suites; BENCH_ROUNDS and BENCH_MERGE: see run_bench. Together with
# unpacking, `all` stays under 8 minutes; `tests` and `bench` can go in separate calls.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
what=${1:-all}
case "$what" in all | tests | bench | quick | compare | sanitize | probes) ;; *) echo "usage: bash scripts/device/run.sh [all|tests|bench|quick|compare|sanitize|probes]" >&2; exit 2 ;; esac
OUT=${OUT:-/tmp/cumem-device-out}
export OUT
mkdir -p "$OUT"
export PATH="/tmp/node/bin:${CUDA_HOME:-/usr/local/cuda}/bin:$PATH"
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export PYTHONUNBUFFERED=1
test_timeout=${TEST_TIMEOUT:-240}
# Alone, the bench takes the call (10 minutes, less unpacking); after the tests, what is left.
if [ "$what" = bench ]; then bench_timeout=${BENCH_TIMEOUT:-545}; else bench_timeout=${BENCH_TIMEOUT:-200}; fi
started=$SECONDS
failed=()

log() { echo "[run.sh +$((SECONDS - started))s] $*" | tee -a "$OUT/run.log"; }

# stage NAME COMMAND...: runs one stage, records its outcome, never stops the script.
stage() {
  local name=$1
  shift
  log "stage $name: start"
  "$@"
  local status=$?
  if [ "$status" = 0 ]; then log "stage $name: ok"; else log "stage $name: FAILED (exit $status)"; failed+=("$name"); fi
  return 0
}

unpack_node() {
  if [ ! -f .device/node.xz ]; then
    echo "no .device/node.xz: run scripts/device/pack.sh on the development machine and carry ['.device']" >&2
    return 1
  fi
  mkdir -p /tmp/node/bin && xz -dc .device/node.xz >/tmp/node/bin/node && chmod +x /tmp/node/bin/node &&
    /tmp/node/bin/node -e 'console.log(`node ${process.version} at ${process.execPath}`)'
}

unpack_workspace() {
  if [ ! -f .device/workspace.tar.xz ]; then
    echo "no .device/workspace.tar.xz: run scripts/device/pack.sh and carry ['.device']" >&2
    return 1
  fi
  xz -dc .device/workspace.tar.xz | tar -xf - -C "$root" && echo "unpacked $(wc -l <.device/pack-list.txt) paths"
}

environment_facts() {
  {
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $(cat .device/commit.txt 2>/dev/null || echo unknown)"
    echo "uname: $(uname -srm)"
    echo "cpus: $(nproc)"
    echo "== nvidia-smi"
    if command -v nvidia-smi >/dev/null; then
      nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used,clocks.sm,clocks.mem --format=csv 2>&1
    else
      echo "nvidia-smi not found"
    fi
    echo "== node"
    node -v 2>&1
    echo "== nvcc"
    nvcc --version 2>&1 | tail -n 2
    echo "== cc"
    (cc --version 2>&1 || gcc --version 2>&1) | head -n 1
    echo "== python"
    python3 - <<'PYTHON' 2>&1
import sys
print("python", sys.version.split()[0], sys.executable)
for path in ("cuda.core", "cuda.core.experimental"):
    try:
        module = __import__(path, fromlist=["Device"])
        if hasattr(module, "Device"):
            import importlib.metadata as metadata
            print("cuda.core", metadata.version("cuda-core"), "imported as", path)
            break
    except Exception as error:
        print("import", path, "failed:", error)
for name in ("cuda-bindings", "cupy-cuda13x", "pyarrow", "numpy", "torch"):
    try:
        import importlib.metadata as metadata
        print(name, metadata.version(name))
    except Exception as error:
        print(name, "missing:", error)
try:
    import pyarrow.cuda  # noqa: F401
    print("pyarrow.cuda available")
except Exception as error:
    print("pyarrow.cuda unavailable:", error)
PYTHON
  } >"$OUT/env.txt"
  cat "$OUT/env.txt"
}

run_tests() {
  set -o pipefail
  # The GPU machine has python3 with cuda.core: the Python hand-off tests must run, not skip.
  # TEST_FILTER (vitest file filters, space-separated) runs only those files: a check of a few
  # files when the session's device time cannot pay for the whole suite. Not a test:gpu run.
  # shellcheck disable=SC2086
  CUMEM_REQUIRE_PYTHON=1 timeout -k 10 "$test_timeout" node scripts/test-gpu.mjs --isolate ${TEST_FILTER:-} 2>&1 | tee "$OUT/test-gpu.log"
  local status=$?
  set +o pipefail
  [ "$status" = 124 ] && echo "test-gpu.mjs stopped after ${test_timeout} s (TEST_TIMEOUT)"
  return "$status"
}

run_bench() {
  set -o pipefail
  # BENCH_SUITES (e.g. `multi`) limits the run to those suites (bench/run.mjs --suites);
  # BENCH_ROUNDS runs each implementation that many interleaved times (bench/rounds.mjs);
  # BENCH_MERGE names an earlier bench.json (carried in .device-carry/) whose other suites' rows
  # join this run's, so a bench split over two calls ends in one results file.
  # BENCH_SINGLE_THREAD_C (set, even empty) passes --single-thread-c: the suites whose C floor
  # runs a second time single-threaded (an informative variant; '' for none saves ~45 s a host).
  # BENCH_PROCESSES (5), BENCH_MAX_REPS (3), BENCH_MAX_WARMUP_MS (500): bench/run.mjs's
  # --processes, --max-reps, --max-warmup-ms. The budget leaves 15 s to write and report.
  timeout -k 10 "$bench_timeout" node bench/run.mjs --out "$OUT/bench.json" --budget $((bench_timeout - 15)) --timeout 120 \
    ${BENCH_SUITES:+--suites "$BENCH_SUITES"} ${BENCH_ROUNDS:+--processes "$BENCH_ROUNDS"} \
    ${BENCH_PROCESSES:+--processes "$BENCH_PROCESSES"} ${BENCH_MAX_REPS:+--max-reps "$BENCH_MAX_REPS"} \
    ${BENCH_MAX_WARMUP_MS:+--max-warmup-ms "$BENCH_MAX_WARMUP_MS"} \
    ${BENCH_SINGLE_THREAD_C+--single-thread-c "$BENCH_SINGLE_THREAD_C"} \
    ${BENCH_MERGE:+--merge "$BENCH_MERGE"} 2>&1 |
    tee "$OUT/bench.log"
  local status=$?
  set +o pipefail
  [ "$status" = 124 ] && echo "bench/run.mjs stopped after ${bench_timeout} s (BENCH_TIMEOUT)"
  return "$status"
}

: >"$OUT/run.log"
log "run.sh $what in $root, results to $OUT"
stage unpack-node unpack_node
stage unpack-workspace unpack_workspace
stage environment environment_facts
if [ "$what" = all ] || [ "$what" = tests ]; then stage test-gpu run_tests; fi
# The README's first command ends in `pnpm demo`: run the tour as a user would see it.
run_demo() {
  timeout -k 5 60 node packages/memory/demo/tour.mjs 2>&1 | tee "$OUT/demo.txt"
  return "${PIPESTATUS[0]}"
}
if [ "$what" = all ] || [ "$what" = tests ]; then stage demo run_demo; fi
# Issue 46: the README blocks marked gpu-only (the others run in CI on the reference driver).
run_readme_gpu() {
  timeout -k 5 180 node scripts/readme-blocks.mjs --gpu 2>&1 | tee "$OUT/readme-gpu.txt"
  return "${PIPESTATUS[0]}"
}
if [ "$what" = all ] || [ "$what" = tests ]; then stage readme-gpu run_readme_gpu; fi
# Issue 12: the N-API adapter from the prebuilt binary a published package carries, on the GPU.
run_prebuilt() {
  timeout -k 5 60 node scripts/device/prebuilt-addon.mjs 2>&1 | tee "$OUT/prebuilt-addon.txt"
  return "${PIPESTATUS[0]}"
}
if [ "$what" = all ] || [ "$what" = tests ]; then stage prebuilt-addon run_prebuilt; fi
if [ "$what" = all ] || [ "$what" = bench ]; then stage bench run_bench; fi

# `quick`: every suite once per implementation with one repetition: does everything start?
run_quick() {
  set -o pipefail
  timeout -k 10 "${QUICK_TIMEOUT:-300}" node bench/run.mjs --quick --out "$OUT/bench-quick.json" \
    --budget $((${QUICK_TIMEOUT:-300} - 15)) --timeout 90 ${BENCH_SUITES:+--suites "$BENCH_SUITES"} 2>&1 |
    tee "$OUT/bench-quick.log"
  local status=$?
  set +o pipefail
  return "$status"
}
if [ "$what" = quick ]; then stage quick run_quick; fi

# `compare`: the baseline's packages (pack.sh --baseline) laid over a copy of this tree, then
# bench/compare.mjs runs the JS rows of both interleaved.
run_compare() {
  [ -f .device/baseline.tar.xz ] || { echo "no .device/baseline.tar.xz: pack.sh --baseline COMMIT" >&2; return 1; }
  local base=/tmp/cumem-baseline limit=${COMPARE_TIMEOUT:-545}
  rm -rf "$base" && mkdir -p "$base" || return 1
  # The unpacked tree (node_modules, bench scripts), then the baseline's packages over it.
  tar -C "$root" --exclude=./.device --exclude=./.git -cf - . | tar -C "$base" -xf - || return 1
  local directory
  for directory in "$base"/packages/*/dist "$base"/testing/*/dist; do rm -rf "$directory"; done
  xz -dc .device/baseline.tar.xz | tar -xf - -C "$base" || return 1
  echo "baseline $(cat .device/baseline-commit.txt) at $base"
  set -o pipefail
  timeout -k 10 "$limit" node bench/compare.mjs --base "$base" --out "$OUT/compare.json" --budget $((limit - 15)) \
    ${COMPARE_SUITES:+--suites "$COMPARE_SUITES"} ${COMPARE_IMPLS:+--impls "$COMPARE_IMPLS"} \
    ${COMPARE_PROCESSES:+--processes "$COMPARE_PROCESSES"} ${COMPARE_MIN_PROCESSES:+--min-processes "$COMPARE_MIN_PROCESSES"} \
    2>&1 | tee "$OUT/compare.log"
  local status=$?
  set +o pipefail
  return "$status"
}
if [ "$what" = compare ]; then stage compare run_compare; fi

# compute-sanitizer memcheck: device-side invalid accesses that the crash cases' host-side checks
# cannot see. API errors are expected (the cases provoke refusals) and not reported. Leaks at exit
# are not checked (SANITIZE_LEAKS=1 turns it on): several cases end on purpose while a view or a
# dropped Buffer still holds memory, which a GC'd runtime frees in finalizers that never run at
# process exit (12 of 52 programs reported such memory in the first run; none an access error).
# Each case runs alone, on each adapter, so a report names its program. SANITIZE_CASES (a glob under
# testing/crash-suite/cases/) and SANITIZE_FILES (space-separated test files) choose a subset.
sanitize_one() {
  local label=$1 limit=$2
  shift 2
  echo "== $label" >>"$OUT/sanitize.log"
  local leaks=no
  [ "${SANITIZE_LEAKS:-0}" = 1 ] && leaks=full
  timeout -k 5 "$limit" compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 1 --target-processes all \
    --leak-check "$leaks" "$@" >>"$OUT/sanitize.log" 2>&1
  local status=$?
  # A program that makes no CUDA call (case 14 checks file descriptors only) is not an error.
  if [ "$status" != 0 ] && tail -n 3 "$OUT/sanitize.log" | grep -q 'terminated before first instrumented API call'; then
    return 0
  fi
  return "$status"
}
run_sanitize() {
  if ! command -v compute-sanitizer >/dev/null; then
    echo "compute-sanitizer not found in ${CUDA_HOME}/bin"
    return 1
  fi
  local deadline=$((SECONDS + ${SANITIZE_TIMEOUT:-480})) failures=0 runs=0 adapter file
  : >"$OUT/sanitize.log"
  for adapter in napi ffi; do
    for file in $(for pattern in ${SANITIZE_CASES:-'[0-9][0-9]*-*.mjs'}; do echo testing/crash-suite/cases/$pattern; done); do
      # The hostile-fake case dies of SIGSEGV by design; it has nothing to do on a GPU. A case whose
      # kernel faults on purpose (case 101) is exactly what memcheck reports: not an error here.
      grep -q '^// needs: fake' "$file" && continue
      grep -q '^// sanitize: faults on purpose' "$file" && continue
      # A case for two GPUs cannot run on one (the crash suite skips it there as not applicable).
      if grep -q '^// needs:.*devices2' "$file" && [ "$(nvidia-smi -L 2>/dev/null | wc -l)" -lt 2 ]; then continue; fi
      [ "$SECONDS" -ge "$deadline" ] && { echo "SANITIZE_TIMEOUT reached"; failures=$((failures + 1)); break 2; }
      runs=$((runs + 1))
      CUMEM_CRASH_DRIVER=$adapter CUMEM_DRIVER=$adapter \
        sanitize_one "$adapter $(basename "$file")" 120 node --expose-gc "$file" || failures=$((failures + 1))
    done
  done
  local files=${SANITIZE_FILES:-packages/memory/src/buffer/buffer.test.ts packages/memory/src/resources/managed/managed-buffer.test.ts \
packages/utils/src/copy-batch.test.ts packages/interop-arrow/src/cuda-buffer.test.ts \
packages/compute/src/launch.test.ts packages/memory/src/resources/virtual/virtual-memory-resource.test.ts packages/utils/src/dlpack.test.ts}
  for file in $files; do
    [ "$SECONDS" -ge "$deadline" ] && { echo "SANITIZE_TIMEOUT reached"; failures=$((failures + 1)); break; }
    runs=$((runs + 1))
    CUMEM_REQUIRE_GPU=1 NODE_OPTIONS=--expose-gc \
      sanitize_one "vitest $file" 180 node node_modules/vitest/vitest.mjs run --pool=forks "$file" || failures=$((failures + 1))
  done
  echo "compute-sanitizer error summaries (non-zero only):"
  grep -B1 'ERROR SUMMARY: [1-9]' "$OUT/sanitize.log" || echo "  none"
  echo "sanitize: $runs programs, $failures with errors or failures; log: \$OUT/sanitize.log"
  [ "$failures" = 0 ]
}
if [ "$what" = sanitize ]; then stage sanitize run_sanitize; fi

run_probes() {
  case ",${PROBE_SET:-vmm}," in *,compile,*) run_compile_probe || return 1 ;; esac
  case ",${PROBE_SET:-vmm}," in *,ab,*) run_ab_probe || return 1 ;; esac
  case ",${PROBE_SET:-vmm}," in *,copygap,*) run_copy_gap_probe || return 1 ;; esac
  case ",${PROBE_SET:-vmm}," in *,vmm,*) ;; *) return 0 ;; esac
  local include="$CUDA_HOME/include" build=/tmp/cumem-probes
  mkdir -p "$build"
  cc -O2 -shared -fPIC -I"$include" -o "$build/vmm-pair-lib.so" bench/probes/vmm-pair-lib.c -l:libcuda.so.1 &&
    cc -O2 -std=c11 -I"$include" -o "$build/vmm-placement" bench/probes/vmm-placement.c -l:libcuda.so.1 || return 1
  local round
  for round in $(seq 1 "${PROBE_ROUNDS:-5}"); do
    echo "== round $round"
    "$build/vmm-placement" 0 quick || echo "vmm-placement quick failed (exit $?)"
    for adapter in napi ffi; do
      VMM_PAIR_LIB="$build/vmm-pair-lib.so" timeout -k 5 120 node --expose-gc bench/probes/vmm-memory-vs-bare.mjs "$adapter" ||
        return 1
    done
    if [ "$round" -le 2 ]; then
      for adapter in ffi napi; do
        timeout -k 5 120 node --expose-gc bench/js/allocate-close-order.mjs "$adapter" || return 1
      done
    fi
  done 2>&1 | tee "$OUT/probe.txt"
  local status=${PIPESTATUS[0]}
  [ "${PROBE_PROFILE:-0}" = 1 ] && profile_probes "$build"
  return "$status"
}

# PROBE_SET=compile: why the compile rows ran slower in the N-API process (bench/js/compile-parts.mjs),
# PROBE_ROUNDS (5) rounds of one process per adapter, N-API and FFI in turn, into compile-probe.txt.
run_compile_probe() {
  local round adapter
  for round in $(seq 1 "${PROBE_ROUNDS:-5}"); do
    for adapter in napi ffi; do
      timeout -k 5 120 node bench/js/compile-parts.mjs --driver "$adapter" --reps "${PROBE_REPS:-7}" || return 1
    done
  done 2>&1 | tee -a "$OUT/compile-probe.txt"
  return "${PIPESTATUS[0]}"
}

# PROBE_SET=copygap: where multi.copyBatchCrossDevice's copyBatch loses to the bare driver call
# (bench/js/copy-batch-gap.mjs, forms taken in turn call by call, over each adapter), beside
# copyBatch's JS alone on this host's CPU (copy-batch-parts.mjs over the reference driver),
# PROBE_ROUNDS (3) rounds, into copy-gap-probe.txt.
run_copy_gap_probe() {
  local round adapter
  for round in $(seq 1 "${PROBE_ROUNDS:-3}"); do
    echo "== round $round"
    for adapter in ffi napi; do
      timeout -k 5 120 node bench/js/copy-batch-gap.mjs --driver "$adapter" --rounds "${PROBE_REPS:-200}" || return 1
    done
    timeout -k 5 120 node bench/js/copy-batch-parts.mjs --only copyCrossBatch,copyCrossAuto | tr -d '\n' || return 1
    echo
  done 2>&1 | tee -a "$OUT/copy-gap-probe.txt"
  return "${PIPESTATUS[0]}"
}

# PROBE_SET=ab: a before/after of one package's build on the GPU, where the bench rows move with
# the host by more than the change: AB_PACKAGE (a directory under packages/) has its dist replaced
# in turn by AB_BEFORE (that package's dist built at the earlier commit, carried in .device-carry/)
# and by the packed one, PROBE_ROUNDS (6) times, one process each running AB_COMMAND (default:
# allocate-close-parts.mjs over the FFI adapter), into ab-probe.txt.
run_ab_probe() {
  local package="packages/${AB_PACKAGE:?AB_PACKAGE names a directory under packages/}" before=${AB_BEFORE:?}
  local command=${AB_COMMAND:-node --expose-gc bench/js/allocate-close-parts.mjs --driver ffi --reps 7 --iterations 30000}
  [ -d "$before" ] || { echo "AB_BEFORE $before is not a directory" >&2; return 1; }
  rm -rf /tmp/cumem-ab-after && cp -r "$package/dist" /tmp/cumem-ab-after || return 1
  local round side
  for round in $(seq 1 "${PROBE_ROUNDS:-6}"); do
    for side in before after; do
      rm -rf "$package/dist"
      if [ "$side" = before ]; then cp -r "$before" "$package/dist"; else cp -r /tmp/cumem-ab-after "$package/dist"; fi
      echo "== round $round $side: $(timeout -k 5 120 $command 2>&1 | tail -n 1)"
    done
  done 2>&1 | tee -a "$OUT/ab-probe.txt"
  rm -rf "$package/dist" && cp -r /tmp/cumem-ab-after "$package/dist"
  return 0
}

# PROBE_PROFILE=1 adds, in $OUT/profiles/: a CPU profile of each adapter's VMM probe (where
# mr.allocate + close spends the time its bare calls do not), and the allocate + close order
# run of each adapter under --trace-gc / --trace-opt / --trace-deopt with a CPU profile. Their
# result lines are also appended to probe.txt: the device returns a limited number of files.
# $1: the directory run_probes built vmm-pair-lib.so in.
profile_probes() {
  local build=$1 dir="$OUT/profiles" adapter
  mkdir -p "$dir"
  for adapter in napi ffi; do
    PROBE_REPS=200 VMM_PAIR_LIB="$build/vmm-pair-lib.so" timeout -k 5 120 node --expose-gc --cpu-prof \
      --cpu-prof-interval 100 --cpu-prof-dir "$dir" --cpu-prof-name "vmm-$adapter.cpuprofile" \
      bench/probes/vmm-memory-vs-bare.mjs "$adapter" >"$dir/vmm-$adapter.txt" 2>&1
    timeout -k 5 120 node --expose-gc --trace-gc --trace-opt --trace-deopt --cpu-prof --cpu-prof-interval 200 \
      --cpu-prof-dir "$dir" --cpu-prof-name "order-$adapter.cpuprofile" bench/js/allocate-close-order.mjs "$adapter" \
      >"$dir/order-$adapter.txt" 2>&1
    grep -h '^{' "$dir/vmm-$adapter.txt" "$dir/order-$adapter.txt" | sed "s/^/profiled $adapter: /" >>"$OUT/probe.txt"
  done
  ls -la "$dir"
}
if [ "$what" = probes ]; then stage probes run_probes; fi

if [ "${#failed[@]}" = 0 ]; then
  log "all stages passed ($((SECONDS - started)) s)"
  exit 0
fi
log "FAILED stages: ${failed[*]} ($((SECONDS - started)) s)"
[ -f "$OUT/test-gpu-summary.txt" ] && head -n 1 "$OUT/test-gpu-summary.txt" | tee -a "$OUT/run.log"
exit 1
