#!/bin/sh
# One iCE40 build: Yosys -> nextpnr-ice40 -> icepack -> icetime.
#
#   sh fpga/build.sh BOARD LEVELS SLOT_BITS MHZ OUTDIR [SEED]
#
# Environment: FIFO_LOG2 (default 4); PLACER_TW, nextpnr's heap placer timing
# weight (empty: nextpnr's own default, 10).
#
# Run from the repository root (the Makefile's `fpga` target does). Writes
# everything into OUTDIR: pll.vh, yosys.log, stat.txt, synth.json, pnr.log,
# report.json, tickwheel.asc/.bin, icetime.txt, and last result.txt, the
# build's summary as `key=value` lines that fpga/report.py turns into
# fpga/report.csv and fpga/REPORT.md.
#
# A build that does not fit or misses timing is a result, not an error: the
# script exits 0 and says so in result.txt. It exits non-zero only when a
# tool is missing or broken, or the synthesis itself fails (broken RTL).
set -u

if [ $# -lt 5 ] || [ $# -gt 6 ]; then
    echo "usage: sh fpga/build.sh BOARD LEVELS SLOT_BITS MHZ OUTDIR [SEED]  (BOARD: icebreaker or hx8k)" >&2
    exit 2
fi
board=$1 levels=$2 slot_bits=$3 mhz=$4 out=$5 seed=${6:-1}
fifo_log2=${FIFO_LOG2:-4}
placer_tw=${PLACER_TW:-}

case $board in
    icebreaker) dev=up5k; pkg=sg48; abc9_dev=u ;;
    hx8k)       dev=hx8k; pkg=ct256; abc9_dev=hx ;;
    *) echo "fpga/build.sh: unknown board '$board'" >&2; exit 2 ;;
esac

# The board-independent chip (SPI bridge + core) and the board wrapper.
rtl="rtl/tw_spi_top.v rtl/tw_spi.v rtl/tw_core.v rtl/tw_bitmap.v rtl/tw_evfifo.v rtl/tw_search.v"
src="$rtl fpga/common/tw_board_glue.v fpga/$board/top.v"
pcf=fpga/$board/$board.pcf

mkdir -p "$out"
rm -f "$out/result.txt" "$out/tickwheel.bin"
t0=$(date +%s)

status=ok note="" lcs="" ffs="" luts="" ebr="" fmax="" icetime_mhz=""

# ---------------------------------------------------------------- PLL
# icepll picks DIVR/DIVF/DIVQ for the requested clock; nextpnr is then asked
# for the frequency the PLL really makes.
if ! icepll -i 12 -o "$mhz" -f "$out/pll.vh" > "$out/icepll.txt" 2>&1; then
    echo "fpga/build.sh: icepll cannot make $mhz MHz from 12 MHz" >&2
    cat "$out/icepll.txt" >&2
    exit 1
fi
target=$(sed -n 's/^F_PLLOUT: *\([0-9.]*\) MHz (achieved).*/\1/p' "$out/icepll.txt" | sed 's/0*$//; s/\.$//')
if [ -z "$target" ]; then
    echo "fpga/build.sh: cannot read the PLL frequency from $out/icepll.txt" >&2
    exit 1
fi

# ---------------------------------------------------------------- Yosys
# ABC9 maps LUTs knowing the device's cell and carry delays: on the default
# chip it gave about 10 % more fmax on the UP5K and 6 % on the HX8K than
# plain ABC, with about 100 fewer LCs (docs/fpga.md); -dff added nothing.
if ! yosys -q -l "$out/yosys.log" -p "
        read_verilog -Irtl -I$out $src;
        chparam -set LEVELS $levels -set SLOT_BITS $slot_bits -set FIFO_LOG2 $fifo_log2 top;
        synth_ice40 -abc9 -device $abc9_dev -top top -json $out/synth.json;
        tee -q -o $out/stat.txt stat" > /dev/null 2>&1; then
    echo "fpga/build.sh: yosys failed for $board ${levels}x$slot_bits, see $out/yosys.log" >&2
    tail -20 "$out/yosys.log" >&2
    exit 1
fi
cells() { awk -v pat="$1" '$1 ~ pat { n += $2 } END { print n + 0 }' "$out/stat.txt"; }
ffs=$(cells '^SB_DFF')
luts=$(cells '^SB_LUT4$')

