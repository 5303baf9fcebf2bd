#!/bin/sh
# Runs every check and ends with one line "N passed, M failed".
# Each check prints lines "ok NAME" or "FAIL NAME: why"; whole steps that
# produce no such lines (lint, generated files) count as one check each.
BUILD=${BUILD:-build}
GEOMETRIES=${GEOMETRIES:-4_8_4}
SEARCH_GEOMETRIES=${SEARCH_GEOMETRIES:-4_8}
WAVE_ARGS=${WAVE_ARGS:---scenario mixed --timers 40 --duration 3000}
# Exported so that the Icarus testbenches (tests/rtl/run.sh) run at this
# seed too: `make test SEED=N` then replays the whole run, theirs included.
SEED=${SEED:-$(date +%s)}
export SEED
LOG=$BUILD/test.log
mkdir -p "$BUILD"
: > "$LOG"

step() { # name command...
    name=$1; shift
    echo "== $name" >> "$LOG"
    if "$@" >> "$LOG" 2>&1; then echo "ok $name"; else echo "FAIL $name (see $LOG)"; fi
}

lines() { # command whose output carries ok/FAIL lines
    out=$("$@" 2>&1); rc=$?
    report "$*" $rc "$out"
}

report() { # command, its exit status, its output
    printf '%s\n' "$3" >> "$LOG"
    printf '%s\n' "$3" | grep -E '^(ok|FAIL|#) '
    if [ "$2" -ne 0 ] && ! printf '%s\n' "$3" | grep -q '^FAIL '; then
        echo "FAIL $1 (exit $2, see $LOG)"
    fi
}

