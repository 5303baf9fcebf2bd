#!/bin/sh
# Fails if a code block marked "<!-- include FILE -->" in a doc differs from FILE.
status=0
for doc in "$@"; do
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
