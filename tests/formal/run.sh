#!/bin/sh
# Formal proofs of the RTL's `ifdef FORMAL` properties with Yosys, yosys-smtbmc
# and z3 (docs/verification.md lists every property and what each proof assumes).
#   tests/formal/run.sh [BUILD_DIR] [NAME...]   (default build/formal; NAME: run only those)
# Environment: FORMAL_DEEP=1 for the deeper bounds of docs/verification.md,
# SMT_SOLVER (default z3), YOSYS, SMTBMC.
# Prints "ok formal-NAME" or "FAIL formal-NAME" per proof and exits non-zero if
# any failed; each proof's log (and a counterexample or cover trace, trace-*.vcd) is in
# BUILD_DIR/NAME/.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/build/formal}
[ $# -gt 0 ] && shift
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
YOSYS=${YOSYS:-yosys}
SMTBMC=${SMTBMC:-yosys-smtbmc}
SOLVER=${SMT_SOLVER:-z3}
deep=${FORMAL_DEEP:-0}
only="$*"
# A proof that assumes what others prove brings them with it when asked for
# by name: search-ans-4x8 the lemma search-ans-1x8 proves; the core's
# inductions the FIFO's, the bitmap's and the search's proofs at the
# core's geometry, whose properties they assume.
bring() {   # bring NAME PROOF...: asked for NAME, run the PROOFs too
    n=$1
    shift
    case " $only " in *" $n "*) ;; *) return ;; esac
    for d in "$@"; do
        case " $only " in *" $d "*) ;; *) only="$only $d" ;; esac
    done
}
bring search-ans-4x8 search-ans-1x8
for n in core-ind core-ind-local core-ind-adv; do
    bring $n evfifo-d2 search-time-2x2
done
for n in core-shadow core-shadow-cover; do
    bring $n evfifo-d2 search-time-2x2 bitmap-b2 search-contract-any-2x2
done
failed=0
ran=""

# prove NAME MODE DEPTH DEEP_DEPTH TOP "FILES" "PARAMS" [DEFINES] [YOSYS_CMDS]
#   MODE: bmc (assertions hold for DEPTH steps from reset), ind (k-induction
#   with k = DEPTH: they hold in every reachable state), cover (every cover
#   statement is reached within DEPTH steps), witness (a cover written as a
#   failing assertion is reached: BMC over steps SKIP..N-1 for DEPTH = SKIP:N,
#   which must fail). PARAMS: "NAME=VALUE ..." of TOP.
prove() {
    name=$1 mode=$2 depth=$3 ddepth=$4 top=$5 files=$6 params=$7 defs=${8:-} ycmds=${9:-}
    if [ -n "$only" ]; then
        case " $only " in *" $name "*) ;; *) return ;; esac
    fi
    ran="$ran $name"
    [ "$deep" = 1 ] && depth=$ddepth
    dir="$out/$name"
    mkdir -p "$dir"
    log="$dir/log"
    chp=""
    for p in $params; do chp="$chp -chparam ${p%%=*} ${p#*=}"; done
    dflags=""
    for d in $defs; do dflags="$dflags -D$d"; done
    start=$(date +%s)
    # Memories become flops (the FIFO is small at these sizes) so that the
    # properties can name its words; async2sync/dffunmap as SymbiYosys does.
    # -defer: elaborate only at the proof's parameters (the defaults' 4x256
    # wheel would take Yosys seconds to unroll, for nothing).
    if ! (cd "$root" && "$YOSYS" -q -l "$dir/yosys.log" -p "
            read_verilog -defer -formal -Irtl $dflags $files
            hierarchy -check -top $top $chp
            prep -top $top
            $ycmds
            memory_map
            opt_clean
            async2sync
            dffunmap
            write_smt2 -wires $dir/model.smt2") >"$log" 2>&1; then
        echo "FAIL formal-$name (yosys, see $log)"
        failed=1
        return
    fi
    # Induction is two runs: the base case (BMC over the same depth) and the
    # inductive step.
    case $mode in
        bmc)     runs="bmc" ;;
        ind)     runs="bmc ind" ;;
        cover)   runs="cover" ;;
        witness) runs="witness" ;;
    esac
    rc=0
    for r in $runs; do
        case $r in
            bmc|witness) flags="" ;;
            ind)         flags="-i" ;;
            cover)       flags="-c" ;;
        esac
        presat=--presat
        [ $r = witness ] && presat=""
        # An induction's few queries z3 answers many times faster when it
        # is not incremental and so can simplify each formula first
        # (core-ind: 33 s against 73). The deep BMC runs ask a query a step
        # and stay incremental.
        incr=""
        [ $mode = ind ] && incr=--noincr
        # shellcheck disable=SC2086
        "$SMTBMC" -s "$SOLVER" $presat $incr --unroll --noprogress $flags -t "$depth" --dump-vcd "$dir/trace-$r.vcd" \
            "$dir/model.smt2" >>"$log" 2>&1 || rc=1
        if [ $r = witness ]; then
            # reached: the assertion failed (every other property is assumed here)
            if [ $rc -ne 0 ] && grep -q "Assert failed" "$log"; then rc=0; else rc=1; fi
        fi
        [ $rc -eq 0 ] || break
    done
    secs=$(( $(date +%s) - start ))
    if [ $rc -eq 0 ] && { [ $mode = witness ] || ! grep -q "Status: FAILED" "$log"; }; then
        echo "ok formal-$name ($mode, depth $depth, ${secs}s)"
    else
        echo "FAIL formal-$name ($mode, depth $depth, see $log)"
        grep -m 8 -E "Assert failed|Unreached cover|failed|ERROR" "$log" | sed 's/^/    /'
        failed=1
    fi
}

