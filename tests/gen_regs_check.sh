#!/bin/sh
# The register-map generator refuses a map that does not hold together, with
# a message naming the problem, and writes nothing: each case below is
# rtl/tw_regs.toml with one thing broken.
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
