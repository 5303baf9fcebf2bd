#!/bin/sh
# The fastest clock at which each board's FPGA can step a bare tick counter
# once per clock (fpga/ceiling/counter.v, placed and routed alone), for the
# chip's 48-bit counter and for a counter half as wide.
#
#   sh fpga/ceiling.sh OUTDIR [SEED]
#
# Writes OUTDIR/ceiling.csv (board,device,width,step,fmax_mhz), which
# fpga/report.py puts into fpga/REPORT.md beside the chip's own fmax.
set -eu
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: sh fpga/ceiling.sh OUTDIR [SEED]" >&2; exit 2; }
out=$1 seed=${2:-1}
mkdir -p "$out"
echo "board,device,width,step,fmax_mhz" > "$out/ceiling.tmp"
for board in icebreaker hx8k; do
    case $board in
        icebreaker) dev=up5k; pkg=sg48; abc9_dev=u ;;
        hx8k)       dev=hx8k; pkg=ct256; abc9_dev=hx ;;
    esac
    for width in 48 24; do
        for amount in 0 1; do
            step=$([ $amount = 0 ] && echo one || echo amount)
            d="$out/$board-$width-$step"
            mkdir -p "$d"
            yosys -q -l "$d/yosys.log" -p "
                read_verilog fpga/ceiling/counter.v;
                chparam -set WIDTH $width -set AMOUNT $amount counter;
                synth_ice40 -abc9 -device $abc9_dev -top counter -json $d/synth.json" > /dev/null
            # The pins are left to the placer; the clock is asked for far
            # above what any board reaches, so nextpnr reports what it got.
            nextpnr-ice40 --$dev --package $pkg --json "$d/synth.json" --freq 400 \
                --seed "$seed" --timing-allow-fail --pcf-allow-unconstrained \
                --report "$d/report.json" -l "$d/pnr.log" -q > /dev/null 2>&1
            fmax=$(python3 -c "
import json, sys
f = json.load(open(sys.argv[1])).get('fmax', {})
print('%.2f' % min(v['achieved'] for v in f.values()) if f else '')" "$d/report.json")
            [ -n "$fmax" ] || { echo "fpga/ceiling.sh: no fmax for $board $width $step" >&2; exit 1; }
            echo "$board,$dev,$width,$step,$fmax" >> "$out/ceiling.tmp"
        done
    done
done
mv "$out/ceiling.tmp" "$out/ceiling.csv"
cat "$out/ceiling.csv"
