#!/bin/sh
# Runs every check and ends with one line "N passed, M failed".
# Each check prints lines "ok NAME" or "FAIL NAME: why"; whole steps that
# produce no such lines (lint, generated files) count as one check each.
BUILD=${BUILD:-build}
GEOMETRIES=${GEOMETRIES:-4_8_4}
SEARCH_GEOMETRIES=${SEARCH_GEOMETRIES:-4_8}
WAVE_ARGS=${WAVE_ARGS:---scenario mixed --timers 40 --duration 3000}
SEED=${SEED:-$(date +%s)}
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
    step verilator-lint make -s lint
    # The SPI co-simulation is the longest single test binary: it runs on
    # the second core while the geometries run on the first, and the spidev
    # backend's test (a few seconds) after it there.
    spi_out=$BUILD/test-spi.out
    spidev_out=$BUILD/test-spidev.out
    {
        "$BUILD/tests/test-spi" --seed "$SEED" > "$spi_out" 2>&1
        echo $? > "$spi_out.rc"
        "$BUILD/tests/test-spidev" --seed "$SEED" > "$spidev_out" 2>&1
        echo $? > "$spidev_out.rc"
    } &
    spi_pid=$!
    # The RTL testbenches and the formal proofs do not depend on how the C
    # code is built (RTL=0 and FORMAL=0 skip them: make test SAN=1).
    if [ "${RTL:-1}" = 0 ]; then
        echo "# rtl testbenches: run by the plain pass (they do not depend on the C build)"
    else
        lines sh tests/rtl/run.sh "$BUILD/rtl"
    fi
    [ "${FORMAL:-1}" = 0 ] || lines sh tests/formal/run.sh "$BUILD/formal"
    for g in $GEOMETRIES; do
        # OPS: fewer random operations (make test SAN=1 sets it: the sanitised
        # model and Verilated chip are several times slower, and the plain
        # pass runs the full count).
        lines "$BUILD/tests/test-$g" --seed "$SEED" ${OPS:+--ops "$OPS"}
    done
    # The search's word scan against its C twin, clock for clock (well under
    # a second for all).
    for g in $SEARCH_GEOMETRIES; do
        lines "$BUILD/tests/test-search-$g" --seed "$SEED"
    done
    wait "$spi_pid"
    report "$BUILD/tests/test-spi --seed $SEED" "$(cat "$spi_out.rc" 2>/dev/null || echo 1)" "$(cat "$spi_out")"
    report "$BUILD/tests/test-spidev --seed $SEED" "$(cat "$spidev_out.rc" 2>/dev/null || echo 1)" "$(cat "$spidev_out")"
    lines "$BUILD/tests/test-engines" --seed "$SEED"
    lines env BUILD="$BUILD" sh bench/run.sh --quick
    # The fuzz targets are always built with ASan and UBSan, so one pass
    # runs them (FUZZ=0 skips them: make test SAN=1).
    for t in api device; do
        if [ "${FUZZ:-1}" = 0 ]; then
            echo "# fuzz/$t: run by the plain pass (its binary has the sanitizers already)"
        elif [ -x "$BUILD/fuzz/fuzz-$t" ]; then
            lines sh tests/fuzz/run.sh "$BUILD/fuzz/fuzz-$t" "tests/fuzz/corpus/$t" "$t" 20 "$SEED"
        else
            echo "# fuzz/$t: skipped, clang is not installed (make deps installs it)"
        fi
    done
    step sim-scenario "$BUILD/tw-sim" --timers 2000 --ticks 100000 --seed "$SEED"
    lines sh tests/sim_cli.sh "$BUILD" "$SEED"
    step wave-layout-matches-trace sh -c "$BUILD/tw-sim $WAVE_ARGS --trace $BUILD/wave.fst &&
        sh tools/check_gtkw.sh sim/tickwheel.gtkw $BUILD/wave.fst $BUILD/fst-signals"
    step doc-example-in-sync sh tools/check_doc_example.sh docs/driver.md
    step install-and-build-out-of-tree env BUILD=build/install-check sh tests/install_check.sh
    step example-quickstart sh -c "$BUILD/examples/quickstart | grep -qx 'retransmit fired at tick 200'"
    # Each checks itself and exits non-zero on a wrong result.
    step example-retransmit sh -c "$BUILD/examples/retransmit --seed $SEED | grep -q '^ok: every lost ack'"
    step example-event-loop sh -c "$BUILD/examples/event_loop --seed $SEED | grep -q '^ok: every timer fired once'"
} | tee "$BUILD/test.out"

passed=$(grep -c '^ok ' "$BUILD/test.out")
failed=$(grep -c '^FAIL ' "$BUILD/test.out")
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
