#!/usr/bin/env bash
# Ordered work on the GPU: SSSP by delta-stepping on the priority scheduler
# (`order = priority`, cuda/schedulers/bands.cuh) beside the unordered variants, on a 2048 x 2048 grid
# (weights 1..255 hashed from each edge's ends) and on R-MAT 22, with a few deltas, band
# windows (W) and lookaheads (bands above the lowest live one a worker may take from). Every
# run checks its distances against Dijkstra. Writes each run's full output
# under $OUT (default ./ordered-logs) and prints one table, also saved as $OUT/ordered.md.
#
#   OUT=/tmp/ordered wsdsl-bench/gpu/ordered.sh            # from the repository root
#   QUICK=1 wsdsl-bench/gpu/ordered.sh                     # a 512 x 512 grid and R-MAT 18
#   QUICK=1 BACKEND=cpu wsdsl-bench/gpu/ordered.sh         # the same on the CPU backend
set -euo pipefail
OUT=${OUT:-ordered-logs}
mkdir -p "$OUT"
# A GPU machine without Rust passes the prebuilt example: SSSP=.gpu/sssp.
if [ -z "${SSSP:-}" ]; then
  cargo build --release --example sssp
  SSSP=target/release/examples/sssp
fi
SIDE=2048; SCALE=22
if [ "${QUICK:-0}" = 1 ]; then SIDE=512; SCALE=18; fi

# The grid as a SNAP edge list (each edge once; --symmetrize adds the reverse).
GRID="$OUT/grid-$SIDE.txt"
if [ ! -s "$GRID" ]; then
  awk -v n="$SIDE" 'BEGIN { for (r = 0; r < n; r++) for (c = 0; c < n; c++) { v = r * n + c;
      if (c + 1 < n) print v "\t" v + 1; if (r + 1 < n) print v "\t" v + n } }' > "$GRID"
fi

TABLE="$OUT/ordered.md"
printf '| graph | method | delta | W | run (ms) | edges scanned per edge | stale offers | bands | check |\n|---|---|---:|---:|---:|---:|---:|---|---|\n' | tee "$TABLE"

# run NAME GRAPH-ARGS METHOD-ARGS W [LOOKAHEAD]
run() {
  local name=$1 graph=$2 method=$3 bands=$4 lookahead=${5:-}
  local log="$OUT/$(echo "$name $method W$bands L$lookahead" | tr -c 'A-Za-z0-9' '_').log"
  local defines=""
  [ "$bands" != "-" ] && defines="WSDSL_BANDS=$bands"
  [ -n "$lookahead" ] && defines="$defines WSDSL_BAND_LOOKAHEAD=$lookahead" && bands="$bands, lookahead $lookahead"
  # shellcheck disable=SC2086
  WSDSL_DEFINES="$defines" "$SSSP" $graph $method --backend "${BACKEND:-gpu}" > "$log" 2>&1 || true
  local ms per stale bandline check delta
  # (A missing line leaves its cell empty: `|| true` keeps `set -e` from ending the script.)
  ms=$(sed -n 's/.* run \([0-9.]*\) ms.*/\1/p' "$log" | tail -1 || true)
  per=$(sed -n 's/.*edges scanned (\([0-9.]*\) per edge.*/\1/p' "$log" | tail -1 || true)
  stale=$(sed -n 's/.*, \([0-9]*\) stale offers.*/\1/p' "$log" | tail -1 || true)
  delta=$(sed -n 's/^delta-stepping with delta \([0-9]*\).*/\1/p' "$log" | tail -1 || true)
  bandline=$(sed -n 's/^bands *//p' "$log" | sed 's/ re-banded from the far queue.*/ re-banded/' | tail -1 || true)
  check=$(grep -E '^(PASS|FAIL)' "$log" | head -1 | cut -c1-40 || true)
  [ -z "$check" ] && check="ERROR: $(tail -1 "$log" | cut -c1-100)"
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "${method:-delta-stepping (default delta)}" "${delta:--}" "$bands" "${ms:--}" "${per:--}" "${stale:--}" "${bandline:--}" "$check" | tee -a "$TABLE"
}

G="$GRID --symmetrize"
R="--rmat $SCALE --symmetrize"
for graph in "grid $SIDE x $SIDE|$G" "R-MAT $SCALE|$R"; do
  name=${graph%%|*}; args=${graph#*|}
  run "$name" "$args" "" 32
  for d in 16 64 256 1024; do run "$name" "$args" "--delta $d" 32; done
  for w in 8 128; do run "$name" "$args" "" "$w"; done
  # The default lookahead is 1 band; 0 is strict order, 31 lets workers take from any band of
  # the window while lower ones still run (a window that races ahead of its lowest band).
  for l in 0 4 31; do run "$name" "$args" "" 32 "$l"; done
  # The CPU backend runs data-driven relaxation depth first, rescanning a grid for minutes.
  [ "${BACKEND:-gpu}" = gpu ] && run "$name" "$args" "--data-driven" -
  run "$name" "$args" "--rounds" -
done

# Where the time goes in the band logic: the profile of the default run on each graph.
for graph in "grid|$G" "rmat|$R"; do
  name=${graph%%|*}; args=${graph#*|}
  # shellcheck disable=SC2086
  WSDSL_PROFILE=1 "$SSSP" $args --backend "${BACKEND:-gpu}" > "$OUT/profile-$name.log" 2>&1 || true
  echo "profile ($name, default delta): $(grep '^profile' "$OUT/profile-$name.log" || echo 'none (the CPU backend has no profile; see the log)')"
done | tee -a "$TABLE"
