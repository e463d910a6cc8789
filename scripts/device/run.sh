#!/usr/bin/env bash
# Runs ON the GPU machine, in the root of the copy of the working tree, with .device/ carried
# (made here by scripts/device/pack.sh). One device call runs one or more modes, in order:
#
#   bash scripts/device/run.sh MODE [MODE...]        (modes also comma-separated; default: all)
#
#   plan       prints the plan of a session's calls (scripts/device/README.md) and exits
#   tests      demo, README gpu blocks, prebuilt addon (checks.txt; TEST_CHECKS=a,b only those),
#              then `test:gpu` in chunks (scripts/device/test-chunks.mjs; TEST_CHUNKS=a,b only
#              those; TEST_FILTER=... runs those vitest file filters as one chunk, not a test:gpu run)
#   sanitize   compute-sanitizer memcheck: SANITIZE_FILES (test files), then the crash cases
#              (SANITIZE_CASES, globs) on SANITIZE_ADAPTERS (napi ffi), as many as fit
#   bench      bench/run.mjs, every suite in BENCH_PROCESSES (5) interleaved units per
#              implementation (BENCH_SUITES, BENCH_IMPLS, BENCH_MAX_REPS, BENCH_MAX_WARMUP_MS,
#              BENCH_SINGLE_THREAD_C, BENCH_MERGE: run.mjs's options of those names);
#              BENCH_RESUME=FILE[,FILE] continues earlier calls' bench.json;
#              BENCH_BASELINE=1 also runs the packed baseline's JS beside each unit (the
#              before/after of pack.sh --baseline, judged by the same rule: bench.json "comparison")
#   compare    the before/after alone: the JS rows of this tree and of the baseline
#              (bench/run.mjs --impls ffi,napi --base); COMPARE_RESUME=FILE continues compare.json
#   quick      bench/run.mjs --quick: does every suite start? (bench-quick.json / .log)
#   probes     PROBE_SET (vmm, compile, ab, copygap): see run_probes
#   all        tests, then bench in the time left
#
# Time: the whole call has TIME_BUDGET_S (570: the device's 600 s limit less a margin; set it
# lower when the session's device time left is less). Every stage gets what is left of it, and
# nothing starts that is not expected to fit: test chunks and checks by their expected seconds,
# bench units by bench/unit-time.mjs, sanitize programs one by one. Each stage writes into $OUT as
# it goes (whole chunks, whole bench units, each sanitize program), so a call stopped at its limit
# still returns what finished, and the end of run.log says what to run next (`next:` lines).
#
# Files in $OUT (at most 8 come back from the device): run.log (with the environment), checks.txt,
# test-gpu.log, test-gpu-summary.txt, test-gpu.json (vitest's report, chunks merged),
# sanitize.log, bench.json + bench.log, compare.json + compare.log, bench-quick.json + .log,
# probe.txt (and the other probes' files). `tests sanitize bench` in one call makes 8.
# The exit code is 0 only when every stage that ran succeeded and nothing was left for later.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 1
modes=()
for argument in "${@:-all}"; do
  for mode in ${argument//,/ }; do
    case "$mode" in
      plan | tests | sanitize | bench | compare | quick | probes) modes+=("$mode") ;;
      all) modes+=(tests bench) ;;
      *) echo "usage: bash scripts/device/run.sh [plan|tests|sanitize|bench|compare|quick|probes|all]..." >&2; exit 2 ;;
    esac
  done
done
if [ "${modes[0]}" = plan ]; then
  sed -n '/<!-- plan:start -->/,/<!-- plan:end -->/p' scripts/device/README.md | sed '1d;$d'
  exit 0
fi
OUT=${OUT:-/tmp/cumem-device-out}
export OUT
mkdir -p "$OUT"
export PATH="/tmp/node/bin:${CUDA_HOME:-/usr/local/cuda}/bin:$PATH"
export CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
export PYTHONUNBUFFERED=1
budget=${TIME_BUDGET_S:-570}
started=$SECONDS
failed=()
next=()
# What `tests` could not start in this call (checks, test chunks).
pending_checks=()
pending_chunks=()

log() { echo "[run.sh +$((SECONDS - started))s] $*" | tee -a "$OUT/run.log"; }
# Seconds left of the call's budget.
left() { echo $((budget - (SECONDS - started))); }
# What the next call should run; printed at the end of run.log.
later() { next+=("$*"); }