fifo=rtl/tw_evfifo.v
core="rtl/tw_core.v rtl/tw_bitmap.v rtl/tw_evfifo.v rtl/tw_search.v"
spi=rtl/tw_spi.v

# make test runs the quick set (about five minutes on a loaded 2-core machine);
# FORMAL_DEEP=1 deepens it and adds the core's shadow-bitmap BMC and its
# covers (each cover its own run, at the depth it is reached by) and the
# other SPI witnesses (the repeat needs two SPI frames: 196 steps; a frame
# late at its deadline, bit 62, about 128). Depths: quick, deep.
# The core at 2 x 4 slots with a 4-entry FIFO (core-ind-local: NEXT, the
# prescaler, EVT_INFO and the external input, which need none of
# core-ind's invariants; core-ind-adv:
# core-ind and ADVANCE's properties, twice its time, so deep). Its sub-modules' own
# properties are proved on their own: the FIFO's (k-induction) are assumed
# here, the search's are left out, and its timing contract
# (tw_answer_timing, proved by search-time-2x2) is assumed by the
# inductions (cind), which prove from it the search's interface the core
# relies on; the FIFO shows them its words (TW_EVFIFO_F_MEM), for the
# entries queued.
# The sub-module proofs the core's assume are at this geometry (evfifo-d2,
# bitmap-b2, search-time-2x2, search-contract-any-2x2): change them with it.
cgeo="LEVELS=2 SLOT_BITS=2 FIFO_LOG2=2"
csub="chformal -remove *tw_search*; chformal -cover -remove *tw_evfifo*; chformal -assert2assume *tw_evfifo*"
csub="$csub; chformal -assert2assume *tw_answer_timing*"
cind="TW_CORE_F_INDUCT TW_SEARCH_F_TIMING TW_EVFIFO_F_MEM"
prove evfifo-d1        ind     4 4 tw_evfifo "$fifo" "WIDTH=4 DEPTH_LOG2=1"
prove evfifo-d2        ind     4 4 tw_evfifo "$fifo" "WIDTH=4 DEPTH_LOG2=2"
prove evfifo-d4        ind     4 4 tw_evfifo "$fifo" "WIDTH=8 DEPTH_LOG2=4"
prove evfifo-cover     cover  12 12 tw_evfifo "$fifo" "WIDTH=4 DEPTH_LOG2=2"
prove spi              ind     2 4 tw_spi "$spi" ""
prove spi-executed     witness 99:100 99:100 tw_spi "$spi" "" TW_SPI_F_WITNESS=2
prove spi-deadline     ind     2 4 tw_spi "$spi" "ACK_MAX=118" TW_SPI_F_DEADLINE
# A level's bitmap (TW_BITMAP_F): both ports against a shadow, the bits a
# colliding read returns free; as the core has it (VISIT_PIPE, WRITE_AHEAD)
# and the plain ports, at one, two and four words.
bm="rtl/tw_bitmap.v"
prove bitmap-b2        ind     4 6 tw_bitmap "$bm" "SLOT_BITS=2 VISIT_PIPE=1 WRITE_AHEAD=1" TW_BITMAP_F
prove bitmap-b5        ind     4 6 tw_bitmap "$bm" "SLOT_BITS=5 VISIT_PIPE=1 WRITE_AHEAD=1" TW_BITMAP_F
prove bitmap-b6        ind     4 6 tw_bitmap "$bm" "SLOT_BITS=6 VISIT_PIPE=1 WRITE_AHEAD=1" TW_BITMAP_F
prove bitmap-b5-plain  ind     4 6 tw_bitmap "$bm" "SLOT_BITS=5 VISIT_PIPE=0 WRITE_AHEAD=0" TW_BITMAP_F
prove search-2x2       bmc    22 40 tw_search rtl/tw_search.v "LEVELS=2 SLOT_BITS=2"
# The same bounds and the search's timing contract (tw_answer_timing, which
# tw_core's inductions assume) by k-induction over invariants, for every
# reachable state: at the core's 2 x 4, with a level left early (1 x 128),
# and with a level count that is no power of two (3 x 32).
prove search-time-2x2  ind     2 2 tw_search rtl/tw_search.v "LEVELS=2 SLOT_BITS=2" TW_SEARCH_F_TIMING
prove search-time-1x7  ind     2 2 tw_search rtl/tw_search.v "LEVELS=1 SLOT_BITS=7" TW_SEARCH_F_TIMING
prove search-time-3x5  ind     2 2 tw_search rtl/tw_search.v "LEVELS=3 SLOT_BITS=5" TW_SEARCH_F_TIMING
# The search's answer and its clock, from any state (TW_SEARCH_F_ANSWER), by
# k-induction over invariants that pin every flop the answer depends on to
# the search's schedule.
# Levels are left early only with more than four words a level (b >= 7).
# The chip's 4 x 256 (deep) assumes the word-scan lemma that the one-level
# proof at the same b, search-ans-1x8, proves.
prove search-ans-2x2   ind     2 2 tw_search rtl/tw_search.v "LEVELS=2 SLOT_BITS=2" TW_SEARCH_F_ANSWER
prove search-ans-4x2   ind     2 2 tw_search rtl/tw_search.v "LEVELS=4 SLOT_BITS=2" TW_SEARCH_F_ANSWER
prove search-ans-1x5   ind     2 2 tw_search rtl/tw_search.v "LEVELS=1 SLOT_BITS=5" TW_SEARCH_F_ANSWER
prove search-ans-2x5   ind     2 2 tw_search rtl/tw_search.v "LEVELS=2 SLOT_BITS=5" TW_SEARCH_F_ANSWER
prove search-ans-1x7   ind     2 2 tw_search rtl/tw_search.v "LEVELS=1 SLOT_BITS=7" TW_SEARCH_F_ANSWER
prove search-ans-2x7   ind     2 2 tw_search rtl/tw_search.v "LEVELS=2 SLOT_BITS=7" TW_SEARCH_F_ANSWER
prove search-ans-1x8   ind     2 2 tw_search rtl/tw_search.v "LEVELS=1 SLOT_BITS=8" TW_SEARCH_F_ANSWER
# The search's contract for a caller (tw_answer_contract: core-shadow
# assumes it at the core's 2 x 4): within the answer's proof, and for every
# reachable state whatever the inputs do (starts, resets, bases and words
# at any clock), over the timing invariants; 17 clocks hold a whole 2 x 4
# search (k = 15 fails).
prove search-contract-2x2 ind  2 2 tw_search rtl/tw_search.v "LEVELS=2 SLOT_BITS=2" "TW_SEARCH_F_ANSWER TW_SEARCH_F_CONTRACT"
prove search-contract-any-2x2 ind 17 17 tw_search rtl/tw_search.v "LEVELS=2 SLOT_BITS=2" "TW_SEARCH_F_CONTRACT"
prove core-ind         ind     4 4 tw_core "$core" "$cgeo" "$cind" "$csub"
prove core-ind-local   ind     4 4 tw_core "$core" "$cgeo" "$cind TW_CORE_F_LOCAL" "$csub"
# core-shadow: the core against a shadow bitmap by k-induction, composed
# with its sub-modules' proofs: tw_bitmap's properties (bitmap-*) are
# assumed, and so is the search's contract, stated on the search's ports
# (tw_answer_contract, proved by search-contract-any-2x2). Its cover shows
# the assumptions leave a search on a busy bitmap, with its answer,
# reachable from reset (step 21). core-contract (deep) checks that contract
# on the core as built, by BMC from reset with the core's own properties
# left out.
ccompose="TW_CORE_F_SHADOW TW_BITMAP_F TW_BITMAP_F_MAP TW_SEARCH_F_CONTRACT"
csubbm="$csub; chformal -assert2assume *tw_bitmap*"
csubshadow="$csubbm; chformal -assert2assume *tw_answer_contract*"
prove core-shadow      ind     4 4 tw_core "$core" "$cgeo" "$cind $ccompose" "$csubshadow"
prove core-shadow-cover cover 24 24 tw_core "$core" "$cgeo" "$cind $ccompose TW_CORE_F_SHADOW_COVER" "$csubshadow"
if [ "$deep" = 1 ]; then
    prove search-1x7       bmc    24 40 tw_search rtl/tw_search.v "LEVELS=1 SLOT_BITS=7"
    prove search-ans-4x8   ind     2 2 tw_search rtl/tw_search.v "LEVELS=4 SLOT_BITS=8" "TW_SEARCH_F_ANSWER TW_SEARCH_F_LEMMA_ASSUMED"
    prove core-ind-adv     ind     4 4 tw_core "$core" "$cgeo" "$cind TW_CORE_F_ADV" "$csub"
    prove core-contract    bmc    40 40 tw_core "$core" "$cgeo" "$ccompose" \
        "$csubbm; chformal -assert -remove *tw_core*; chformal -cover -remove *tw_core*"
    prove core-bmc-deep    bmc    24 24 tw_core "$core" "$cgeo" "" "$csub"
    prove core-cover-late  cover  10 10 tw_core "$core" "$cgeo" TW_CORE_F_COVER=1 "$csub"
    prove core-cover-vhold cover  16 16 tw_core "$core" "$cgeo" TW_CORE_F_COVER=2 "$csub"
    prove core-cover-jump  cover  34 34 tw_core "$core" "$cgeo" TW_CORE_F_COVER=3 "$csub"
    prove core-cover-ovf   cover  24 24 tw_core "$core" "$cgeo" TW_CORE_F_COVER=4 "$csub"
    prove spi-bad-crc      witness 99:100 99:100 tw_spi "$spi" "" TW_SPI_F_WITNESS=1
    prove spi-repeat       witness 197:198 197:198 tw_spi "$spi" "" TW_SPI_F_WITNESS=3
    prove spi-late         witness 127:131 127:131 tw_spi "$spi" "" TW_SPI_F_WITNESS=4
fi

# A name asked for that no proof answered ran nothing: that is no pass.
for name in $only; do
    case "$ran " in *" $name "*) continue ;; esac
    echo "FAIL formal-$name: no such proof here (the deep set needs FORMAL_DEEP=1)"
    failed=1
done
exit $failed
