#!/bin/sh
# tw-sim's command line: every scenario runs clean on every backend, bad
# options fail with a message that names the problem, --plot draws an SVG,
# and the progress bar stays out of logs unless asked for.
#   sh tests/sim_cli.sh BUILD SEED
BUILD=${1:-build}
SEED=${2:-1}
SIM=$BUILD/tw-sim
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

check() { # name condition...
    name=$1; shift
    if "$@"; then echo "ok $name"; else echo "FAIL $name"; fi
}

# A bad option: exit status 2 and the expected words on stderr, nothing on stdout.
bad() { # name expected-stderr-fragment args...
    name=$1; want=$2; shift 2
    "$SIM" "$@" > "$out/stdout" 2> "$out/stderr"; rc=$?
    if [ $rc -eq 2 ] && grep -qF -- "$want" "$out/stderr" && [ ! -s "$out/stdout" ]; then
        echo "ok sim-bad-option-$name"
    else
        echo "FAIL sim-bad-option-$name: exit $rc, stderr: $(head -c 200 "$out/stderr")"
    fi
}

bad unknown        "unknown option '--frobnicate'"  --frobnicate
bad missing-value  "--timers needs a value"         --timers
bad not-a-number   "not '12x'"                      --timers 12x
bad negative       "not '-5'"                       --timers -5
bad scenario       "no scenario 'nope'; there are: mixed" --scenario nope
bad backend        "--backend is 'vl', 'model', 'spi' or 'spidev', not 'fpga'" --backend fpga
bad spidev-opt-vl  "--irq need --backend spidev"    --irq /dev/gpiochip0:25
bad irq-form       "--irq wants CHIP:LINE"          --backend spidev --irq gpiochip0
bad irq-line       "not '/dev/gpiochip0:x'"         --backend spidev --irq /dev/gpiochip0:x
bad sck-limit      "--spi-hz 1..chip-hz / 8"        --backend spidev --chip-hz 12000000 --spi-hz 6000000
bad spi-faults-vl  "--spi-corrupt and --spi-drop need --backend spi" --spi-corrupt 0.1
bad spi-prob-range "--spi-drop wants a probability from 0 to 1, not '1.5'" --backend spi --spi-drop 1.5
bad spi-prob-form  "not '5%'"                       --backend spi --spi-corrupt 5%
bad geometry-range "geometry 5,8,4 is out of range" --backend model --geometry 5,8,4
bad geometry-form  "--geometry wants M,B,F"         --backend model --geometry 4x8
bad geometry-rtl   "--geometry needs --backend model" --geometry 2,8,4
bad geometry-wrap  "not '4294967297,8,4'"          --backend model --geometry 4294967297,8,4
bad geometry-sign  "not '+2,+10,+4'"               --backend model --geometry +2,+10,+4
bad geometry-extra "not '2,8,4,'"                  --backend model --geometry 2,8,4,
# A long option is taken by its whole name only: --time is not --timers.
bad abbreviation   "unknown option '--time' (did you mean --timers?" --time 5
bad abbrev-equals  "unknown option '--dur=200'"    --dur=200
bad duration       "--duration must be 100..2^48"   --duration 5
bad plot-name      "ending in .svg"                 --plot out.png
bad stray-argument "unexpected argument 'extra'"    extra
bad short-group    "unknown option '-x'"            -xy
bad leading-space  "not ' -5'"                      --timers " -5"
bad duration-zero  "--duration must be 100..2^48 ticks, not 0" --duration 0
# Each range's other end, and the options whose refusal came only later (the
# backend's open, exit 1) or never (a trace no backend but vl writes).
bad geometry-bits  "geometry 4,12,4 is out of range" --backend model --geometry 4,12,4
bad timers-zero    "--timers must be 1..10000000, not 0" --timers 0
bad duration-max   "--duration must be 100..2^48 ticks, not 281474976710657" --duration 281474976710657
bad trace-not-vl   "--trace needs --backend vl"     --backend model --trace "$out/w.fst"
bad irq-no-chip    "not ':25'"                      --backend spidev --irq :25
# Paths that cannot be written are refused before the run, not after it.
bad trace-path     "--trace: cannot write '/nonexistent/dir/w.fst'" --trace /nonexistent/dir/w.fst
bad plot-path      "--plot: cannot write '/nonexistent/dir/p.svg'" --backend model --plot /nonexistent/dir/p.svg
mkdir "$out/dir.svg"
bad plot-dir       "Is a directory"                 --backend model --plot "$out/dir.svg"

# The geometry's numbers are read as the other numbers are: hex after 0x.
"$SIM" --backend model --geometry 0x2,8,4 --timers 10 --duration 200 > "$out/hexgeo" 2>&1
check sim-geometry-hex grep -q 'RESULT: ok' "$out/hexgeo"

