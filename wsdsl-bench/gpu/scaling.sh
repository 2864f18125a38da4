#!/usr/bin/env bash
# Scaling across the GPUs of one host, from prebuilt examples: every
# workload on 1, 2, 4 ... GPUs, the counts alternating inside each round so that drift hits
# them alike, each run a new process whose answer the example checks (a wrong one prints FAIL
# and the cell says so). Also "hosts" through the one-sided path: GxN splits the GPUs into G
# groups of N that treat each other as other hosts (WSDSL_HOST_GROUPS=G, WSDSL_GPUS=G*N).
# Writes every run's output under $OUT and one table of medians, $OUT/scaling.md; each run's
# time also goes to $OUT/runs.tsv as it ends, so a script stopped early (a time limit) still
# leaves every run it made.
#
#   wsdsl-bench/gpu/scaling.sh                                   # 1 2 (4 8 where present)
#   GPUS="1 2" HOSTS="2x1" REPEAT=3 wsdsl-bench/gpu/scaling.sh
#   VICTIMS="random pws hws small-world" WORKLOADS="nq18 t1xl" wsdsl-bench/gpu/scaling.sh
#   VARIANTS="default|;no-rest|WS_REMOTE_BACKOFF_MAX=0" ...       # kernel defines to compare
#   GPUS="1 1m 2" ...     # 1m: the multi-GPU kernel on one GPU (WSDSL_MULTI_ON_ONE=1), its own cost
#   GPUS="1 1h" ...       # 1h: the across-hosts kernel on one GPU (WSDSL_MULTI_ON_ONE=3)
#
# Expects nqueens, uts, fib and dlb_bench in $BIN (default .gpu: `cargo build --release
# --examples`, then copy them there). Settings: OUT (default scaling-out), REPEAT (runs per
# cell, default 3), GPUS, HOSTS (default none), VICTIMS (default random), WORKLOADS (nq18
# t1xl fib42 t3l dlb; default all), VARIANTS (name|WSDSL_DEFINES pairs, `;`-separated),
# BACKEND (default gpu; cpu tries the plumbing without a GPU), RUN_TIMEOUT (seconds a run may
# take before it is killed and its cell says ERROR, its output kept; default none).
set -uo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
BIN=${BIN:-.gpu}
OUT=${OUT:-scaling-out}
REPEAT=${REPEAT:-3}
mkdir -p "$OUT"
present=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [[ -z "${GPUS:-}" ]]; then
    GPUS="1"
    for g in 2 4 8; do [[ $present -ge $g ]] && GPUS="$GPUS $g"; done
fi
HOSTS=${HOSTS:-}
VICTIMS=${VICTIMS:-random}
WORKLOADS=${WORKLOADS:-nq18 t1xl fib42 t3l dlb}
VARIANTS=${VARIANTS:-default|}
nvidia-smi --query-gpu=name,memory.total --format=csv > "$OUT/gpu.txt" 2>&1 || true

# The command of workload $1 on $2 GPUs. DLB_Bench is weak scaling: 4 M tasks and 1,024
# holders per GPU, 30,000 rounds a task (a run of about 25 ms), the paper's imbalance.
command_of() {
    case $1 in
        nq18) echo "$BIN/nqueens 18" ;;
        t1xl) echo "$BIN/uts T1XL" ;;
        fib42) echo "$BIN/fib 42" ;;
        t3l) echo "$BIN/uts T3L" ;;
        dlb) echo "$BIN/dlb_bench --tasks $((4194304 * $2)) --holders $((1024 * $2)) --mean-cost 30000 --imbalance paper --repeat 3" ;;
        *) echo "unknown workload $1" >&2; return 1 ;;
    esac
}

