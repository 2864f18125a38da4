#!/usr/bin/env bash
# The graph classes beside GAPBS, on a GPU machine, from prebuilt binaries: `bench --rows
# graphs` one class per command (each well under ten minutes), every class's log and table
# under $OUT (the graph files GAPBS reads go to the system's temporary directory, one class
# at a time, and are removed after it).
#
#   wsdsl-bench/gpu/graphs.sh                      # every class of the table
#   wsdsl-bench/gpu/graphs.sh grid:2048x2048 rmat:22
#   wsdsl-bench/gpu/graphs.sh build-gapbs          # where a C++ compiler is: GAPBS into .gpu/gapbs-build
#
# Expects, from the repository root: .gpu/bench (`cargo build --release -p wsdsl-bench`, then
# copy target/release/bench there) and GAPBS's bfs, sssp, cc and pr in .gpu/gapbs-build
# (`build-gapbs`, which also puts libgomp beside them for a machine without it). Settings:
# OUT (default graphs-out), REPEAT (timed runs and GAPBS trials, default 5), GAPBS_THREADS
# (default: every core), BENCH_ARGS (more options for bench, e.g. --cpu to try the plumbing
# without a GPU), GAPBS_SRC (build-gapbs: where GAPBS's sources are; required).
set -euo pipefail
cd "$(dirname "$0")/../.."

GAPBS=.gpu/gapbs-build

if [[ "${1:-}" == build-gapbs ]]; then
    src=${GAPBS_SRC:?set GAPBS_SRC to the GAPBS source directory}
    mkdir -p "$GAPBS"
    cp -r "$src"/. "$GAPBS"/
    # GAPBS's Makefile includes test and benchmark makefiles that a trimmed copy may lack:
    # build the four kernels the way it would, one compiler call each.
    for kernel in bfs sssp cc pr; do
        "${CXX:-g++}" -std=c++11 -O3 -Wall -fopenmp "$GAPBS/src/$kernel.cc" -o "$GAPBS/$kernel"
    done
    gomp=$("${CXX:-g++}" -print-file-name=libgomp.so.1)
    if [[ -f "$gomp" ]]; then cp -L "$gomp" "$GAPBS/"; fi
    echo "GAPBS built in $GAPBS: $(ls "$GAPBS"/{bfs,sssp,cc,pr} | tr '\n' ' ')"
    exit 0
fi

OUT=${OUT:-graphs-out}
REPEAT=${REPEAT:-5}
mkdir -p "$OUT"
for binary in .gpu/bench "$GAPBS"/bfs "$GAPBS"/sssp "$GAPBS"/cc "$GAPBS"/pr; do
    if [[ ! -x "$binary" ]]; then
        echo "missing $binary (see the top of $0)" >&2
        exit 1
    fi
done
# GAPBS links libgomp; build-gapbs leaves a copy beside the binaries.
export LD_LIBRARY_PATH="$PWD/$GAPBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
extra=()
if [[ -n "${GAPBS_THREADS:-}" ]]; then extra+=(--gapbs-threads "$GAPBS_THREADS"); fi
# shellcheck disable=SC2206 # BENCH_ARGS is a list of options, split on purpose
if [[ -n "${BENCH_ARGS:-}" ]]; then extra+=($BENCH_ARGS); fi

classes=("$@")
if [[ ${#classes[@]} -eq 0 ]]; then
    classes=(grid:2048x2048 road:4194304 rmat:22 rmat:24 uniform:4194304 gnutella)
fi
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1 || true
status=0
for class in "${classes[@]}"; do
    name=${class//:/-}
    echo "== $class"
    .gpu/bench --rows graphs --graph-classes "$class" --gapbs "$GAPBS" "${extra[@]}" --repeat "$REPEAT" \
        --graph-dir data/graphs --out "$OUT/graphs-$name.md" 2>&1 | tee "$OUT/graphs-$name.log" || status=1
done
for table in "$OUT"/graphs-*.md; do
    if [[ -f "$table" ]]; then cat "$table"; echo; fi
done > "$OUT/graphs.md"
echo "tables: $OUT/graphs.md; logs: $OUT/graphs-*.log"
exit $status
