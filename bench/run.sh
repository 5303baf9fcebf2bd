#!/bin/sh
# Runs the workloads of ../shared/workloads.md (W1-W4) against every engine,
# one process per engine and size, and the micro-benchmarks; writes CSV and
# plots. Called by `make bench` and `make bench-quick`.
#
#   sh bench/run.sh            standard sizes into bench/results/ (tens of minutes)
#   sh bench/run.sh --quick    tiny sizes into $BUILD/bench-quick/ (seconds); checks
#                              that every engine gives the same W1 checksum and W4
#                              counts, no idle, deadline or late fires, and W3 within
#                              the paper's bound; prints ok/FAIL lines
#
# A run that would pass its time limit stops early and is recorded in
# *_skipped.csv with the time projected from the part it did; a larger size
# of an engine already skipped is not started, and its projection scales
# with the size.
#   WORKLOADS="w1 w3"          run only these (default: w1 w1service w2 w3 w4 micro)
#   ENGINES="scheme7 heap"     only these engines (default: all)
#   APPEND=1                   add to the CSV files (and machine.txt) instead of starting
#                              them afresh: a subset run without it leaves only its own rows
set -u
BUILD=${BUILD:-build}
WORKLOADS=${WORKLOADS:-"w1 w1service w2 w3 w4 micro"}
APPEND=${APPEND:-0}
# header FILE LINE: start FILE with LINE, unless adding to an existing one.
header() { [ "$APPEND" = 1 ] && [ -s "$1" ] || echo "$2" > "$1"; }
want() { case " $WORKLOADS " in *" $1 "*) return 0 ;; esac; return 1; }
QUICK=0
case "$#:${1:-}" in
0:) ;;
1:--quick) QUICK=1 ;;
*) echo "usage: sh bench/run.sh [--quick]   (WORKLOADS, ENGINES, APPEND in the environment)" >&2; exit 2 ;;
esac

ALL_ENGINES="tickwheel scheme1 scheme2 scheme3 scheme4 scheme5 scheme6 scheme7 heap lawn"
ENGINES=${ENGINES:-$ALL_ENGINES}
# A name that matches nothing would run nothing and still replace results:
# refused before any file is touched.
known() { # what name list...
    what=$1 name=$2; shift 2
    case " $* " in *" $name "*) return 0 ;; esac
    echo "bench/run.sh: no $what '$name' (there are: $*)" >&2
    exit 2
}
for w in $WORKLOADS; do known workload "$w" w1 w1service w2 w3 w4 micro; done
for e in $ENGINES; do known engine "$e" $ALL_ENGINES; done
if [ $QUICK = 1 ]; then
    OUT=$BUILD/bench-quick
    W1_SIZES="8"; W1_LIMIT=60
    W2_SIZES="10 1000"; W2_ITERS=1000; W2_LIMIT=60
    W3_T="64 1024"; W3_T_LONG=""; W3_FIRES=2000
    W4_SIZES="500"; W4_LIMIT=60
else
    OUT=bench/results
    # Time limits in seconds, per size where a list; a run projected past its
    # limit is recorded as skipped. The limits keep `make bench` near an hour.
    W1_SIZES=${W1_SIZES:-"1024 32768 131072"}; W1_LIMIT=${W1_LIMIT:-"1024:300 32768:1500 131072:900"}
    W2_SIZES=${W2_SIZES:-"10 100 1000 10000 100000 1000000"}; W2_ITERS=10000; W2_LIMIT=${W2_LIMIT:-60}
    W3_T="16 64 256 1024 4096 16384 65536"; W3_T_LONG="262144 1048576 4194304 16777216"; W3_FIRES=5000
    W4_SIZES=${W4_SIZES:-"10000 100000 1000000"}; W4_LIMIT=${W4_LIMIT:-"10000:120 100000:300 1000000:600"}
    W1_SERVICE_PAIRS=32768; W1_SERVICE_ENGINES="tickwheel scheme7"; W1_SERVICE_RUNS=3
fi
mkdir -p "$OUT"
FAILS=0
ok() { [ $QUICK = 1 ] && echo "ok bench-quick/$1"; return 0; }
# Counted in either mode: a run with a failure exits non-zero.
fail() { [ $QUICK = 1 ] && echo "FAIL bench-quick/$1" || echo "FAIL bench/$1"; FAILS=$((FAILS + 1)); }
say() { [ $QUICK = 1 ] || echo "[bench $(date +%H:%M:%S)] $*"; }

