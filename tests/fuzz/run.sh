#!/bin/sh
# A short libFuzzer run of one target over a scratch copy of its corpus
# (the committed corpus is left as it is). Prints "ok fuzz/NAME ..." with the
# executions, their rate and the coverage reached, or "FAIL fuzz/NAME" with
# the saved input and the command that replays it.
#   sh tests/fuzz/run.sh BINARY CORPUS_DIR NAME SECONDS SEED
bin=$1 corpus=$2 name=$3 secs=${4:-20} seed=${5:-1}
work=$(dirname "$bin")/run-$name
rm -rf "$work" && mkdir -p "$work/corpus" && cp "$corpus"/* "$work/corpus/" 2>/dev/null
log=$work/log
if "$bin" "$work/corpus" -max_total_time="$secs" -max_len=512 -seed="$seed" -timeout=25 \
        -artifact_prefix="$work/" -print_final_stats=1 > "$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    cov=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\).*/\1 edges, \2 features/p')
    echo "ok fuzz/$name ($runs runs in ${secs}s, $rate/s, $cov, seed $seed)"
else
    crash=$(ls "$work"/crash-* "$work"/timeout-* "$work"/leak-* 2>/dev/null | head -n 1)
    why=$(grep -E '^(fuzz-|SUMMARY|.*runtime error)' "$log" | head -n 1)
    echo "FAIL fuzz/$name: $why; replay: $bin $crash (log $log)"
    exit 1
fi
