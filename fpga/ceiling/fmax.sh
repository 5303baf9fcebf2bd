#!/bin/sh
# Places and routes the pipelined core without the SPI bridge
# (fpga/ceiling/tw_core_top.v) or the search on its bitmaps
# (fpga/ceiling/tw_search_top.v) on both boards' FPGAs, with the flow of
# fpga/ceiling.sh, and prints board,seed,fmax_mhz,lcs,ebr for each seed.
#
#   sh fpga/ceiling/fmax.sh OUTDIR [TOP [SEEDS [BOARDS [PARAMS]]]]
#
# TOP is tw_core_top (default) or tw_search_top; SEEDS e.g. "1 2 3"
# (default); BOARDS "icebreaker hx8k" (default); PARAMS yosys chparam
# arguments for TOP, e.g. "-set LEVELS 1 -set SLOT_BITS 12" or
# "-set BITMAPS 0" for tw_search_top. nextpnr's log of each run is in
# OUTDIR/<board>-s<seed>/pnr.log (the critical path is at its end).
set -eu
out=$1 top=${2:-tw_core_top} seeds=${3:-"1 2 3"} boards=${4:-"icebreaker hx8k"} params=${5:-}
chparam=""
[ -z "$params" ] || chparam="chparam $params $top;"
case $top in
    tw_search_top) src="fpga/ceiling/tw_search_top.v rtl/tw_search.v rtl/tw_bitmap.v" ;;
    tw_core_top)   src="fpga/ceiling/tw_core_top.v rtl/tw_core.v rtl/tw_bitmap.v rtl/tw_evfifo.v rtl/tw_search.v" ;;
    *) echo "fmax.sh: unknown top $top" >&2; exit 1 ;;
esac
mkdir -p "$out"
echo "board,seed,fmax_mhz,lcs,ebr"
for board in $boards; do
    case $board in
        icebreaker) dev=up5k; pkg=sg48; abc9_dev=u ;;
        hx8k)       dev=hx8k; pkg=ct256; abc9_dev=hx ;;
    esac
    nice yosys -q -l "$out/$board-yosys.log" -p "
        read_verilog -Irtl $src; $chparam
        synth_ice40 -abc9 -device $abc9_dev -top $top -json $out/$board-synth.json" > /dev/null
    for seed in $seeds; do
        d="$out/$board-s$seed"
        mkdir -p "$d"
        nice nextpnr-ice40 --$dev --package $pkg --json "$out/$board-synth.json" --freq 400 \
            --seed "$seed" --timing-allow-fail --pcf-allow-unconstrained \
            --report "$d/report.json" -l "$d/pnr.log" -q > /dev/null 2>&1
        python3 - "$d/report.json" "$d/pnr.log" "$board" "$seed" <<'PY'
import json, re, sys
rep, log, board, seed = sys.argv[1:]
f = json.load(open(rep)).get('fmax', {})
fmax = '%.2f' % min(v['achieved'] for v in f.values()) if f else ''
text = open(log).read()
def used(cell):
    m = re.findall(r'%s:\s+(\d+)/\s*(\d+)' % cell, text)
    return m[-1][0] if m else ''
print('%s,%s,%s,%s,%s' % (board, seed, fmax, used('ICESTORM_LC'), used('ICESTORM_RAM')))
PY
    done
done
