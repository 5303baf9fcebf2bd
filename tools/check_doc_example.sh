#!/bin/sh
# Fails if a code block marked "<!-- include FILE -->" in a doc differs from FILE,
# or if a doc named has no such block (nothing checked is no pass).
#   sh tools/check_doc_example.sh DOC...
[ $# -gt 0 ] || { echo "usage: check_doc_example.sh DOC..." >&2; exit 2; }
status=0
for doc in "$@"; do
    if ! grep -q '<!-- include [^ ]* -->' "$doc"; then
        echo "$doc: no '<!-- include FILE -->' block to check"
        status=1
        continue
    fi
    grep -o '<!-- include [^ ]* -->' "$doc" | while read -r _ _ file _; do
        awk -v marker="<!-- include $file -->" '
            $0 == marker { grab = 1; next }
            grab && /^```c$/ { inside = 1; next }
            inside && /^```$/ { exit }
            inside { print }' "$doc" | diff -u "$file" - >/dev/null ||
            { echo "$doc: the copy of $file is stale"; exit 1; }
    done || status=1
done
exit $status
