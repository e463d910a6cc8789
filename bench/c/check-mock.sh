#!/usr/bin/env bash
# Builds the C benchmark programs and runs each against the fake libcuda (testing/fake-libcuda:
# host memory posing as two GPUs) to prove, without a GPU, that they load, run every row and print valid JSON.
# The numbers mean nothing. Usage: bash bench/c/check-mock.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cuda_include=${CUDA_HOME:-/usr/local/cuda}/include
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
node "$here/../../testing/fake-libcuda/build.mjs" "$work" >/dev/null
# What bench/run.mjs passes: the workload kernels, a small Arrow file, one repetition per row.
export BENCH_KERNELS_PTX="$here/../kernels/workloads.ptx" BENCH_ARROW_FILE="$work/arrow-from-disk.arrow"
export BENCH_MAX_REPS=1 BENCH_MAX_WARMUP_MS=50 BENCH_QUICK=1
node "$here/../js/arrow-file.mjs" "$BENCH_ARROW_FILE" 12000000 >/dev/null
status=0
for source in "$here"/*.c; do
  name=$(basename "$source" .c)
  cc -O2 -Wall -Wextra -Werror -std=c11 -pthread -I"$cuda_include" -o "$work/$name" "$source" -ldl
  if LD_LIBRARY_PATH="$work" "$work/$name" >"$work/$name.json"; then
    node -e '
      const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
      const rows = Object.entries(r.rows);
      // A row may be skipped as not applicable (the multi-GPU rows on the one-device mock).
      const bad = rows.filter(([, v]) => !(typeof v.skipped === "string" && v.skipped.startsWith("not applicable")) && (v.error || typeof v.value !== "number"));
      console.log(`${process.argv[2]}: ${rows.length} rows, ${bad.length} without a value`, bad.length ? bad : "");
      process.exit(r.error || bad.length || rows.length === 0 ? 1 : 0);
    ' "$work/$name.json" "$name" || status=1
  else
    echo "$name: exited with $?"; cat "$work/$name.json"; status=1
  fi
done
exit $status