# The machine, for the report: one block per run, added to the earlier
# runs' blocks with APPEND=1 (each block says which workloads it ran).
[ "$APPEND" = 1 ] && [ -s "$OUT/machine.txt" ] && echo >> "$OUT/machine.txt" || : > "$OUT/machine.txt"
{
    echo "workloads: $WORKLOADS"
    echo "engines: $ENGINES"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "nproc: $(nproc)"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
    echo "cc: $(${CC:-cc} --version | head -1)"
} >> "$OUT/machine.txt"

# run_sized WORKLOAD CSV SKIPCSV LIMIT SIZEOPT SIZES EXTRA...: every engine at
# every size; rows to CSV, skips to SKIPCSV, a failing exit is reported.
run_sized() {
    wl=$1 csv=$2 skipcsv=$3 limit=$4 sizeopt=$5 sizes=$6; shift 6
    for e in $ENGINES; do
        skipped_at="" projected=""
        for n in $sizes; do
            if [ -n "$skipped_at" ]; then
                proj=$(awk -v p="$projected" -v a="$skipped_at" -v b="$n" 'BEGIN { if (p == "") print ""; else printf "%.0f", p * b / a }')
                echo "skipped,$e,$n,$proj,not run: skipped at $skipped_at (projection scaled by size)" | cut -d, -f2- >> "$skipcsv"
                say "$wl $e $sizeopt $n: skipped (skipped at $skipped_at)"
                continue
            fi
            lim=$(echo "$limit" | tr ' ' '\n' | awk -F: -v n="$n" 'NF == 1 || $1 == n { print $NF; exit }')
            say "$wl $e $sizeopt $n (limit ${lim} s) ..."
            t0=$(date +%s)
            row=$(nice -n 10 "$BUILD/bench-$wl" --engine "$e" "$sizeopt" "$n" --time-limit "${lim:-0}" "$@" \
                  2>> "$OUT/$wl.log")
            rc=$?
            case $rc in
            0) echo "$row" >> "$csv"; say "  $row  ($(($(date +%s) - t0)) s)" ;;
            3) echo "$row" | cut -d, -f2- >> "$skipcsv"
               skipped_at=$n; projected=$(echo "$row" | cut -d, -f4)
               say "  $row" ;;
            *) fail "$wl/$e/$n: exit $rc (see $OUT/$wl.log)" ;;
            esac
        done
    done
}

# ------------------------------------------------------------------- W3
if want w3; then
say "W3: events and interrupts per timer on the chip model"
header "$OUT/w3.csv" "levels,slot_bits,dist,t,t_over_m,fired,events_per_timer,irqs_per_timer,predicted,late"
for m in 1 2 3 4; do
    for d in fixed exp; do
        # Longer intervals reach the upper levels of the deeper hierarchies
        # (the hashed wheel would take T/M events each: nothing new to see).
        tlist=$W3_T
        [ $m -gt 1 ] && tlist="$W3_T $W3_T_LONG"
        for t in $tlist; do
            if row=$(nice -n 10 "$BUILD/bench-w3" --levels $m --slot-bits 8 --dist $d --t $t --fires $W3_FIRES --timers 1); then
                echo "$row" >> "$OUT/w3.csv"
            else
                fail "w3/m$m/$d/T$t: a timer fired off its deadline or the run failed"
            fi
        done
    done
done
say "  done"
if [ $QUICK = 1 ]; then
    # At most m events per timer on a hierarchy; at most ceil(T/M) for a fixed
    # interval on the hashed wheel (fewer when timers share a visit).
    bad=$(awk -F, 'NR > 1 && (($1 > 1 && $7 > $1 + 1e-9) || ($1 == 1 && $3 == "fixed" && $7 > int(($4 + 255) / 256) + 1e-9) || $10 != 0)' "$OUT/w3.csv")
    if [ -z "$bad" ]; then ok "w3/within-paper-bounds"; else fail "w3/within-paper-bounds: $bad"; fi
fi

fi

# ------------------------------------------------------------------- W2
if want w2; then
say "W2: start+stop against N outstanding timers (Fig. 9)"
header "$OUT/w2.csv" "engine,n,iters,ns_per_iter,fill_ns_per_start,bus_per_iter,peak_rss"
header "$OUT/w2_skipped.csv" "engine,n,projected_seconds,reason"
run_sized w2 "$OUT/w2.csv" "$OUT/w2_skipped.csv" "$W2_LIMIT" --n "$W2_SIZES" --iters $W2_ITERS --quiet
if [ $QUICK = 1 ]; then
    rows=$(awk -F, 'NR > 1' "$OUT/w2.csv" | wc -l) want_rows=$(($(echo $ENGINES | wc -w) * $(echo $W2_SIZES | wc -w)))
    if [ "$rows" -eq "$want_rows" ]; then ok "w2/every-engine"; else fail "w2/every-engine: $rows rows, not $want_rows"; fi