# stage NAME COMMAND...: runs one stage, records its outcome, never stops the script.
stage() {
  local name=$1
  shift
  log "stage $name: start ($(left) s left)"
  "$@"
  local status=$?
  if [ "$status" = 0 ]; then log "stage $name: ok"; else log "stage $name: FAILED (exit $status)"; failed+=("$name"); fi
  return 0
}

# fits NAME SECONDS: true when SECONDS (with 10 to spare) fit what is left; else logs why not.
fits() {
  if [ "$(left)" -ge $(($2 + 10)) ]; then return 0; fi
  log "$1: not started (expected ${2} s, $(left) s left)"
  return 1
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

# The environment, into run.log (the device returns few files).
environment_facts() {
  {
    echo "== environment"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $(cat .device/commit.txt 2>/dev/null || echo unknown)"
    echo "baseline: $(cat .device/baseline-commit.txt 2>/dev/null || echo none packed)"
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
  } | tee -a "$OUT/run.log"
}

# --- tests -------------------------------------------------------------------------------------

# check NAME EXPECTED LIMIT COMMAND...: one short check of `tests`, its output appended to
# checks.txt; not started when EXPECTED seconds do not fit (then left for the next call).
check() {
  local name=$1 expected=$2 limit=$3
  shift 3
  fits "check $name" "$expected" || { pending_checks+=("$name"); return 1; }
  [ "$limit" -gt $(($(left) - 5)) ] && limit=$(($(left) - 5))
  echo "== $name" >>"$OUT/checks.txt"
  timeout -k 5 "$limit" "$@" 2>&1 | tee -a "$OUT/checks.txt"
  local status=${PIPESTATUS[0]}
  echo "== $name: exit $status" >>"$OUT/checks.txt"
  return "$status"
}

# The README's first command ends in `pnpm demo`: the tour as a user would see it. Issue 46: the
# README blocks marked gpu-only. Issue 12: the N-API adapter from the prebuilt binary.
# TEST_CHECKS (default: all three) names those to run; empty: none.
run_checks() {
  local status=0 wanted=",${TEST_CHECKS-demo,readme-gpu,prebuilt-addon},"
  if [[ $wanted == *,demo,* ]]; then check demo 20 60 node packages/memory/demo/tour.mjs || status=1; fi
  if [[ $wanted == *,readme-gpu,* ]]; then check readme-gpu 90 180 node scripts/readme-blocks.mjs --gpu || status=1; fi
  if [[ $wanted == *,prebuilt-addon,* ]]; then check prebuilt-addon 20 60 node scripts/device/prebuilt-addon.mjs || status=1; fi
  return "$status"
}

# test:gpu in chunks (scripts/device/test-chunks.mjs). A chunk starts when its expected seconds,
# scaled by how the chunks so far compared with theirs, fit; its summary line and report join
# test-gpu-summary.txt and test-gpu.json as soon as it ends.
run_tests() {
  local summary="$OUT/test-gpu-summary.txt" chunks chunk expected limit status=0 files=()
  local spent=0 guessed=0 chunk_started chunk_status chunk_out
  if [ -n "${TEST_FILTER:-}" ]; then
    chunks=filter
  else
    chunks=${TEST_CHUNKS-$(node scripts/device/test-chunks.mjs names)}
  fi
  for chunk in ${chunks//,/ }; do
    if [ "$chunk" = filter ]; then
      expected=${TEST_CHUNK_SECONDS:-120}
      # shellcheck disable=SC2206
      files=(${TEST_FILTER})
    else
      expected=${TEST_CHUNK_SECONDS:-$(node scripts/device/test-chunks.mjs seconds "$chunk")} || return 1
      mapfile -t files < <(node scripts/device/test-chunks.mjs files "$chunk")
    fi
    local scaled=$expected
    [ "$guessed" -gt 0 ] && scaled=$((expected * spent / guessed))
    if ! fits "test chunk $chunk" "$scaled"; then
      pending_chunks+=("$chunk")
      continue
    fi
    limit=$(($(left) - 5))
    chunk_out=$(mktemp -d)
    chunk_started=$SECONDS
    echo "== chunk $chunk: ${#files[@]} files, expected ${scaled} s, limit ${limit} s" | tee -a "$OUT/test-gpu.log"
    # The GPU machine has python3 with cuda.core: the Python hand-off tests must run, not skip.
    OUT=$chunk_out CUMEM_REQUIRE_PYTHON=1 timeout -k 10 "$limit" node scripts/test-gpu.mjs --isolate "${files[@]}" 2>&1 |
      tee -a "$OUT/test-gpu.log"
    chunk_status=${PIPESTATUS[0]}
    spent=$((spent + SECONDS - chunk_started))
    guessed=$((guessed + expected))
    if [ -f "$chunk_out/test-gpu-summary.txt" ]; then
      { printf 'chunk %s: ' "$chunk"; cat "$chunk_out/test-gpu-summary.txt"; } >>"$summary"
      [ -f "$chunk_out/test-gpu.json" ] && node scripts/device/test-chunks.mjs merge-report "$OUT/test-gpu.json" "$chunk_out/test-gpu.json"
      log "test chunk $chunk: exit $chunk_status in $((SECONDS - chunk_started)) s: $(head -n 1 "$chunk_out/test-gpu-summary.txt")"
    else
      # Stopped at the call's limit (124) or crashed before its summary: the whole chunk again.
      log "test chunk $chunk: exit $chunk_status after $((SECONDS - chunk_started)) s, no summary"
      pending_chunks+=("$chunk")
    fi
    [ "$chunk_status" = 0 ] || status=1
    rm -rf "$chunk_out"
  done
  if [ "${#pending_chunks[@]}" -gt 0 ]; then
    echo "chunks not run: ${pending_chunks[*]}" >>"$summary"
    status=1
  fi
  [ -f "$summary" ] && node scripts/device/test-chunks.mjs total "$summary" | tee -a "$summary"
  return "$status"
}

# --- bench -------------------------------------------------------------------------------------

# The baseline's packages (pack.sh --baseline) laid over a copy of this tree, at /tmp/cumem-baseline.
prepare_baseline() {
  [ -f .device/baseline.tar.xz ] || { echo "no .device/baseline.tar.xz: pack.sh --baseline COMMIT" >&2; return 1; }
  local base=/tmp/cumem-baseline directory
  [ -f "$base/.baseline-ready" ] && { echo "$base"; return 0; }
  rm -rf "$base" && mkdir -p "$base" || return 1
  # The unpacked tree (node_modules, bench scripts), then the baseline's packages over it.
  tar -C "$root" --exclude=./.device --exclude=./.device-carry --exclude=./.git -cf - . | tar -C "$base" -xf - || return 1
  for directory in "$base"/packages/*/dist "$base"/testing/*/dist; do rm -rf "$directory"; done
  xz -dc .device/baseline.tar.xz | tar -xf - -C "$base" || return 1
  touch "$base/.baseline-ready"
  echo "$base"
}

# bench/run.mjs NAME EXTRA...: one bench run into $OUT/NAME.json and NAME.log, under what is left
# of the call (less 15 s to write and report). RESUME: earlier results files to continue.
run_bench_into() {
  local name=$1 resume=$2
  shift 2
  local limit=$(($(left) - 5))
  [ "$limit" -ge 60 ] || { log "$name: not started ($(left) s left)"; later "bash scripts/device/run.sh $name"; return 1; }
  set -o pipefail
  # shellcheck disable=SC2086
  timeout -k 10 "$limit" node bench/run.mjs --out "$OUT/$name.json" --budget $((limit - 15)) --timeout 120 \
    ${BENCH_SUITES:+--suites "$BENCH_SUITES"} ${BENCH_PROCESSES:+--processes "$BENCH_PROCESSES"} \
    ${BENCH_IMPLS:+--impls "$BENCH_IMPLS"} ${BENCH_MAX_REPS:+--max-reps "$BENCH_MAX_REPS"} ${BENCH_MAX_WARMUP_MS:+--max-warmup-ms "$BENCH_MAX_WARMUP_MS"} \
    ${BENCH_SINGLE_THREAD_C+--single-thread-c "$BENCH_SINGLE_THREAD_C"} ${BENCH_MERGE:+--merge "$BENCH_MERGE"} \
    ${resume:+--resume "$resume"} "$@" 2>&1 | tee -a "$OUT/$name.log"
  local status=$?
  set +o pipefail
  [ "$status" = 124 ] && echo "bench/run.mjs stopped at the call's limit (${limit} s): $name.json holds the units that finished"
  # run.mjs's own last word on what did not fit: the next call continues this file.
  if [ "$status" = 124 ] || grep -q 'did not fit' "$OUT/$name.log"; then
    later "cp <files_at>/$name.json .device-carry/$name-1.json (next free number), then with carry ['.device', '.device-carry/$name-1.json'] and the same BENCH_* settings: ${name^^}_RESUME=.device-carry/$name-1.json bash scripts/device/run.sh $name"
  fi
  return "$status"
}

run_bench() {
  local base=()
  if [ "${BENCH_BASELINE:-0}" = 1 ]; then
    local dir
    dir=$(prepare_baseline) || return 1
    base=(--base "$dir")
  fi
  run_bench_into bench "${BENCH_RESUME:-}" "${base[@]}"
}

# `compare` alone: the JS rows of this tree and of the baseline, every suite but the curves.
run_compare() {
  local dir
  dir=$(prepare_baseline) || return 1
  echo "baseline $(cat .device/baseline-commit.txt) at $dir"
  BENCH_SUITES=${COMPARE_SUITES:-contract,memory,utils,arrow,multi,handoff,pageable,compute,vmm,workloads} \
    BENCH_PROCESSES=${COMPARE_PROCESSES:-${BENCH_PROCESSES:-}} \
    run_bench_into compare "${COMPARE_RESUME:-}" --impls "${COMPARE_IMPLS:-ffi,napi}" --base "$dir"
}

# `quick`: every suite once per implementation with one repetition: does everything start?
run_quick() {
  local limit=$(($(left) - 5))
  set -o pipefail
  timeout -k 10 "$limit" node bench/run.mjs --quick --out "$OUT/bench-quick.json" --budget $((limit - 15)) --timeout 90 \
    ${BENCH_SUITES:+--suites "$BENCH_SUITES"} 2>&1 | tee "$OUT/bench-quick.log"
  local status=$?
  set +o pipefail
  return "$status"
}

# --- sanitize ----------------------------------------------------------------------------------

# compute-sanitizer memcheck: device-side invalid accesses that the crash cases' host-side checks
# cannot see. API errors are expected (the cases provoke refusals) and not reported. Leaks at exit
# are not checked (SANITIZE_LEAKS=1 turns it on): several cases end on purpose while a view or a
# dropped Buffer still holds memory, which a GC'd runtime frees in finalizers that never run at
# process exit (12 of 52 programs reported such memory in the first run; none an access error).
# Each program runs alone, so a report names it; the test files first (the widest use of kernels
# and copies), then each crash case on each adapter.
sanitize_one() {
  local label=$1 limit=$2
  shift 2
  echo "== $label" >>"$OUT/sanitize.log"
  local leaks=no
  [ "${SANITIZE_LEAKS:-0}" = 1 ] && leaks=full
  timeout -k 5 "$limit" compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 1 --target-processes all \
    --leak-check "$leaks" "$@" >>"$OUT/sanitize.log" 2>&1
  local status=$?
  # A crash case that makes no CUDA call (case 14 checks file descriptors only) is not an error;
  # a test file that makes none failed before its tests (vitest could not start).
  if [ "$status" != 0 ] && [ "${label%% *}" != vitest ] &&
    tail -n 3 "$OUT/sanitize.log" | grep -q 'terminated before first instrumented API call'; then
    return 0
  fi
  echo "== $label: exit $status" >>"$OUT/sanitize.log"
  return "$status"
}
# sanitize_limit LIMIT: LIMIT, or less when less is left of the call; empty when under 30 s.
sanitize_limit() {
  local limit=$1 rest=$(($(left) - 5))
  [ "$rest" -lt "$limit" ] && limit=$rest
  [ "$limit" -ge 30 ] && echo "$limit"
}
run_sanitize() {
  if ! command -v compute-sanitizer >/dev/null; then
    echo "compute-sanitizer not found in ${CUDA_HOME}/bin"
    return 1
  fi
  local failures=0 runs=0 adapter file limit not_run=()
  local test_files=${SANITIZE_FILES-packages/memory/src/buffer/buffer.test.ts packages/memory/src/resources/managed/managed-buffer.test.ts \
packages/utils/src/batch/copy-batch.test.ts packages/interop-arrow/src/buffer/cuda-buffer.test.ts \
packages/compute/src/launch/launch.test.ts packages/memory/src/resources/virtual/virtual-memory-resource.test.ts packages/utils/src/exchange/dlpack.test.ts}
  for file in $test_files; do
    if ! limit=$(sanitize_limit 180); then not_run+=("vitest:$file"); continue; fi
    runs=$((runs + 1))
    # A file that moved is a failure, not a program with nothing to check.
    if [ ! -f "$file" ]; then
      echo "== vitest $file: missing" >>"$OUT/sanitize.log"
      failures=$((failures + 1))
      continue
    fi
    CUMEM_REQUIRE_GPU=1 NODE_OPTIONS=--expose-gc \
      sanitize_one "vitest $file" "$limit" node node_modules/vitest/vitest.mjs run --pool=forks "$file" || failures=$((failures + 1))
  done
  for adapter in ${SANITIZE_ADAPTERS:-napi ffi}; do
    # The patterns are globs on purpose: unquoted, the shell expands them.
    # shellcheck disable=SC2086
    for file in $(for pattern in ${SANITIZE_CASES-'[0-9][0-9]*-*.mjs'}; do echo testing/crash-suite/cases/$pattern; done); do
      [ -f "$file" ] || continue
      # The hostile-fake case dies of SIGSEGV by design; it has nothing to do on a GPU. A case whose
      # kernel faults on purpose (case 101) is exactly what memcheck reports: not an error here.
      grep -q '^// needs: fake' "$file" && continue
      grep -q '^// sanitize: faults on purpose' "$file" && continue
      # A case for two GPUs cannot run on one (the crash suite skips it there as not applicable).
      if grep -q '^// needs:.*devices2' "$file" && [ "$(nvidia-smi -L 2>/dev/null | wc -l)" -lt 2 ]; then continue; fi
      if ! limit=$(sanitize_limit 120); then not_run+=("$adapter:$(basename "$file")"); continue; fi
      runs=$((runs + 1))
      CUMEM_CRASH_DRIVER=$adapter CUMEM_DRIVER=$adapter \
        sanitize_one "$adapter $(basename "$file")" "$limit" node --expose-gc "$file" || failures=$((failures + 1))
    done
  done
  echo "compute-sanitizer error summaries (non-zero only):"
  grep -B1 'ERROR SUMMARY: [1-9]' "$OUT/sanitize.log" || echo "  none"
  echo "sanitize: $runs programs, $failures with errors or failures; log: \$OUT/sanitize.log"
  if [ "${#not_run[@]}" -gt 0 ]; then
    echo "sanitize: not run for lack of time (${#not_run[@]}): ${not_run[*]}" | tee -a "$OUT/sanitize.log"
    # One command per kind of program left: the test files, then each adapter's crash cases.
    local kind entry names
    for kind in vitest ${SANITIZE_ADAPTERS:-napi ffi}; do
      names=""
      for entry in "${not_run[@]}"; do [ "${entry%%:*}" = "$kind" ] && names+="${names:+ }${entry#*:}"; done
      [ -z "$names" ] && continue
      if [ "$kind" = vitest ]; then
        later "SANITIZE_CASES= SANITIZE_FILES='$names' bash scripts/device/run.sh sanitize"
      else
        later "SANITIZE_FILES= SANITIZE_ADAPTERS=$kind SANITIZE_CASES='$names' bash scripts/device/run.sh sanitize"
      fi
    done
    return 1
  fi
  [ "$failures" = 0 ]
}

# --- probes ------------------------------------------------------------------------------------

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
      # AB_COMMAND is a command line: split into words on purpose.
      # shellcheck disable=SC2086
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

# --- the call ----------------------------------------------------------------------------------

log "run.sh ${modes[*]} in $root, results to $OUT, budget ${budget} s"
stage unpack-node unpack_node
stage unpack-workspace unpack_workspace
stage environment environment_facts
for mode in "${modes[@]}"; do
  case "$mode" in
    tests)
      stage checks run_checks
      stage test-gpu run_tests
      if [ "${#pending_checks[@]}" -gt 0 ] || [ "${#pending_chunks[@]}" -gt 0 ]; then
        checks_left="${pending_checks[*]}" chunks_left="${pending_chunks[*]}"
        later "TEST_CHECKS=${checks_left// /,} TEST_CHUNKS=${chunks_left// /,} bash scripts/device/run.sh tests   (what tests left; append the summaries: node scripts/device/test-chunks.mjs total <each call's test-gpu-summary.txt>)"
      fi
      ;;
    sanitize) stage sanitize run_sanitize ;;
    bench) stage bench run_bench ;;
    compare) stage compare run_compare ;;
    quick) stage quick run_quick ;;
    probes) stage probes run_probes ;;
  esac
done

# The device returns at most 8 files from $OUT.
count=$(find "$OUT" -type f | wc -l)
[ "$count" -gt 8 ] && log "WARNING: $count files in \$OUT, only 8 come back: $(cd "$OUT" && find . -type f | tr '\n' ' ')"
for line in "${next[@]}"; do log "next: $line"; done
[ -f "$OUT/test-gpu-summary.txt" ] && log "$(tail -n 1 "$OUT/test-gpu-summary.txt")"
if [ "${#failed[@]}" = 0 ] && [ "${#next[@]}" = 0 ]; then
  log "all stages passed ($((SECONDS - started)) s)"
  exit 0
fi
log "FAILED stages: ${failed[*]:-none}; left for a later call: ${#next[@]} ($((SECONDS - started)) s)"
exit 1
