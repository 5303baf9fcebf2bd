#!/usr/bin/env python3
"""Where the chip's iCE40 area goes (the `fpga` target's area section).

    python3 fpga/area.py OUTDIR [--levels 4] [--slot-bits 8]
    python3 fpga/area.py --check     (every cut's patch still matches the RTL)

Synthesises the board-independent chip (tw_spi_top: SPI bridge + core) with
synth_ice40, packs it with `nextpnr-ice40 --pack-only` to count logic cells,
and then does the same for variants of a scratch copy of the RTL with one
part cut out. What a cut saves is what that part costs. rtl/ itself is never
touched: each variant patches its own copy under OUTDIR.

Also splits the flops of the full build by register (from the flop cells'
names, which Yosys derives from the register) and the LUTs by the signal
whose name they carry (a rough guide: a LUT is named after one of the nets it
drives, not after everything it serves).

Writes OUTDIR/area.json; fpga/report.py renders it into fpga/REPORT.md. A
cut whose patch no longer matches the RTL is reported as such, not guessed.

Each cut ties a source or an enable to a constant (a read port's data, a
state chain's next state, a read-out's register) and lets Yosys remove
what then has no load or no other value, so a cut also takes the logic
that only the part fed (the descriptions say what; rows overlap). The
rows are of one synthesis each, repeatable, but Yosys's emulation of the
bitmaps' read transparency takes up to about 20 flops more or fewer in a
variant whose cut lies elsewhere, so savings below about 30 LCs are within
that noise. Every part listed cuts cleanly; none had to be left out.
"""
import argparse
import collections
import json
import os
import re
import resource
import shutil
import subprocess
import sys

RTL = ["rtl/tw_spi_top.v", "rtl/tw_spi.v", "rtl/tw_core.v", "rtl/tw_bitmap.v", "rtl/tw_evfifo.v", "rtl/tw_search.v", "rtl/tw_regs.vh"]

# name: (what is cut, top module, [(file, regex, replacement, expected matches)])
# Expected matches: an exact count, so a changed RTL shows up as "patch does
# not apply" instead of a silently different cut.
VARIANTS = [
    ("bitmap", "busy bitmaps, whole (tw_bitmap x LEVELS: EBR words, written-word flags, SET/CLEAR write, "
               "both read ports), with all that the two rows below cut", "tw_spi_top", [
        ("rtl/tw_core.v", r"\.i_words\(search_words\)", ".i_words({(LEVELS*SW){1'b0}})", 1),
        ("rtl/tw_core.v", r"(wire \[LEVELS-1:0\] hit_g = )visit_g & busy_g;", r"\1{LEVELS{1'b0}};", 1),
    ]),
    ("search_read", "next-busy search: tw_search's word scan (a word a clock from each bitmap's search port, "
                    "its EBR copy and bypass; hits, offsets, distances, the minimum, the answer's sum) and the "
                    "search base (the sequencer that times o_valid stays); with no answer, the upper "
                    "parts of the N1/N2 gap fold away too", "tw_spi_top", [
        ("rtl/tw_core.v", r"\.i_words\(search_words\)", ".i_words({(LEVELS*SW){1'b0}})", 1),
    ]),
    ("visit_read", "visit lookup: each bitmap's visit port (its EBR copy, the word and bit registers; the busy "
                   "bit of the slot visited, read in G) and the hit flags and counts it feeds", "tw_spi_top", [
        ("rtl/tw_core.v", r"(wire \[LEVELS-1:0\] hit_g = )visit_g & busy_g;", r"\1{LEVELS{1'b0}};", 1),
    ]),
    ("skip", "virtual-time jump (the J_* state chain: the gap against ADVANCE, the amount and the "
             "counter's low addend, the age's addition, and N2's gap below its sign, which only the jump reads)", "tw_spi_top", [
        ("rtl/tw_core.v", r"(j_wait_q  <= )[^;]*;", r"\g<1>1'b0;", 1),
        ("rtl/tw_core.v", r"(j_end_q   <= )[^;]*;", r"\g<1>1'b0;", 1),
        ("rtl/tw_core.v", r"(j_busy_q  <= )[^;]*;", r"\g<1>1'b0;", 1),
    ]),
    ("next", "NEXT_LO/NEXT_HI: the answer capped at now + SEARCH (N1's tick + SEARCH, N2's within/end, "
             "N3's next_q, the high-half latch); the gap N1/N2 form stays, for the search's restart and the jump",
     "tw_spi_top", [
        ("rtl/tw_core.v", r"(next_q      <= )[^;]*;", r"\g<1>48'd0;", 1),
    ]),
    ("counters", "the five 32-bit statistics counters (cnt_*, CNT_*)", "tw_spi_top", [
        ("rtl/tw_core.v", r"(grp_q\[\d\] <= )cnt_\w+_q;", r"\g<1>32'd0;", 5),
    ]),
    ("coalesce", "interrupt coalescing (age_q, age_due_q, thresh_due_q, room_due_q, the jump's "
                 "j_age_q; the COALESCE register stays, readable)", "tw_spi_top", [
        ("rtl/tw_core.v", r"\(hold_q \|\| fifo_full \|\| thresh_due_q \|\| age_due_q \|\| room_due_q\)", "1'b1", 1),
    ]),
    ("bridge", "the SPI bridge (tw_spi) and the IRQ flop: tw_core alone", "tw_core", []),
]


def run(cmd, log):
    with open(log, "w") as f:
        return subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT)