# ------------------------------------------------------------- nextpnr
# --timing-allow-fail: a missed clock is reported (fmax below target), not
# fatal; a design that does not fit stops nextpnr and is reported as such.
if nextpnr-ice40 --$dev --package $pkg --pcf "$pcf" --json "$out/synth.json" \
        --asc "$out/tickwheel.asc" --freq "$target" --seed "$seed" \
        --timing-allow-fail --report "$out/report.json" \
        ${placer_tw:+--placer-heap-timingweight "$placer_tw"} \
        -l "$out/pnr.log" -q > /dev/null 2>&1; then
    eval "$(python3 - "$out/report.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
u = r["utilization"]
print("lcs=%d" % u["ICESTORM_LC"]["used"])
print("ebr=%d" % u["ICESTORM_RAM"]["used"])
f = r.get("fmax", {})
# The design clock is the PLL output; it is the only clock in the report.
if f:
    print("fmax=%.2f" % min(v["achieved"] for v in f.values()))
EOF
)"
    if [ -z "$fmax" ]; then
        status=fail; note="nextpnr reported no fmax"
    elif python3 -c "import sys; sys.exit(0 if float('$fmax') >= float('$target') else 1)"; then
        status=ok
    else
        status=timing; note="misses timing: $fmax of $target MHz"
    fi
    if icepack "$out/tickwheel.asc" "$out/tickwheel.bin" > "$out/icepack.txt" 2>&1; then
        icetime -d $dev -P $pkg -p "$pcf" -t "$out/tickwheel.asc" > "$out/icetime.txt" 2>&1
        icetime_mhz=$(sed -n 's/^Total path delay: .*(\([0-9.]*\) MHz).*/\1/p' "$out/icetime.txt")
        # No estimate is a broken install (icetime's chipdb), not a result.
        if [ -z "$icetime_mhz" ]; then
            echo "fpga/build.sh: icetime gave no estimate, see $out/icetime.txt:" >&2
            tail -1 "$out/icetime.txt" >&2
            exit 1
        fi
    else
        status=fail; note="icepack failed"
    fi
else
    # Did not fit, or did not place/route. The packer's utilisation (printed
    # before placement) still says how large the design is.
    util() { sed -n "s/^Info:[[:space:]]*$1:[[:space:]]*\([0-9]*\)\/[[:space:]]*\([0-9]*\).*/\\$2/p" "$out/pnr.log" | head -1; }
    lcs=$(util ICESTORM_LC 1)
    avail=$(util ICESTORM_LC 2)
    ebr=$(util ICESTORM_RAM 1)
    err=$(grep -m1 '^ERROR:' "$out/pnr.log" | sed 's/^ERROR: *//' | tr -d '\r' | tr '\n' ' ')
    if [ -n "$lcs" ] && [ -n "$avail" ] && [ "$lcs" -gt "$avail" ]; then
        status=nofit; note="does not fit: needs $lcs of $avail LCs"
    else
        status=fail; note="nextpnr failed: ${err:-see pnr.log}"
    fi
fi

t1=$(date +%s)
# CPU time of the tools: user + system of this script's children (the
# second line of `times`, which must run in this shell, not a subshell).
times > "$out/times.txt"
cpu=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); t += a[1] * 60 + a[2] } printf "%.0f", t }' "$out/times.txt")
{
    echo "board=$board"
    echo "levels=$levels"
    echo "slot_bits=$slot_bits"
    echo "fifo_log2=$fifo_log2"
    echo "seed=$seed"
    echo "placer_tw=$placer_tw"
    echo "lcs=$lcs"
    echo "luts=$luts"
    echo "ffs=$ffs"
    echo "ebr=$ebr"
    echo "fmax_mhz=$fmax"
    echo "target_mhz=$target"
    echo "icetime_mhz=$icetime_mhz"
    echo "status=$status"
    echo "note=$note"
    echo "seconds=$((t1 - t0))"
    echo "cpu_seconds=$cpu"
} > "$out/result.tmp" && mv "$out/result.tmp" "$out/result.txt"
echo "fpga: $board ${levels}x$slot_bits: $status${note:+ ($note)}"