fi

fi

# ------------------------------------------------------------------- W4
if want w4; then
say "W4: retransmission timers"
header "$OUT/w4.csv" "engine,conns,ops,seconds,ops_per_s,retransmits,late,bus_per_op,peak_rss"
header "$OUT/w4_skipped.csv" "engine,conns,projected_seconds,reason"
run_sized w4 "$OUT/w4.csv" "$OUT/w4_skipped.csv" "$W4_LIMIT" --conns "$W4_SIZES" $([ $QUICK = 1 ] && echo --quiet)
if [ $QUICK = 1 ]; then
    # The same workload everywhere: equal operations and retransmissions, none
    # late, and a row from every engine.
    n=$(awk -F, 'NR > 1 { print $2 "," $3 "," $6 "," $7 }' "$OUT/w4.csv" | sort -u | wc -l)
    late=$(awk -F, 'NR > 1 && $7 != 0' "$OUT/w4.csv")
    rows=$(awk -F, 'NR > 1' "$OUT/w4.csv" | wc -l)
    if [ "$n" -eq 1 ] && [ -z "$late" ] && [ "$rows" -eq $(echo $ENGINES | wc -w) ]; then ok "w4/engines-agree-none-late"
    else fail "w4/engines-agree-none-late: $(awk -F, 'NR > 1 { printf "%s ops=%s rtx=%s late=%s; ", $1, $3, $6, $7 }' "$OUT/w4.csv")"; fi
fi

fi

# ------------------------------------------------------------------- W1
if want w1; then
say "W1: connection pairs (15,000,000 ticks)"
header "$OUT/w1.csv" "engine,pairs,ops,seconds,ops_per_s,max_service_us,checksum"
header "$OUT/w1_skipped.csv" "engine,pairs,projected_seconds,reason"
[ "$APPEND" = 1 ] || : > "$OUT/w1.log"
run_sized w1 "$OUT/w1.csv" "$OUT/w1_skipped.csv" "$W1_LIMIT" --pairs "$W1_SIZES" $([ $QUICK = 1 ] && echo --quiet)
{
    echo "engine,pairs,idle_starts,other_starts,stops,fires,bad_fires,live_per_pair,bus_per_op,irqs_per_fire,events_per_fire,cycles_per_op,service_p9999_us_le,wall_seconds,engine_bytes,peak_rss,max_ops_per_call,service_calls,service_over_100us,fire_digest,bad_stops"
    grep '^detail,' "$OUT/w1.log" | sed 's/^detail,//; s/[a-z_0-9]*=//g'
} > "$OUT/w1_detail.csv"
# Every engine that ran a size must agree on its checksum and on which
# timers fired at which ticks (the detail's fire digest); in quick mode
# every engine must have run it.
for n in $W1_SIZES; do
    # engine=checksum/digest, one line per engine that ran this size
    runs=$(awk -F, -v n=$n 'NR == FNR { if (FNR > 1 && $2 == n) d[$1] = $20; next }
                            FNR > 1 && $2 == n { print $1 "=" $7 "/" d[$1] }' "$OUT/w1_detail.csv" "$OUT/w1.csv")
    sums=$(echo "$runs" | sed -n 's/^[^=]*=//p' | sort -u)
    rows=$(echo "$runs" | grep -c =)
    say "W1 $n pairs: checksum/fire digest $(echo $sums)"
    if [ "$(echo "$sums" | wc -l)" -eq 1 ] && [ -n "$sums" ] && { [ $QUICK = 0 ] || [ "$rows" -eq $(echo $ENGINES | wc -w) ]; }; then
        ok "w1/$n-pairs/checksums-agree"
    elif [ "$rows" -gt 0 ] || [ $QUICK = 1 ]; then
        fail "w1/$n-pairs/checksums-agree: $(echo $runs)"
    fi
done

if [ $QUICK = 1 ]; then
    # --repeat: the runs are identical (bench-w1 checks), and a call's least
    # time over them is no more than its time in any run, so the worst of
    # those is no more than the smallest of the runs' worst calls.
    if "$BUILD/bench-w1" --engine tickwheel --pairs 8 --repeat 2 --quiet > /dev/null 2> "$OUT/w1_repeat.log" &&
       awk -F, '/^detail,/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
            n = split(v["service_max_us_by_run"], m, ":"); least = m[1] + 0
            for (i = 2; i <= n; i++) if (m[i] + 0 < least) least = m[i] + 0
            exit !(v["runs"] == 2 && n == 2 && v["service_least_of_runs_max_us"] != "" &&
                   v["service_least_of_runs_max_us"] + 0 <= least) }' "$OUT/w1_repeat.log"
    then ok "w1/repeat-least-of-runs"; else fail "w1/repeat-least-of-runs: see $OUT/w1_repeat.log"; fi