def synth(src_dir, out, top, levels, slot_bits):
    """Synthesise and pack; returns a dict of counts, or None on failure."""
    os.makedirs(out, exist_ok=True)
    files = " ".join(os.path.join(src_dir, f) for f in RTL if f.endswith(".v"))
    script = (f"read_verilog -I{src_dir}/rtl {files}; "
              f"chparam -set LEVELS {levels} -set SLOT_BITS {slot_bits} {top}; "
              # The same mapping as fpga/build.sh's HX8K builds (ABC9, HX delays).
              f"synth_ice40 -abc9 -device hx -top {top} -json {out}/synth.json; "
              f"tee -q -o {out}/stat.txt stat")
    if run(["yosys", "-q", "-p", script], f"{out}/yosys.log") != 0:
        return None
    cells = collections.Counter()
    for line in open(f"{out}/stat.txt"):
        m = re.match(r"\s+(SB_\w+)\s+(\d+)", line)
        if m:
            cells[m.group(1)] += int(m.group(2))
    # Packing only: no placement, so it works whatever the device's size.
    run(["nextpnr-ice40", "--hx8k", "--package", "ct256", "--json", f"{out}/synth.json",
         "--pack-only", "--pcf-allow-unconstrained", "-q", "-l", f"{out}/pack.log"], f"{out}/pack.out")
    lcs = None
    for line in open(f"{out}/pack.log"):
        m = re.match(r"Info:\s+ICESTORM_LC:\s+(\d+)/", line)
        if m:
            lcs = int(m.group(1))
    return {
        "lcs": lcs,
        "luts": cells["SB_LUT4"],
        "ffs": sum(v for k, v in cells.items() if k.startswith("SB_DFF")),
        "carry": cells["SB_CARRY"],
        "ebr": cells["SB_RAM40_4K"],
    }


def by_name(json_path, top):
    """Flops grouped by register, LUTs by the signal whose name they carry."""
    mod = json.load(open(json_path))["modules"][top]
    ffs, luts = collections.Counter(), collections.Counter()
    for name, cell in mod["cells"].items():
        base = re.sub(r"_SB_.*", "", name)        # yosys names cells <net>_SB_<type>_...
        base = re.sub(r"\$.*", "", base)
        base = re.sub(r"(\[\d+\])+$", "", base)    # busy_q[3] -> busy_q
        base = re.sub(r"\.\d+\.\d+_RDATA.*", "_RDATA", base)   # the FIFO RAM's read path
        if cell["type"].startswith("SB_DFF"):
            ffs[base] += 1
        elif cell["type"] == "SB_LUT4":
            luts[base] += 1
    return dict(ffs), dict(luts)


def patch_errors():
    """The cuts whose patches no longer match the RTL, without synthesis:
    `make test` runs this, so an RTL change that breaks a cut shows there
    rather than in the next `make fpga`."""
    errors = []
    for name, _what, _top, patches in VARIANTS:
        for f, pat, rep, want in patches:
            n = len(re.findall(pat, open(f).read(), flags=re.S))
            if n != want:
                errors.append(f"{name}: patch /{pat}/ matches {n} times in {f}, expected {want}")
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir", nargs="?")
    ap.add_argument("--levels", type=int, default=4)
    ap.add_argument("--slot-bits", type=int, default=8)
    ap.add_argument("--check", action="store_true", help="check that every cut's patch matches the RTL, and exit")
    a = ap.parse_args()
    if a.check:
        errors = patch_errors()
        for e in errors:
            print(f"fpga/area.py: {e}: update fpga/area.py", file=sys.stderr)
        sys.exit(1 if errors else 0)
    if not a.outdir:
        ap.error("OUTDIR is required (or --check)")

    os.makedirs(a.outdir, exist_ok=True)
    res = {"levels": a.levels, "slot_bits": a.slot_bits, "variants": []}

    full = synth(".", f"{a.outdir}/full", "tw_spi_top", a.levels, a.slot_bits)
    if full is None:
        sys.exit(f"fpga/area.py: yosys failed on the chip, see {a.outdir}/full/yosys.log")
    res["full"] = full
    res["ffs_by_register"], res["luts_by_name"] = by_name(f"{a.outdir}/full/synth.json", "tw_spi_top")

    for name, what, top, patches in VARIANTS:
        d = f"{a.outdir}/{name}"
        shutil.rmtree(f"{d}/src", ignore_errors=True)
        os.makedirs(f"{d}/src/rtl")
        for f in RTL:
            shutil.copy(f, f"{d}/src/{f}")
        entry = {"name": name, "what": what}
        for f, pat, rep, want in patches:
            text = open(f"{d}/src/{f}").read()
            text, n = re.subn(pat, rep, text, flags=re.S)
            if n != want:
                entry["error"] = f"patch /{pat}/ matched {n} times in {f}, expected {want}: update fpga/area.py"
                break
            open(f"{d}/src/{f}", "w").write(text)
        if "error" not in entry:
            r = synth(f"{d}/src", d, top, a.levels, a.slot_bits)
            if r is None:
                entry["error"] = f"yosys failed, see {d}/yosys.log"
            else:
                entry.update(r)
                entry["saves"] = {k: (full[k] - r[k]) if full[k] is not None and r[k] is not None else None
                                  for k in ("lcs", "luts", "ffs", "carry", "ebr")}
        res["variants"].append(entry)
        print(f"fpga: area: without {name}: " + (entry.get("error") or
              f"{entry['lcs']} LCs (saves {entry['saves']['lcs']})"))

    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    res["cpu_seconds"] = round(ru.ru_utime + ru.ru_stime)
    with open(f"{a.outdir}/area.json.tmp", "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
    os.replace(f"{a.outdir}/area.json.tmp", f"{a.outdir}/area.json")


if __name__ == "__main__":
    main()