{
    echo "# seed $SEED (replay: make test SEED=$SEED)"
    step generated-files-fresh make -s check-regs
    lines sh tests/gen_regs_check.sh "$BUILD/gen-regs-check"
    # Lint, and the refusal of unsupported parameters, read only the RTL
    # (LINT=0 skips them: make test SAN=1).
    if [ "${LINT:-1}" = 0 ]; then
        echo "# verilator-lint, rtl-refuses-*: run by the plain pass (they do not depend on the C build)"
    else
        step verilator-lint make -s lint
        lines sh tests/rtl/bad_params.sh "$BUILD/bad-params"
    fi
    # The long independent checks run two at a time (the machine's two
    # cores), longest first; each one's output is kept and reported below in
    # this order, as if they had run one after another.
    pool=$BUILD/pool
    rm -rf "$pool" && mkdir -p "$pool"
    : > "$pool/queue"
    queue() { # NAME command...: one line of xargs input (no quotes in it)
        echo "$*" >> "$pool/queue"
    }
    # The RTL testbenches and the formal proofs do not depend on how the C
    # code is built (RTL=0 and FORMAL=0 skip them: make test SAN=1).
    [ "${RTL:-1}" = 0 ] || queue rtl sh tests/rtl/run.sh "$BUILD/rtl"
    [ "${FORMAL:-1}" = 0 ] || queue formal sh tests/formal/run.sh "$BUILD/formal"
    # The SPI co-simulation, one process per link (clean, noisy); SPI_OPS:
    # its random operations (unset: the binary's default).
    queue spi-noisy "$BUILD/tests/test-spi" --link noisy --seed "$SEED" ${SPI_OPS:+--ops "$SPI_OPS"}
    queue spi-clean "$BUILD/tests/test-spi" --link clean --seed "$SEED" ${SPI_OPS:+--ops "$SPI_OPS"}
    # OPS: random operations for the first (default) geometry, SWEEP_OPS for
    # the others, which take the same paths at other sizes (unset: each
    # binary's default). make test SAN=1 sets both lower: the sanitised C
    # model and driver are several times slower.
    ops=$OPS
    for g in $GEOMETRIES; do
        queue "geo-$g" "$BUILD/tests/test-$g" --seed "$SEED" ${ops:+--ops "$ops"}
        ops=$SWEEP_OPS
    done
    # The fuzz targets are always built with ASan and UBSan, so one pass
    # runs them (FUZZ=0 skips them: make test SAN=1).
    for t in api device; do
        if [ "${FUZZ:-1}" != 0 ] && [ -x "$BUILD/fuzz/fuzz-$t" ]; then
            queue "fuzz-$t" sh tests/fuzz/run.sh "$BUILD/fuzz/fuzz-$t" "tests/fuzz/corpus/$t" "$t" 10 "$SEED"
        fi
    done
    queue spidev "$BUILD/tests/test-spidev" --seed "$SEED"
    # ENGINE_OPS: the differential test's operations (unset: its default).
    queue engines "$BUILD/tests/test-engines" --seed "$SEED" ${ENGINE_OPS:+--ops "$ENGINE_OPS"}
    # The search's word scan against its C twin, clock for clock (well under
    # a second for all).
    for g in $SEARCH_GEOMETRIES; do
        queue "search-$g" "$BUILD/tests/test-search-$g" --seed "$SEED"
    done
    # shellcheck disable=SC2016
    xargs -P 2 -L 1 sh -c 'name=$1; shift; start=$(date +%s)
        "$@" > "$0/$name.out" 2>&1; echo $? > "$0/$name.rc"
        echo $(( $(date +%s) - start )) > "$0/$name.secs"' "$pool" < "$pool/queue"
    # pooled NAME: its result, as lines() would have given it.
    pooled() {
        cmd=$(sed -n "s|^$1 ||p" "$pool/queue")
        report "$cmd" "$(cat "$pool/$1.rc" 2>/dev/null || echo 1)" "$(cat "$pool/$1.out" 2>/dev/null)"
        echo "# $1: $(cat "$pool/$1.secs" 2>/dev/null) s" >> "$LOG"
    }
    if [ "${RTL:-1}" = 0 ]; then
        echo "# rtl testbenches: run by the plain pass (they do not depend on the C build)"
    else
        pooled rtl
    fi
    [ "${FORMAL:-1}" = 0 ] || pooled formal
    for g in $GEOMETRIES; do pooled "geo-$g"; done
    for g in $SEARCH_GEOMETRIES; do pooled "search-$g"; done
    pooled spi-clean
    pooled spi-noisy
    pooled spidev
    pooled engines
    lines env BUILD="$BUILD" sh bench/run.sh --quick
    # A workload or engine name that matches nothing: refused (exit 2), the
    # results left as they were.
    step bench-refuses-unknown-names sh -c 'for v in "WORKLOADS=W2" "ENGINES=nope"; do
        env BUILD="$0" "$v" sh bench/run.sh --quick 2> "$0/bench-names.err"; rc=$?
        [ $rc -eq 2 ] && grep -q "^bench/run.sh: no " "$0/bench-names.err" || exit 1; done' "$BUILD"
    for t in api device; do
        if [ "${FUZZ:-1}" = 0 ]; then
            echo "# fuzz/$t: run by the plain pass (its binary has the sanitizers already)"
        elif [ -x "$BUILD/fuzz/fuzz-$t" ]; then
            pooled "fuzz-$t"
        else
            echo "# fuzz/$t: skipped, clang is not installed (make deps installs it)"
        fi
    done
    step sim-scenario "$BUILD/tw-sim" --timers 2000 --ticks 100000 --seed "$SEED"
    lines sh tests/sim_cli.sh "$BUILD" "$SEED"
    # A mistyped seed or count is refused (exit 2, the usage), not run as
    # another seed (each call is bounded in case it is not).
    # shellcheck disable=SC2016
    step test-programs-refuse-bad-numbers sh -c '"$0/tests/test-engines" --engine heap --ops 1000 --seed 12x 2>&1 | grep -q "^usage:" &&
        { "$0/tests/test-engines" --engine heap --ops 1000 --seed " 5" > /dev/null 2>&1; [ $? -eq 2 ]; } &&
        "$0/tests/test-spi" --seed 1 --ops 0 2>&1 | grep -q "^usage:"' "$BUILD"
    # A suite that does not exist, or lockstep on one backend, runs nothing:
    # refused, not reported as a pass.
    # shellcheck disable=SC2016
    step test-programs-refuse-bad-suites sh -c 't="$0/tests/test-$1"; "$t" --suite bogus --seed 1 2>&1 | grep -q "^usage:" &&
        { "$t" --backend model --suite lockstep --seed 1 > "$0/suite.err" 2>&1; [ $? -eq 2 ]; } &&
        grep -q "needs --backend all" "$0/suite.err"' "$BUILD" "${GEOMETRIES%% *}"
    # bench-w3 names an impossible geometry, and stops a run that would take
    # hours at its --time-limit (2^40 ticks on 256 slots: 2^32 visits a timer).
    # shellcheck disable=SC2016
    step bench-w3-refuses-and-stops sh -c '"$0/bench-w3" --t 64 --levels 4 --slot-bits 12 2>&1 | grep -q "at most 44" &&
        { "$0/bench-w3" --t 1099511627776 --fires 1 --time-limit 1 | grep -q "^skipped,1,8,fixed,"; }' "$BUILD"
    step wave-layout-matches-trace sh -c "$BUILD/tw-sim $WAVE_ARGS --trace $BUILD/wave.fst &&
        sh tools/check_gtkw.sh sim/tickwheel.gtkw $BUILD/wave.fst $BUILD/fst-signals"
    step doc-example-in-sync sh tools/check_doc_example.sh docs/driver.md
    # ... and the checkers fail when they should (on the trace just written).
    lines sh tests/tools_check.sh "$BUILD" "$BUILD/wave.fst"
    # Checkers that check nothing fail rather than pass: a doc with no block
    # to compare, a proof name that matches no proof.
    step doc-example-refuses-doc-without-block sh -c '! sh tools/check_doc_example.sh README.md'
    step formal-refuses-unknown-proof sh -c '! sh tests/formal/run.sh "$0/formal-none" no-such-proof' "$BUILD"
    step fpga-report-picks-fastest-seed sh tests/fpga_report.sh "$BUILD/fpga-report-test"
    # The area report's cuts patch the RTL by text: a change that no longer
    # matches shows here, not in the next `make fpga`.
    step fpga-area-cuts-match-rtl python3 fpga/area.py --check
    step install-and-build-out-of-tree env BUILD=build/install-check sh tests/install_check.sh
    # Both timers, in order: the retransmit on its tick, the keepalive in its range.
    # shellcheck disable=SC2016
    step example-quickstart sh -c 'out=$("$0/examples/quickstart") &&
        [ "$(printf "%s\n" "$out" | sed -n 1p)" = "retransmit fired at tick 200" ] &&
        k=$(printf "%s\n" "$out" | sed -n "2s/^keepalive fired at tick \([0-9][0-9]*\)\$/\1/p") &&
        [ -n "$k" ] && [ "$k" -ge 60000 ] && [ "$k" -le 70000 ] && [ "$(printf "%s\n" "$out" | wc -l)" -eq 2 ]' "$BUILD"
    # Each checks itself and exits non-zero on a wrong result. The RTO
    # backs off: some segment is lost three times in a row (800 ticks).
    step example-retransmit sh -c "$BUILD/examples/retransmit --seed $SEED > $BUILD/retransmit.out &&
        grep -q '^ok: every lost ack' $BUILD/retransmit.out &&
        rto=\$(sed -n 's/^  longest RTO *\([0-9]*\) .*/\1/p' $BUILD/retransmit.out) && [ \"\$rto\" -ge 800 ] && [ \"\$rto\" -le 6400 ]"
    # Every first RTO due on the run's last tick (200): each is counted as
    # due, and fires.
    step example-retransmit-rto-due-on-the-last-tick sh -c "$BUILD/examples/retransmit --connections 2000 --ticks 200 > $BUILD/last.out &&
        grep -q '^ok: every lost ack' $BUILD/last.out && grep -Eq '^  retransmissions +[1-9]' $BUILD/last.out"
    # A run shorter than the least RTO loses acks but retransmits nothing.
    step example-retransmit-short-run-is-ok sh -c "$BUILD/examples/retransmit --connections 2000 --ticks 150 > $BUILD/short.out &&
        grep -q '^ok: no lost ack had its RTO due' $BUILD/short.out && grep -Eq '^  acks lost +[1-9][0-9]* +\\(0 with' $BUILD/short.out"
    step example-retransmit-refuses-bad-numbers sh -c '"$0/examples/retransmit" --ticks 0 2>&1 | grep -q "^usage:" &&
        { "$0/examples/retransmit" --connections " 5" > /dev/null 2>&1; [ $? -eq 2 ]; } &&
        { "$0/examples/retransmit" --connections 1000001 --ticks 1 > /dev/null 2>&1; [ $? -eq 2 ]; } &&
        { "$0/examples/retransmit" --connections 1 --ticks 100000001 > /dev/null 2>&1; [ $? -eq 2 ]; }' "$BUILD"
    step example-event-loop sh -c "$BUILD/examples/event_loop --seed $SEED | grep -q '^ok: every timer fired once'"
    step example-event-loop-refuses-bad-numbers sh -c '"$0/examples/event_loop" --timers 0 2>&1 | grep -q "^usage:" &&
        { "$0/examples/event_loop" --seed " 5" > /dev/null 2>&1; [ $? -eq 2 ]; } &&
        { timeout 10 "$0/examples/event_loop" --timers 100001 > /dev/null 2>&1; [ $? -eq 2 ]; }' "$BUILD"
    # --help: the usage on stdout, exit 0; an option a program lacks: exit 2.
    for example in quickstart retransmit event_loop; do
        step example-$example-help sh -c '"$0" --help 2>/dev/null | grep -q "^usage: $1" &&
            { "$0" --frobnicate > /dev/null 2>&1; [ $? -eq 2 ]; }' "$BUILD/examples/$example" "$example"
    done
} | tee "$BUILD/test.out"

passed=$(grep -c '^ok ' "$BUILD/test.out")
failed=$(grep -c '^FAIL ' "$BUILD/test.out")
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
