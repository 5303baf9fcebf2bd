#!/bin/sh
# A parameter set the RTL does not support stops elaboration with the rule
# named, in each of the three tools that read the RTL (Icarus, Verilator's
# lint, Yosys's hierarchy check, which synth_ice40 runs), and the supported
# sets at the edges of the rules elaborate in all three.
#   tests/rtl/bad_params.sh [BUILD_DIR]     prints "ok NAME" / "FAIL NAME" lines
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/build/bad-params}
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
cd "$root" || exit 2
core="rtl/tw_core.v rtl/tw_bitmap.v rtl/tw_evfifo.v rtl/tw_search.v"
failed=0

# elaborate TOOL TOP "FILES" "NAME=VALUE ...": its output in $out/last.log, its status returned
elaborate() {
    tool=$1 top=$2 files=$3 params=$4
    case $tool in
        icarus)
            set -- $(for p in $params; do echo "-Ptw_core.${p%%=*}=${p#*=}"; done)
            [ "$top" = tw_spi ] && set -- $(for p in $params; do echo "-Ptw_spi.${p%%=*}=${p#*=}"; done)
            iverilog -g2005 -Irtl -s "$top" -o "$out/elab.vvp" "$@" $files ;;
        verilator)
            set -- $(for p in $params; do echo "-G$p"; done)
            verilator --lint-only -Wall -Wno-fatal -Irtl --top-module "$top" "$@" $files ;;
        yosys)
            chp=$(for p in $params; do printf -- '-chparam %s %s ' "${p%%=*}" "${p#*=}"; done)
            yosys -q -p "read_verilog -Irtl $files; hierarchy -check -top $top $chp" ;;
    esac > "$out/last.log" 2>&1
}

# refused TOP "FILES" "PARAMS" STOP_MODULE: every tool fails and names STOP_MODULE
refused() {
    name="rtl-refuses-$1-$(echo "$3" | tr ' =' '_-')" why=
    for tool in icarus verilator yosys; do
        if elaborate "$tool" "$1" "$2" "$3"; then
            why="$why $tool elaborated it;"
        elif ! grep -q "$4" "$out/last.log"; then
            why="$why $tool failed without naming $4: $(sed -n 1p "$out/last.log");"
        fi
    done
    verdict "$name" "$why"
}

# accepted TOP "FILES" "PARAMS": every tool elaborates it
accepted() {
    name="rtl-accepts-$1-$(echo "$3" | tr ' =' '_-')" why=
    for tool in icarus verilator yosys; do
        elaborate "$tool" "$1" "$2" "$3" || why="$why $tool: $(sed -n 1p "$out/last.log");"
    done
    verdict "$name" "$why"
}

verdict() { # NAME WHY (empty: passed)
    if [ -z "$2" ]; then echo "ok $1"; else echo "FAIL $1:$2"; failed=1; fi
}

stop=tw_core_needs_LEVELS_1_to_4_SLOT_BITS_2_to_12_LEVELS_x_SLOT_BITS_at_most_44_FIFO_LOG2_2_to_12
for g in "0 8 4" "5 8 4" "4 1 4" "1 13 4" "4 12 4" "4 8 1" "4 8 13"; do
    set -- $g
    refused tw_core "$core" "LEVELS=$1 SLOT_BITS=$2 FIFO_LOG2=$3" $stop
done
for g in "4 11 2" "1 12 12" "1 2 4"; do
    set -- $g
    accepted tw_core "$core" "LEVELS=$1 SLOT_BITS=$2 FIFO_LOG2=$3"
done
refused tw_spi rtl/tw_spi.v "ACK_MAX=119" tw_spi_ACK_MAX_exceeds_the_deadline_at_f_sys_8
accepted tw_spi rtl/tw_spi.v "ACK_MAX=118"
exit $failed
