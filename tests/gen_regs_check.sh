#!/bin/sh
# The register-map generator refuses a map that does not hold together, with
# a message naming the problem, and writes nothing: each case below is
# rtl/tw_regs.toml with one thing broken. Then --check, which make check-regs
# runs, must report a generated file that differs.
#   sh tests/gen_regs_check.sh SCRATCH_DIR
out=${1:-build/gen-regs-check}
mkdir -p "$out"
toml=rtl/tw_regs.toml

# case NAME EXPECTED-MESSAGE-FRAGMENT PYTHON-EDIT (of the TOML text `s`)
broken() {
    name=$1 want=$2 edit=$3
    python3 -c "
import sys
s = open('$toml').read()
$edit
open('$out/$name.toml', 'w').write(s)" || { echo "FAIL gen-regs-refuses-$name: could not make the case"; return; }
    rm -f "$out/$name.vh" "$out/$name.h" "$out/$name.md"
    python3 tools/gen_regs.py "$out/$name.toml" "$out/$name.vh" "$out/$name.h" "$out/$name.md" \
        > "$out/$name.out" 2>&1; rc=$?
    if [ $rc -ne 0 ] && grep -qF -- "$want" "$out/$name.out" && [ ! -e "$out/$name.vh" ]; then
        echo "ok gen-regs-refuses-$name"
    else
        echo "FAIL gen-regs-refuses-$name: exit $rc, $(head -c 200 "$out/$name.out")"
    fi
}

broken same-name     "is not a new identifier" "s = s.replace('name = \"VERSION\"', 'name = \"ID\"', 1)"
broken same-index    "reuses index"            "s = s.replace('index = 1\n', 'index = 0\n', 1)"
broken index-range   "index must be a whole number in 0..63" "s = s.replace('index = 22\n', 'index = 64\n', 1)"
broken negative-lsb  "lsb must be a whole number in 0..31"   "s = s.replace('lsb = 0,', 'lsb = -1,', 1)"
broken zero-width    "width must be a whole number in 1..32" "s = s.replace('width = 16,', 'width = 0,', 1)"
broken wide-magic    "map.id_magic must be"    "s = s.replace('id_magic = 0x5457484C', 'id_magic = 0x15457484C', 1)"
broken wide-version  "map.version_major must be" "s = s.replace('version_major = 1', 'version_major = 70000', 1)"
broken access        "access must be one of"   "s = s.replace('access = \"ro\"', 'access = \"readonly\"', 1)"
broken missing-key   "missing key 'doc'"       "import re; s = re.sub(r'doc = \"Register-map version.\"\n', '', s, count=1)"
broken same-field    "is not a new identifier" "s = s.replace('name = \"MINOR\"', 'name = \"MAJOR\"', 1)"
broken no-reset      "NOW_LO.reset must be a whole number" "s = s.replace('name = \"NOW_LO\"\nindex = 6\naccess = \"rc\"\nreset = 0\n', 'name = \"NOW_LO\"\nindex = 6\naccess = \"rc\"\n', 1)"
broken wo-reset      "CMD is write only"       "s = s.replace('access = \"wo\"\n', 'access = \"wo\"\nreset = 0\n', 1)"
broken id-reset      "ID.reset must be 0x5457484C" "s = s.replace('reset = 0x5457484C', 'reset = 0x5457484D', 1)"
# Fields that share a bit, or end one bit past 32 (each number in its own
# range); a true where a number goes; a field's access that is no access.
broken field-overlap "field CAPS.SLOT_BITS overlaps or exceeds 32 bits" "s = s.replace('name = \"SLOT_BITS\", lsb = 4,', 'name = \"SLOT_BITS\", lsb = 2,', 1)"
broken field-past-32 "field VERSION.MAJOR overlaps or exceeds 32 bits" "s = s.replace('name = \"MAJOR\", lsb = 16, width = 16,', 'name = \"MAJOR\", lsb = 16, width = 17,', 1)"
broken bool-index    "index must be a whole number in 0..63, not True" "s = s.replace('index = 1\n', 'index = true\n', 1)"
broken field-access  "STATUS.OVERFLOW.access must be one of" "s = s.replace('access = \"w1c\"', 'access = \"w1x\"', 1)"

# --check (make check-regs): fresh files pass; one changed byte in any of the
# three is reported stale, exit 1, and nothing is rewritten.
python3 tools/gen_regs.py "$toml" "$out/fresh.vh" "$out/fresh.h" "$out/fresh.md" || echo "FAIL gen-regs-check-stale: could not generate"
for f in vh h md; do
    cp "$out/fresh.vh" "$out/c.vh" && cp "$out/fresh.h" "$out/c.h" && cp "$out/fresh.md" "$out/c.md"
    python3 tools/gen_regs.py --check "$toml" "$out/c.vh" "$out/c.h" "$out/c.md" > "$out/c.out" 2>&1; fresh=$?
    printf ' ' >> "$out/c.$f"
    cp "$out/c.$f" "$out/c.$f.before"
    python3 tools/gen_regs.py --check "$toml" "$out/c.vh" "$out/c.h" "$out/c.md" > "$out/c.out" 2>&1; rc=$?
    if [ $fresh -eq 0 ] && [ $rc -eq 1 ] && grep -qF "stale generated files (run \`make regs\`): $out/c.$f" "$out/c.out" &&
        cmp -s "$out/c.$f" "$out/c.$f.before"; then
        echo "ok gen-regs-check-finds-stale-$f"
    else
        echo "FAIL gen-regs-check-finds-stale-$f: fresh exit $fresh, stale exit $rc, $(head -c 200 "$out/c.out")"
    fi
done
