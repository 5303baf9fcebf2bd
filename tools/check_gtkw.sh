#!/bin/sh
# Fails unless every signal a GTKWave layout names exists in the trace.
#   sh tools/check_gtkw.sh LAYOUT.gtkw TRACE.fst FST-SIGNALS-BINARY
set -euf  # -f: the names hold brackets, not globs
layout=$1 trace=$2 lister=$3
have=$(mktemp)
trap 'rm -f "$have"' EXIT
# GTKWave writes a vector as name[msb:lsb], with no space before the range.
"$lister" "$trace" | sed 's/ \[/[/' > "$have"
[ -s "$have" ] || { echo "$trace: no signals"; exit 1; }
missing=0 count=0
for sig in $(grep -E '^[A-Za-z_][A-Za-z0-9_]*\.' "$layout"); do
    count=$((count + 1))
    grep -qxF "$sig" "$have" || { echo "$layout: $sig is not in $trace"; missing=$((missing + 1)); }
done
[ "$count" -gt 0 ] || { echo "$layout: names no signals"; exit 1; }
[ "$missing" -eq 0 ] && echo "$layout: all $count signals are in $trace"