# One run: workload, GPU count, host groups (0: one host), victim, defines. Prints the kernel
# time in ms, or FAIL/ERROR.
log_of() { echo "$OUT/$(echo "$1 g$2 h$3 $4 $5" | tr -c 'A-Za-z0-9' '_').log"; }
run_one() {
    local work=$1 gpus=$2 groups=$3 victim=$4 defines=$5 log
    log=$(log_of "$@")
    local env=(WSDSL_VICTIM="$victim" WSDSL_DEFINES="$defines")
    case $gpus in
        1m) env+=(WSDSL_GPUS=1 WSDSL_MULTI_ON_ONE=1); gpus=1 ;;
        1h) env+=(WSDSL_GPUS=1 WSDSL_MULTI_ON_ONE=3); gpus=1 ;;
        *) env+=(WSDSL_GPUS="$gpus") ;;
    esac
    [[ $groups -gt 0 ]] && env+=(WSDSL_HOST_GROUPS="$groups")
    local one
    one=$(mktemp)
    # shellcheck disable=SC2046 # the command is a list of words on purpose
    timeout "${RUN_TIMEOUT:-0}" env "${env[@]}" $(command_of "$work" "$gpus") --backend "${BACKEND:-gpu}" > "$one" 2>&1
    local rc=$? ms
    ms=$(kernel_ms "$one" | tail -1)
    if grep -q '^FAIL' "$one"; then echo FAIL
    elif [[ $rc -ne 0 || -z "$ms" ]]; then echo ERROR
    else echo "$ms"; fi
    { cat "$one"; echo "---"; } >> "$log"
    rm -f "$one"
}


# Configurations: "gpus:groups" (groups 0 = one host).
configs=()
for g in $GPUS; do configs+=("$g:0"); done
for h in $HOSTS; do configs+=("$((${h%x*} * ${h#*x})):${h%x*}"); done

TABLE="$OUT/scaling.md"
RUNS="$OUT/runs.tsv"
printf 'workload\tvictims\tvariant\tgpus\thost_groups\tms\n' > "$RUNS"
{
    printf '| workload | victims | variant |'
    for c in "${configs[@]}"; do
        if [[ ${c%:*} == 1m ]]; then printf ' 1 GPU, multi-GPU kernel |'
        elif [[ ${c%:*} == 1h ]]; then printf ' 1 GPU, across-hosts kernel |'
        elif [[ ${c#*:} == 0 ]]; then printf ' %s GPU |' "${c%:*}"; else printf ' %s hosts x %s |' "${c#*:}" "$(( ${c%:*} / ${c#*:} ))"; fi
    done
    printf '\n|---|---|---|'
    for _ in "${configs[@]}"; do printf -- '---:|'; done
    printf '\n'
} | tee "$TABLE"
status=0
failures=()   # one line per failed cell: what failed and the first words of why
IFS=';' read -r -a variants <<< "$VARIANTS"
for work in $WORKLOADS; do
    for victim in $VICTIMS; do
        for variant in "${variants[@]}"; do
            name=${variant%%|*}; defines=${variant#*|}
            declare -A times=()
            for ((r = 0; r < REPEAT; r++)); do
                for c in "${configs[@]}"; do
                    t=$(run_one "$work" "${c%:*}" "${c#*:}" "$victim" "$defines")
                    times[$c]+="$t "
                    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$work" "$victim" "$name" "${c%:*}" "${c#*:}" "$t" >> "$RUNS"
                done
            done
            row="| $work | $victim | $name |"
            base=""
            for c in "${configs[@]}"; do
                # shellcheck disable=SC2086
                if [[ ${times[$c]} == *FAIL* || ${times[$c]} == *ERROR* ]]; then
                    row+=" ${times[$c]// /,} |"; status=1
                    log=$(log_of "$work" "${c%:*}" "${c#*:}" "$victim" "$defines")
                    why=$(grep -E '^(FAIL|Error|error)|: error' "$log" | awk '!seen[$0]++' | head -2 | paste -sd ' ' -)
                    failures+=("- $work, $victim, $name, ${c%:*} GPUs, ${c#*:} host groups: ${why:-no reason printed} ($log)")
                    continue
                fi
                m=$(printf '%s\n' ${times[$c]} | median)
                if [[ -z "$base" ]]; then base=$m; row+=" $m ms |"
                else row+=" $m ms ($(awk -v a="$base" -v b="$m" 'BEGIN { printf "%.2fx", a / b }')) |"; fi
            done
            echo "$row" | tee -a "$TABLE"
            unset times
        done
    done
done
echo "(dlb is weak scaling, 4 M tasks per GPU: its ratios are efficiencies.)" | tee -a "$TABLE"
if [[ ${#failures[@]} -gt 0 ]]; then
    { echo; echo "Failed cells (the first lines of why; every run's output is in its log):"; printf '%s\n' "${failures[@]}"; } | tee -a "$TABLE"
fi
echo "table: $TABLE; logs: $OUT/*.log"
exit $status
