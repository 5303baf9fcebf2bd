#!/bin/sh
# Icarus Verilog testbenches for the RTL.
#   tests/rtl/run.sh [BUILD_DIR]      (default: build/rtl in the repository; run from anywhere)
# Environment: SEED=N (default: each testbench's fixed default), IVERILOG, VVP,
# FPGA_MHZ_icebreaker and FPGA_MHZ_hx8k (the board tops' clocks, 48 and 120),
# RTL_DEEP=1 for the longer runs (the bitmaps 200,000 cycles instead of
# 50,000; the bridge 400 random frames and 60 aborts instead of 150 and 32).
# Prints "ok NAME" or "FAIL NAME" per run and exits non-zero if any failed;
# each run's full output is in BUILD_DIR/NAME.log.
# TW_BITMAP_COLLISION_FLIP: the bitmaps' block RAM reads the bits being
# written in the same clock inverted (rtl/tw_bitmap.v), to show that nothing
# depends on them.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/build/rtl}
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
IVERILOG=${IVERILOG:-iverilog}
VVP=${VVP:-vvp}
seedarg=${SEED:++seed=$SEED}
failed=0

# deep_args TOP: its vvp arguments for RTL_DEEP=1.
deep_args() {
    [ "${RTL_DEEP:-0}" = 1 ] || return 0
    case $1 in
        tb_tw_bitmap) echo "+cycles=200000" ;;
        tb_tw_spi) echo "+frames=400 +aborts=60" ;;
    esac
}

# run NAME TB "RTL FILES" [iverilog options...]
# TB is a testbench in tests/rtl (its name) or elsewhere (its path without .v);
# its top module is named after its file.
run() {
    name=$1 tb=$2 files=$3
    shift 3
    top=${tb##*/}
    case $tb in */*) ;; *) tb=tests/rtl/$tb ;; esac
    log="$out/$name.log"
    if ! (cd "$root" && "$IVERILOG" -g2005 -Irtl -DTW_BITMAP_COLLISION_FLIP -s "$top" -o "$out/$name.vvp" "$@" \
            "$tb.v" $files) >"$log" 2>&1; then
        echo "FAIL $name (compile, see $log)"
        failed=1
        return
    fi
    # shellcheck disable=SC2086
    (cd "$root" && "$VVP" -n "$out/$name.vvp" $seedarg $(deep_args "$top")) >>"$log" 2>&1
    if grep -q "^PASS $top\$" "$log" && ! grep -q "^FAIL " "$log"; then
        echo "ok $name"
    else
        echo "FAIL $name"
        grep -m 12 -E "^(ERROR|FAIL)" "$log" | sed 's/^/    /'
        failed=1
    fi
}

fifo=rtl/tw_evfifo.v
core="rtl/tw_core.v rtl/tw_bitmap.v rtl/tw_evfifo.v rtl/tw_search.v"
spi="rtl/tw_spi_top.v rtl/tw_spi.v $core"

# The SPI bridge's testbench takes the longest: it runs on a second core
# while the others run one after another.
{ run tb_tw_spi tb_tw_spi "$spi"; } > "$out/second-core.result" 2>&1 &
spi_pid=$!

for b in 2 4 8 12; do
    run "tb_tw_bitmap_b$b" tb_tw_bitmap rtl/tw_bitmap.v -Ptb_tw_bitmap.SLOT_BITS=$b
done
# The written flag looked up a clock ahead, as tw_core has it (its one-word
# form runs in tb_tw_core at 2_4_2).
run tb_tw_bitmap_b8_ahead tb_tw_bitmap rtl/tw_bitmap.v -Ptb_tw_bitmap.SLOT_BITS=8 \
    -Ptb_tw_bitmap.WRITE_AHEAD=1

run tb_tw_evfifo_d1 tb_tw_evfifo "$fifo" -Ptb_tw_evfifo.DEPTH_LOG2=1
run tb_tw_evfifo_d3 tb_tw_evfifo "$fifo" -Ptb_tw_evfifo.DEPTH_LOG2=3
run tb_tw_evfifo_d4 tb_tw_evfifo "$fifo" -Ptb_tw_evfifo.DEPTH_LOG2=4 -Ptb_tw_evfifo.WIDTH=61

# The boards' glue, its iCE40 pads from Yosys's simulation model.
ice40_sim=$(dirname "$(command -v yosys)")/../share/yosys/ice40/cells_sim.v
run tb_tw_board_glue tb_tw_board_glue "fpga/common/tw_board_glue.v $ice40_sim" -DNO_ICE40_DEFAULT_ASSIGNMENTS
# The shortest stretch: one bit, the LED lit a single clock.
run tb_tw_board_glue_s1 tb_tw_board_glue "fpga/common/tw_board_glue.v $ice40_sim" -DNO_ICE40_DEFAULT_ASSIGNMENTS \
    -Ptb_tw_board_glue.STRETCH_BITS=1

# Each board's top, driven at its pins, with the PLL settings icepll makes
# for its clock as fpga/build.sh does (FPGA_MHZ_<board>: `make test` passes
# the Makefile's, 48 and 120 MHz by default).
board_top() { # BOARD DEFINE MHZ
    dir="$out/pll_$1"
    mkdir -p "$dir"
    if ! command -v icepll >/dev/null 2>&1; then
        echo "FAIL tb_board_top_$1 (icepll not found: make deps installs fpga-icestorm)"
        failed=1
        return
    fi
    if ! icepll -i 12 -o "$3" -f "$dir/pll.vh" > "$dir/icepll.txt" 2>&1; then
        echo "FAIL tb_board_top_$1 (icepll cannot make $3 MHz, see $dir/icepll.txt)"
        failed=1
        return
    fi
    # the clock the PLL makes, which icepll may only approach (17 -> 16.875)
    achieved=$(sed -n 's/^F_PLLOUT: *\([0-9.]*\) MHz (achieved).*/\1/p' "$dir/icepll.txt")
    if [ -z "$achieved" ]; then
        echo "FAIL tb_board_top_$1 (no achieved frequency in $dir/icepll.txt)"
        failed=1
        return
    fi
    run "tb_board_top_$1" tb_board_top "fpga/$1/top.v fpga/common/tw_board_glue.v $spi $ice40_sim" \
        -DNO_ICE40_DEFAULT_ASSIGNMENTS -D"$2" -DMHZ="$achieved" -I"$dir"
}
board_top icebreaker BOARD_ICEBREAKER "${FPGA_MHZ_icebreaker:-48}"
board_top hx8k BOARD_HX8K "${FPGA_MHZ_hx8k:-120}"

for geo in 4_8 1_12 2_4 3_5 1_2; do
    run "tb_tw_search_$geo" tb_tw_search "rtl/tw_search.v rtl/tw_bitmap.v" \
        -Ptb_tw_search.LEVELS="${geo%_*}" -Ptb_tw_search.SLOT_BITS="${geo#*_}"
done

for geo in 4_8_4 1_12_4 2_4_2 3_6_3; do
    IFS=_ read -r l b f <<EOF
$geo
EOF
    run "tb_tw_core_$geo" tb_tw_core "$core" \
        -Ptb_tw_core.LEVELS="$l" -Ptb_tw_core.SLOT_BITS="$b" -Ptb_tw_core.FIFO_LOG2="$f"
done

wait $spi_pid
cat "$out/second-core.result"
grep -q "^FAIL" "$out/second-core.result" && failed=1

exit $failed