fi
fi

# ------------------------------------------------------- W1 service time
# The worst service call again, for tickwheel and the fastest software
# wheel at the target size: each call's least time over identical runs, so
# that the time slices the scheduler gave other processes mostly drop out.
if [ $QUICK = 0 ] && want w1service; then
    # Three identical runs; each call's time is the least of its three, so
    # what a preempted call lost on this shared machine mostly drops out.
    say "W1 service time, least of $W1_SERVICE_RUNS identical runs per call, $W1_SERVICE_PAIRS pairs"
    header "$OUT/w1_service.csv" "engine,pairs,runs,max_service_us,calls_over_100us,least_of_runs_max_us,least_of_runs_over_100us,max_ops_per_call,service_calls"
    for e in $W1_SERVICE_ENGINES; do
        case " $ENGINES " in *" $e "*) ;; *) continue ;; esac
        if ! nice -n 10 "$BUILD/bench-w1" --engine $e --pairs $W1_SERVICE_PAIRS --repeat $W1_SERVICE_RUNS --quiet \
            > "$OUT/w1_service.row" 2> "$OUT/w1_service.log"; then
            fail "w1service/$e: bench-w1 failed (see $OUT/w1_service.log)"
            continue
        fi
        det=$(grep '^detail,' "$OUT/w1_service.log" | tr ',' '\n')
        field() { echo "$det" | sed -n "s/^$1=//p"; }
        echo "$e,$W1_SERVICE_PAIRS,$(field runs),$(cut -d, -f6 "$OUT/w1_service.row"),$(field service_over_100us),$(field service_least_of_runs_max_us),$(field service_least_of_runs_over_100us),$(field max_ops_per_call),$(field service_calls)" >> "$OUT/w1_service.csv"
        say "  $(tail -n 1 "$OUT/w1_service.csv")"
    done
    rm -f "$OUT/w1_service.row"
fi

# ---------------------------------------------------------------- micro
if [ $QUICK = 0 ] && want micro; then
    say "micro: Verilator cycles/s, co-simulated bus operations/s, driver hot paths"
    if nice -n 10 "$BUILD/bench-micro" > "$OUT/micro.csv.new"; then
        mv "$OUT/micro.csv.new" "$OUT/micro.csv"
        cat "$OUT/micro.csv"
    else
        rm -f "$OUT/micro.csv.new"
        fail "micro: bench-micro failed"
    fi
fi

# ------------------------------------------------------- bad options
# A mistyped seed or limit must stop the run with a message, not run
# another seed (the figures would not replay).
if [ $QUICK = 1 ]; then
    bad_opt() { # name expected-stderr-fragment program args...
        name=$1 frag=$2; shift 2
        "$@" > "$OUT/bad.out" 2> "$OUT/bad.err"; rc=$?
        if [ $rc -eq 2 ] && grep -qF -- "$frag" "$OUT/bad.err" && [ ! -s "$OUT/bad.out" ]; then ok "bad-option/$name"
        else fail "bad-option/$name: exit $rc, stderr: $(head -c 200 "$OUT/bad.err")"; fi
    }
    bad_opt w1-seed "--seed: expected a whole number" "$BUILD/bench-w1" --engine scheme7 --pairs 8 --seed 12x
    bad_opt w1-seed-overflow "got '99999999999999999999'" "$BUILD/bench-w1" --engine scheme7 --pairs 8 --seed 99999999999999999999
    bad_opt w2-time-limit "--time-limit: expected a number of seconds" "$BUILD/bench-w2" --engine heap --n 10 --time-limit soon
    bad_opt w4-engine "unknown engine 'nope'" "$BUILD/bench-w4" --engine nope --conns 10
    bad_opt w1-pairs "--pairs: expected a whole number in 1.." "$BUILD/bench-w1" --engine scheme7 --pairs 0
    bad_opt micro-unknown "usage: bench-micro [--quick]" "$BUILD/bench-micro" --bogus
    rm -f "$OUT/bad.out" "$OUT/bad.err"
fi

# ---------------------------------------------------------------- plots
if command -v gnuplot > /dev/null 2>&1; then
    : > "$OUT/plots.log"
    if gnuplot -e "dir='$OUT'" bench/plots.gp 2>> "$OUT/plots.log"; then
        [ $QUICK = 1 ] && ok "plots"
        say "plots: $OUT/*.svg"
    else
        fail "plots (see $OUT/plots.log)"
    fi
fi
[ $QUICK = 1 ] || say "done: $OUT"
[ $FAILS -eq 0 ]
