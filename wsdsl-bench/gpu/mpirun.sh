#!/usr/bin/env bash
# The same binary started by mpirun, from prebuilt examples: each workload on the
# machine's GPUs three ways, alternating inside each round, every run a new job whose answer
# the example checks on every rank:
#   spawned   one process, WSDSL_GPUS=N: the runtime starts one process per GPU itself
#   mpirun    mpirun -np N: each rank reads its rank and size from Open MPI's variables and
#             the ranks meet at WSDSL_RENDEZVOUS (docs/multi-gpu.md, "Processes a launcher
#             started")
#   mpirun-2h the same, with WSDSL_HOST_GROUPS=2: the ranks split into two "hosts" that reach
#             each other only through NVSHMEM's one-sided calls
# Writes every run's output under $OUT, one line per run to $OUT/runs.tsv and a table of
# medians to $OUT/mpirun.md; a cell in which a rank printed no PASS says FAIL.
#
#   wsdsl-bench/gpu/mpirun.sh                         # every GPU, N-Queens 18 and UTS T1XL
#   MPIRUN=/opt/openmpi/bin/mpirun WORKLOADS="nq18" REPEAT=5 wsdsl-bench/gpu/mpirun.sh
#
# Expects nqueens and uts in $BIN (default .gpu). Settings: MPIRUN (default mpirun; Open MPI,
# which exports OMPI_COMM_WORLD_*), NP (default: the GPUs nvidia-smi lists), REPEAT (default
# 3), WORKLOADS (nq18 t1xl; nq14 and t1 are quick), PORT (the rendezvous's first port, default
# 29500; each job takes the next), OUT (default mpirun-out), LIMIT (seconds a job may take,
# default 120), BACKEND (default gpu; cpu tries the plumbing without a GPU).
set -uo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
BIN=${BIN:-.gpu}
OUT=${OUT:-mpirun-out}
REPEAT=${REPEAT:-3}
WORKLOADS=${WORKLOADS:-nq18 t1xl}
MPIRUN=${MPIRUN:-mpirun}
PORT=${PORT:-29500}
LIMIT=${LIMIT:-120}
BACKEND=${BACKEND:-gpu}
NP=${NP:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)}
if [[ -z "$NP" || "$NP" -lt 2 ]]; then
    echo "mpirun.sh needs two GPUs or more (NP=${NP:-none}): nothing to launch" >&2
    exit 2
fi
if ! command -v "$MPIRUN" > /dev/null; then
    echo "no $MPIRUN here: install Open MPI or set MPIRUN to its mpirun" >&2
    exit 2
fi
mkdir -p "$OUT"
command_of() {
    case $1 in
        nq18) echo "$BIN/nqueens 18" ;;
        t1xl) echo "$BIN/uts T1XL" ;;
        nq14) echo "$BIN/nqueens 14" ;;   # quick ones, to try the plumbing
        t1) echo "$BIN/uts T1" ;;
        *) echo "unknown workload $1" >&2; return 1 ;;
    esac
}
# Open MPI 5 forwards only what -x names; running as root needs its consent.
root_flag=()
[[ $(id -u) -eq 0 ]] && root_flag=(--allow-run-as-root)
forward=()
for v in WSDSL_RENDEZVOUS WSDSL_HOST_GROUPS WSDSL_CACHE_DIR NVSHMEM_DISABLE_NVLS NCCL_NVLS_ENABLE; do forward+=(-x "$v"); done

# One job: workload, way, rendezvous port. Prints the kernel time in ms (rank 0's), or
# FAIL/ERROR.
run_one() {
    local work=$1 way=$2 port=$3 one rc ms log="$OUT/$1-$2.log"
    one=$(mktemp)
    # shellcheck disable=SC2046 # the command is a list of words on purpose
    case $way in
        spawned) WSDSL_GPUS=$NP timeout "$LIMIT" $(command_of "$work") --backend "$BACKEND" > "$one" 2>&1 ;;
        mpirun|mpirun-2h)
            local groups=1
            [[ $way == mpirun-2h ]] && groups=2
            WSDSL_RENDEZVOUS=127.0.0.1:$port WSDSL_HOST_GROUPS=$groups timeout "$LIMIT" \
                "$MPIRUN" "${root_flag[@]}" --bind-to none -np "$NP" "${forward[@]}" $(command_of "$work") --backend "$BACKEND" > "$one" 2>&1 ;;
    esac
    rc=$?
    ms=$(kernel_ms "$one" | head -1)
    local passes expected=1
    passes=$(grep -c '^PASS' "$one")
    [[ $way != spawned ]] && expected=$NP   # every rank prints what the program prints
    if grep -q '^FAIL' "$one" || [[ $passes -lt $expected ]]; then echo FAIL
    elif [[ $rc -ne 0 || -z "$ms" ]]; then echo ERROR
    else echo "$ms"; fi
    { cat "$one"; echo "---"; } >> "$log"
    rm -f "$one"
}

ways=(spawned mpirun mpirun-2h)
printf 'workload\tway\tms\n' > "$OUT/runs.tsv"
{
    echo "| workload | $NP GPUs, spawned | mpirun -np $NP | mpirun -np $NP, 2 \"hosts\" |"
    echo "|---|---:|---:|---:|"
} | tee "$OUT/mpirun.md"
status=0
job=0
for work in $WORKLOADS; do
    declare -A times=()
    for ((r = 0; r < REPEAT; r++)); do
        for way in "${ways[@]}"; do
            job=$((job + 1))   # a port of its own: the last job's may still be closing
            t=$(run_one "$work" "$way" $((PORT + job)))
            times[$way]+="$t "
            printf '%s\t%s\t%s\n' "$work" "$way" "$t" >> "$OUT/runs.tsv"
        done
    done
    row="| $work |"
    for way in "${ways[@]}"; do
        if [[ ${times[$way]} == *FAIL* || ${times[$way]} == *ERROR* ]]; then
            row+=" ${times[$way]// /,} (see $OUT/$work-$way.log) |"; status=1
        else
            # shellcheck disable=SC2086
            row+=" $(printf '%s\n' ${times[$way]} | median) ms |"
        fi
    done
    echo "$row" | tee -a "$OUT/mpirun.md"
    unset times
done
echo "table: $OUT/mpirun.md; logs: $OUT/*.log"
exit $status