# A summary lost to a full device is a failed run, and says so.
if [ -w /dev/full ]; then
    "$SIM" --backend model --timers 10 --duration 200 > /dev/full 2> "$out/stderr"; rc=$?
    check sim-unwritable-stdout-fails sh -c "[ $rc -eq 1 ] && grep -q 'summary could not be written' '$out/stderr'"
fi

# The limits themselves are taken: 4 x 11 slot bits (44), 2^48 ticks (one
# timer: a fraction of a second), a drop probability of 1 (the link then
# fails to open, exit 1, but the option is not refused).
"$SIM" --backend model --geometry 4,11,2 --timers 10 --duration 200 > "$out/edge" 2>&1
check sim-geometry-44-bits-accepted grep -q 'RESULT: ok' "$out/edge"
"$SIM" --backend model --timers 1 --duration 281474976710656 > "$out/edge" 2>&1
check sim-duration-2-48-accepted grep -q 'RESULT: ok' "$out/edge"
"$SIM" --backend spi --spi-drop 1 --timers 5 --duration 200 > /dev/null 2> "$out/stderr"; rc=$?
check sim-spi-drop-1-accepted sh -c "[ $rc -ne 2 ] && ! grep -q 'wants a probability' '$out/stderr'"

# 010 is ten, not eight.
"$SIM" --backend model --timers 010 --duration 200 > "$out/ten" 2>&1
check sim-leading-zero-is-decimal grep -q ' 10 timers over 200 ticks' "$out/ten"

"$SIM" --help > "$out/help"
check sim-help-lists-scenarios sh -c "grep -q 'retransmit' '$out/help' && grep -q 'storm' '$out/help' && grep -q 'long' '$out/help'"

# Every scenario, small, on every backend: the run checks every timer itself.
for backend in model vl; do
    for scenario in mixed retransmit storm; do
        if "$SIM" --backend $backend --scenario $scenario --timers 500 --duration 30000 --seed "$SEED" \
            > "$out/run" 2>&1 && grep -q '^RESULT: ok' "$out/run"; then
            echo "ok sim-scenario-$scenario-$backend"
        else
            echo "FAIL sim-scenario-$scenario-$backend: $(grep -E 'RESULT|tw-sim' "$out/run" | head -3)"
        fi
    done
done
# No board: a clear error naming the device, exit status 1.
"$SIM" --backend spidev --spi-dev "$out/no-such-spidev" --timers 10 > /dev/null 2> "$out/stderr"; rc=$?
check sim-spidev-missing-device sh -c "[ $rc -eq 1 ] && grep -qF 'cannot open the board on $out/no-such-spidev' '$out/stderr'"

# The spidev backend through tw-sim's options, on the stand-in kernel of
# tests/fake_spidev.h (one Verilated board at 24 MHz, tests/tw_sim_standin.c):
# polled and on the IRQ line, every timer on its tick. At exit the stand-in
# says on stderr what reached it: the SCK rate and the line must be the
# options', and tw-sim's board cycles the board's own (counted at --chip-hz).
STANDIN=$BUILD/tests/tw-sim-standin
STANDIN_BOARD="--backend spidev --spi-dev /dev/tw-stand-in-spidev --chip-hz 24000000 --spi-hz 3000000"
standin_says() { # key: its value on the stand-in's line
    sed -n "s/^stand-in: .* $1=\([^ :]*\).*/\1/p" "$out/stand-in"
}
for line in none 25; do
    case $line in
    none) how=polled; irq="" ;;
    *) how=gpio; irq="--irq /dev/tw-stand-in-gpiochip:$line" ;;
    esac
    "$STANDIN" $STANDIN_BOARD $irq --timers 100 --duration 10000 --seed "$SEED" > "$out/run" 2> "$out/stand-in"
    rc=$?
    if [ $rc -eq 0 ] && grep -q '^RESULT: ok' "$out/run" && [ "$(standin_says violations)" = 0 ]; then
        echo "ok sim-spidev-standin-mixed-$how"
    else
        echo "FAIL sim-spidev-standin-mixed-$how: exit $rc, $(grep -E 'RESULT|tw-sim' "$out/run" | head -2)" \
            "$(cat "$out/stand-in")"
    fi
    counted=$(sed -n 's/^  board cycles *\([0-9]*\) .*/\1/p' "$out/run")
    ran=$(standin_says board_cycles)
    # Waits on the line: some on the GPIO path, none when polled.
    waits_ok=0
    case $how:$(standin_says line_waits) in polled:0 | gpio:[1-9]*) waits_ok=1 ;; esac
    if [ "$(standin_says sck_hz)" = 3000000 ] && [ "$(standin_says irq_line)" = $line ] && [ $waits_ok = 1 ] &&
        [ -n "$counted" ] && [ -n "$ran" ] && [ $((counted - ran)) -le 1 ] && [ $((ran - counted)) -le 1 ]; then
        echo "ok sim-spidev-standin-options-reach-the-board-$how"
    else
        echo "FAIL sim-spidev-standin-options-reach-the-board-$how: tw-sim counted ${counted:-no} board" \
            "cycles; $(cat "$out/stand-in")"
    fi
