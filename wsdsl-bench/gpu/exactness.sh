#!/usr/bin/env bash
# Exactness across GPUs and "hosts", from prebuilt examples: every victim
# policy x every configuration given x four programs whose answers the examples check
# (N-Queens 14, UTS T1, fib(30) with joins across GPUs, DLB_Bench with 400,000 tasks). A
# configuration is GPUS:GROUPS, GROUPS host groups treating each other as other hosts
# (WSDSL_HOST_GROUPS; 1 is one host). Each run is a new process; one line per run goes to
# $OUT/exact.log and the last line says how many printed PASS.
#
#   wsdsl-bench/gpu/exactness.sh 2:1 2:2              # a 2-GPU machine: 1 x 2 and 2 x 1
#   wsdsl-bench/gpu/exactness.sh 4:1 4:2 2:2          # a 4-GPU machine
#
# Expects nqueens, uts, fib and dlb_bench in $BIN (default .gpu). Settings: OUT (default
# exactness-out), POLICIES (default: all five), LIMIT (seconds a run may take, default 60).
set -uo pipefail
BIN=${BIN:-.gpu}
OUT=${OUT:-exactness-out}
POLICIES=${POLICIES:-random round-robin pws hws small-world}
LIMIT=${LIMIT:-60}
if [[ $# -eq 0 ]]; then
    echo "usage: $0 GPUS:GROUPS ... (e.g. 2:1 2:2)" >&2
    exit 2
fi
mkdir -p "$OUT"
log="$OUT/exact.log"
: > "$log"
programs=("nqueens 14" "uts T1" "fib 30" "dlb_bench --tasks 400000 --holders 1024")
for policy in $POLICIES; do
    for config in "$@"; do
        gpus=${config%:*} groups=${config#*:}
        for program in "${programs[@]}"; do
            # shellcheck disable=SC2086 # the program's arguments are words on purpose
            verdict=$(WSDSL_GPUS=$gpus WSDSL_HOST_GROUPS=$groups WSDSL_VICTIM=$policy timeout "$LIMIT" \
                "$BIN/${program%% *}" ${program#* } --backend "${BACKEND:-gpu}" 2>&1 | grep -E '^(PASS|FAIL)|rror' | head -2 | tr '\n' ' ')
            echo "$policy gpus=$gpus hosts=$groups $program: ${verdict:-no verdict (timed out or crashed)}" | tee -a "$log"
        done
    done
done
passed=$(grep -c ': PASS' "$log")
total=$(wc -l < "$log")
echo "exact: $passed PASS of $total"
[[ $passed -eq $total ]]
