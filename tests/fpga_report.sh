#!/bin/sh
# fpga/report.py on made-up builds: the board's geometry built at four
# seeds, the fastest of them (a tie broken by icetime's estimate) becomes
# the board's bitstream and its row; a board none of whose builds routed is
# left without a bitstream, and the report says so and exits non-zero.
#   sh tests/fpga_report.sh [SCRATCH_DIR]
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build/fpga-report-test}
rm -rf "$dir" && mkdir -p "$dir" || exit 2
fail() { echo "FAIL: $*" >&2; exit 1; }

# build DIR BOARD LEVELS SLOT_BITS SEED FMAX STATUS [ICETIME]
build() {
    mkdir -p "$1"
    {
        echo "board=$2"; echo "levels=$3"; echo "slot_bits=$4"; echo "fifo_log2=4"
        echo "seed=$5"; echo "placer_tw=30"; echo "lcs=4500"; echo "luts=3400"; echo "ffs=2300"
        echo "ebr=16"; echo "fmax_mhz=$6"; echo "target_mhz=120"; echo "icetime_mhz=${8:-}"
        echo "status=$7"; echo "note="; echo "seconds=60"; echo "cpu_seconds=60"
    } > "$1/result.txt"
    [ -n "$6" ] && echo "bitstream of $1" > "$1/tickwheel.bin"
    : > "$1/pnr.log"
}
b=$dir/builds
build "$b/hx8k/s1/4_8" hx8k 4 8 1 108.10 timing
build "$b/hx8k/s2/4_8" hx8k 4 8 2 117.50 timing 117.00
build "$b/hx8k/s3/4_8" hx8k 4 8 3 112.00 timing
build "$b/hx8k/s4/4_8" hx8k 4 8 4 117.50 timing 116.00
build "$b/hx8k/s1/2_8" hx8k 2 8 1 125.00 ok
build "$b/icebreaker/s1/4_8" icebreaker 4 8 1 "" fail
build "$b/icebreaker/s2/4_8" icebreaker 4 8 2 "" fail

run() {
    python3 "$root/fpga/report.py" --csv "$dir/report.csv" --md "$dir/REPORT.md" --bin-dir "$dir" "$@" \
        > "$dir/out.txt" 2>&1
}

# One board whose seeds 2 and 4 are fastest, seed 2 by icetime's estimate.
run --bin "hx8k=$b/hx8k/s1/4_8,$b/hx8k/s4/4_8,$b/hx8k/s2/4_8,$b/hx8k/s3/4_8" "$b/hx8k/s1/4_8" "$b/hx8k/s1/2_8" \
    || fail "report.py failed: $(cat "$dir/out.txt")"
grep -qx "bitstream of $b/hx8k/s2/4_8" "$dir/tickwheel-hx8k.bin" || fail "the bitstream is not seed 2's"
grep -qx "hx8k,4,8,4500,2300,16,117.50,120" "$dir/report.csv" || fail "the 4_8 row is not seed 2's: $(cat "$dir/report.csv")"
grep -qx "hx8k,2,8,4500,2300,16,125.00,120" "$dir/report.csv" || fail "the sweep's 2_8 row is missing"
[ "$(grep -c '^hx8k,' "$dir/report.csv")" = 2 ] || fail "one row per geometry expected"
grep -q "| hx8k | 4 × 256 | 30 | 2 | 4500 | 117.50 | 120 | \*\*the board's bitstream\*\* |" "$dir/REPORT.md" \
    || fail "REPORT.md does not mark seed 2"
grep -q "hx8k: 4 seeds, 108.10–117.50 MHz, median 114.75" "$dir/REPORT.md" || fail "REPORT.md's seed summary"

# A board none of whose builds routed: no bitstream, a non-zero exit.
if run --bin "icebreaker=$b/icebreaker/s1/4_8,$b/icebreaker/s2/4_8" "$b/icebreaker/s1/4_8"; then
    fail "report.py exited 0 for a board without a bitstream"
fi
grep -q "icebreaker: no bitstream" "$dir/out.txt" || fail "no 'no bitstream' message: $(cat "$dir/out.txt")"
[ ! -e "$dir/tickwheel-icebreaker.bin" ] || fail "a bitstream was written for a board that has none"
echo "fpga/report.py picks the fastest seed and refuses a board without a bitstream"
