# Helpers the GPU scripts share (sourced, not run).

# The kernel times in an example's output, one per phases line, in ms.
kernel_ms() { sed -n 's/.* run \([0-9.]*\) ms.*/\1/p' "$1"; }

# The median of the numbers on standard input, one per line ("-" for none).
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
