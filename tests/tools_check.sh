#!/bin/sh
# The checkers behind make test fail when they should: check_gtkw.sh on a
# layout naming a signal the trace lacks (or only the start of one), on a
# layout naming none and on a file that is not a trace; fst-signals on a
# file that is not FST; check_doc_example.sh on a stale copy, and not on a
# good copy that follows another C block. The benchmarks and fst-signals
# answer --help with their usage on stdout and status 0, and an unknown
# option with it on stderr and status 2.
#   sh tests/tools_check.sh BUILD TRACE.fst
BUILD=${1:-build}
TRACE=$2
LISTER=$BUILD/fst-signals
LAYOUT=sim/tickwheel.gtkw
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

check() { # name condition...
    name=$1; shift
    if "$@"; then echo "ok $name"; else echo "FAIL $name"; fi
}
# gtkw NAME LAYOUT TRACE: check_gtkw.sh must fail, saying why on stdout.
refused() {
    if sh tools/check_gtkw.sh "$2" "$3" "$LISTER" > "$out/why" 2>&1; then
        echo "FAIL gtkw-refuses-$1: passed: $(head -c 200 "$out/why")"
    elif [ ! -s "$out/why" ]; then
        echo "FAIL gtkw-refuses-$1: failed without a word"
    else
        echo "ok gtkw-refuses-$1"
    fi
}

# The layout as it is passes (make test's wave-layout-matches-trace);
# so does it here, or the cases below prove nothing.
check gtkw-accepts-the-layout sh -c 'sh tools/check_gtkw.sh "$@" > /dev/null' sh "$LAYOUT" "$TRACE" "$LISTER"
"$LISTER" "$TRACE" > "$out/have"

# One name more, that no trace has.
{ cat "$LAYOUT"; echo "TOP.tw_core.no_such_signal"; } > "$out/extra.gtkw"
refused missing-signal "$out/extra.gtkw" "$TRACE"
grep -q 'no_such_signal is not in' "$out/why" || echo "FAIL gtkw-names-the-missing-signal: $(head -c 200 "$out/why")"
# A name that is only the start of one in the trace: a whole name is wanted.
first=$(grep -E '^[A-Za-z_][A-Za-z0-9_]*\.' "$LAYOUT" | grep -v '\[' | head -1)
cut=${first%?}
if [ -z "$first" ] || grep -qxF "$cut" "$out/have"; then
    echo "FAIL gtkw-refuses-part-of-a-name: no name to cut ('$first')"
else
    { cat "$LAYOUT"; echo "$cut"; } > "$out/part.gtkw"
    refused part-of-a-name "$out/part.gtkw" "$TRACE"
fi
# A layout with its comments and settings but no signal.
grep -vE '^[A-Za-z_][A-Za-z0-9_]*\.' "$LAYOUT" > "$out/none.gtkw"
refused layout-without-signals "$out/none.gtkw" "$TRACE"
# A trace that is no FST file: fst-signals says so (exit 1, nothing listed),
# and the layout is not passed against it.
printf 'not a waveform\n' > "$out/bogus.fst"
"$LISTER" "$out/bogus.fst" > "$out/list" 2> "$out/err"; rc=$?
check fst-signals-refuses-non-fst sh -c "[ $rc -eq 1 ] && [ ! -s '$out/list' ] && grep -q 'cannot read' '$out/err'"
refused non-fst-trace "$LAYOUT" "$out/bogus.fst"
grep -q 'no signals' "$out/why" || echo "FAIL gtkw-says-the-trace-has-no-signals: $(head -c 200 "$out/why")"

for prog in bench-w1 bench-w2 bench-w3 bench-w4 bench-micro fst-signals; do
    "$BUILD/$prog" --help > "$out/usage" 2> "$out/err"; rc=$?
    check "$prog-help" sh -c "[ $rc -eq 0 ] && grep -q '^usage: $prog' '$out/usage' && [ ! -s '$out/err' ]"
    [ "$prog" = fst-signals ] && continue   # its one argument is a file
    "$BUILD/$prog" --no-such-option > "$out/usage" 2> "$out/err"; rc=$?
    check "$prog-refuses-unknown-option" sh -c "[ $rc -eq 2 ] && grep -q '^usage: $prog' '$out/err' && [ ! -s '$out/usage' ]"
done

# check_doc_example.sh: a doc whose copy of the file differs in one line.
doc() { # FILE EDIT-SED: a doc with a C block before the marked copy
    printf '# doc\n\n```c\nint unrelated;\n```\n\n<!-- include %s -->\n```c\n' "$1"
    sed "$2" "$1"
    printf '```\n\nafter\n'
}
doc examples/quickstart.c 's/tick/tock/' > "$out/stale.md"
check doc-example-refuses-stale-copy sh -c "! sh tools/check_doc_example.sh '$out/stale.md' > '$out/doc' 2>&1 &&
    grep -q 'copy of examples/quickstart.c is stale' '$out/doc'"
# ... its last line dropped, and one added after it.
doc examples/quickstart.c '$d' > "$out/short.md"
check doc-example-refuses-truncated-copy sh -c "! sh tools/check_doc_example.sh '$out/short.md' > /dev/null 2>&1"
doc examples/quickstart.c '$a\
extra' > "$out/long.md"
check doc-example-refuses-longer-copy sh -c "! sh tools/check_doc_example.sh '$out/long.md' > /dev/null 2>&1"
# A good copy: passes, though another C block comes before its marker; and a
# stale doc among good ones still fails the run.
doc examples/quickstart.c '' > "$out/good.md"
check doc-example-accepts-good-copy sh tools/check_doc_example.sh "$out/good.md"
check doc-example-refuses-one-stale-of-two sh -c "! sh tools/check_doc_example.sh '$out/stale.md' '$out/good.md' > /dev/null 2>&1"