done
# A line the GPIO chip does not have: the open fails, naming both devices.
"$STANDIN" $STANDIN_BOARD --irq /dev/tw-stand-in-gpiochip:58 --timers 10 > "$out/run" 2> "$out/stand-in"; rc=$?
if [ $rc -eq 1 ] && [ ! -s "$out/run" ] && [ "$(standin_says irq_line)" = 58 ] && grep -qF \
    'cannot open the board on /dev/tw-stand-in-spidev with its IRQ on /dev/tw-stand-in-gpiochip line 58' \
    "$out/stand-in"; then
    echo "ok sim-spidev-standin-missing-line"
else
    echo "FAIL sim-spidev-standin-missing-line: exit $rc, $(cat "$out/stand-in")"
fi

# Over the SPI link (the FPGA top), once clean and once with one frame in 20
# corrupted and one in 50 cut or unanswered: nothing may be lost, and the
# link must have had to retry.
if "$SIM" --backend spi --timers 300 --duration 20000 --seed "$SEED" > "$out/run" 2>&1 &&
    grep -q '^RESULT: ok' "$out/run" && grep -q 'spi frames .*(0 retried' "$out/run"; then
    echo "ok sim-scenario-mixed-spi"
else
    echo "FAIL sim-scenario-mixed-spi: $(grep -E 'RESULT|tw-sim|spi frames' "$out/run" | head -3)"
fi
if "$SIM" --backend spi --spi-corrupt 0.05 --spi-drop 0.02 --timers 300 --duration 20000 --seed "$SEED" \
    > "$out/run" 2>&1 && grep -q '^RESULT: ok' "$out/run" &&
    retried=$(sed -n 's/.*spi frames *[0-9]* *(\([0-9]*\) retried.*/\1/p' "$out/run") &&
    [ "${retried:-0}" -gt 0 ]; then
    echo "ok sim-scenario-mixed-spi-noisy"
else
    echo "FAIL sim-scenario-mixed-spi-noisy: $(grep -E 'RESULT|tw-sim|spi frames' "$out/run" | head -3)"
fi
if "$SIM" --backend model --scenario long --timers 500 --seed "$SEED" > "$out/run" 2>&1 &&
    grep -q '^RESULT: ok' "$out/run"; then
    echo "ok sim-scenario-long-model"
else
    echo "FAIL sim-scenario-long-model: $(grep -E 'RESULT|tw-sim' "$out/run" | head -3)"
fi

# --duration and --ticks are one option.
"$SIM" --backend model --timers 50 --duration 1234 > "$out/d" 2>&1
check sim-duration-names-the-length grep -q 'over 1234 ticks' "$out/d"

# The plot: an SVG with one curve per level, and the numbers beside it.
if "$SIM" --backend model --timers 300 --duration 20000 --plot "$out/occ.svg" > "$out/plot" 2>&1; then
    levels=$(head -1 "$out/occ.csv" | tr ',' '\n' | grep -c '^busy_level')
    rows=$(($(wc -l < "$out/occ.csv") - 1))
    check sim-plot-svg sh -c "grep -q '<svg' '$out/occ.svg' && grep -q 'level 3' '$out/occ.svg' &&
        [ $levels -eq 4 ] && [ $rows -eq 400 ]"
else
    echo "FAIL sim-plot-svg: $(tail -2 "$out/plot")"
fi
# A quote in the name reaches gnuplot as part of the name.
"$SIM" --backend model --timers 30 --duration 2000 --plot "$out/it's.svg" > "$out/quote" 2>&1
check sim-plot-quoted-name sh -c "grep -q '<svg' \"\$1/it's.svg\" && [ ! -e \"\$1/it\" ]" sh "$out"

# No progress bar in a log (stderr not a terminal); one when asked for.
"$SIM" --backend model --timers 100 --duration 5000 > /dev/null 2> "$out/quiet"
"$SIM" --backend model --timers 100 --duration 5000 --progress > /dev/null 2> "$out/loud"
check sim-progress-only-when-asked sh -c "[ ! -s '$out/quiet' ] && grep -q '100%' '$out/loud'"
