#!/usr/bin/env python3
"""Collect the iCE40 builds into fpga/report.csv and fpga/REPORT.md.

    python3 fpga/report.py --csv fpga/report.csv --md fpga/REPORT.md \
        --area fpga/build/area/area.json --bin icebreaker=DIR --bin hx8k=DIR \
        [--bin-dir fpga/build] [--started EPOCH] [--command "make fpga"] RESULT_DIR...

Each RESULT_DIR holds one build by fpga/build.sh (result.txt, pnr.log, ...).
The rows keep the order of the arguments. --bin BOARD=DIR[,DIR...] names the
builds of the board's own geometry, one per placer seed: the fastest is the
board's, copied to BIN_DIR/tickwheel-BOARD.bin, and stands in the rows for
that geometry. Exits non-zero, after writing both reports, if a board has no
bitstream.
"""
import argparse
import csv
import datetime
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

CSV_COLUMNS = ["board", "levels", "slot_bits", "lcs", "ffs", "ebr", "fmax_mhz", "target_mhz"]
BOARD_NAME = {"icebreaker": "iCEBreaker (iCE40UP5K-SG48)", "hx8k": "iCE40-HX8K breakout (iCE40HX8K-CT256)"}
DEVICE_LCS = {"icebreaker": 5280, "hx8k": 7680}
DEVICE_EBR = {"icebreaker": 30, "hx8k": 32}
STATUS_TEXT = {"ok": "meets target", "timing": "misses target", "nofit": "does not fit",
               "noplace": "does not place", "fail": "failed"}


def read_result(d):
    r = {"dir": d}
    with open(os.path.join(d, "result.txt")) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition("=")
            r[k] = v
    # A design the packer fits but the placer cannot place (the device all
    # but full) is a size result, like one that does not fit, not a failure.
    if r.get("status") == "fail" and "Unable to find legal placement" in r.get("note", ""):
        r["status"] = "noplace"
    return r


def tool_version(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True).stdout
        out += subprocess.run(cmd, capture_output=True, text=True).stderr
        return out.strip().splitlines()[0] if out.strip() else "?"
    except OSError:
        return "?"


def git_rev():
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "rtl", "fpga/common", "fpga/icebreaker",
                                "fpga/hx8k"], capture_output=True, text=True).stdout.strip()
        return rev + (" with uncommitted changes to rtl/ or fpga/" if dirty else "") if rev else "?"
    except OSError:
        return "?"


def critical_path(pnr_log):
    """The routed critical path of the design clock: total ns and the named
    signals it runs through, in order."""
    try:
        lines = open(pnr_log).read().splitlines()
    except OSError:
        return None
    starts = [i for i, l in enumerate(lines) if "Critical path report for clock" in l]
    if not starts:
        return None
    sigs, near, total, split = [], [], None, ""
    for l in lines[starts[-1] + 1:]:
        if "Critical path report" in l or not l.startswith("Info:"):
            break
        m = re.match(r"Info:\s+[\d.]+\s+([\d.]+)\s+Net (\S+)", l)
        if m:
            total = m.group(1)
            # Nets that keep their HDL name; Yosys names the rest after a
            # neighbour (x_SB_LUT4_I1_O is the output of a LUT fed by x),
            # which is kept apart as a hint.
            n = re.sub(r"^u_chip\.", "", m.group(2))
            if "$" in n:
                continue
            if "_SB_" in n:
                # A block RAM's neighbour is named after its data port.
                n, into = re.sub(r"\.\d+\.\d+_RDATA(_\d+)?$", "", n.split("_SB_", 1)[0]), near
            else:
                into = sigs
            n = re.sub(r"(\[\d+\])+$", "", n)
            if n not in into:
                into.append(n)
        m = re.match(r"Info:\s+[\d.]+\s+([\d.]+)\s+Setup", l)
        if m:
            total = m.group(1)
        m = re.match(r"Info:\s+([\d.]+ ns logic, [\d.]+ ns routing)", l)
        if m:
            split = m.group(1)
            break
    return {"ns": total, "split": split, "signals": sigs, "near": near}


def fmt_row_md(r):
    geo = f"{r['levels']} × {1 << int(r['slot_bits'])}"
    slots = int(r["levels"]) << int(r["slot_bits"])
    lcs = r["lcs"]
    if lcs:
        pct = 100.0 * int(lcs) / DEVICE_LCS[r["board"]]
        lcs = f"{lcs} ({pct:.0f} %)" if r["status"] != "nofit" else f"needs {lcs} ({pct:.0f} %)"
    fmax = f"{float(r['fmax_mhz']):.1f}" if r["fmax_mhz"] else "–"
    icet = f"{float(r['icetime_mhz']):.1f}" if r.get("icetime_mhz") else "–"
    res = STATUS_TEXT.get(r["status"], r["status"])
    if r["status"] == "fail":
        res += f": {r['note']}"
    return (f"| {r['board']} | {geo} | {slots} | {lcs or '–'} | {r['ffs'] or '–'} | {r['ebr'] or '–'} "
            f"| {fmax} | {r['target_mhz']} | {icet} | {res} |")


def plane_fit(points):
    """Least squares z = a + b*x + c*y over (x, y, z) points: (a, b, c), or
    None where the points do not pin the plane down."""
    if len(points) < 3:
        return None
    # The normal equations, solved by Cramer's rule (three unknowns).
    rows = [(1.0, float(x), float(y)) for x, y, _ in points]
    m = [[sum(r[i] * r[j] for r in rows) for j in range(3)] for i in range(3)]
    v = [sum(r[i] * z for r, (_, _, z) in zip(rows, points)) for i in range(3)]

    def det(a):
        return (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
                - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
                + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]))
    d = det(m)
    if abs(d) < 1e-9:
        return None
    out = []
    for k in range(3):
        mk = [[v[i] if j == k else m[i][j] for j in range(3)] for i in range(3)]
        out.append(det(mk) / d)
    return tuple(out)


REG_GROUPS = [
    (r"u_core\.g_level\.\S*u_bitmap|u_core\.g_level\[\d+\]\.u_bitmap", "busy bitmaps (written-word flags, read and bypass registers; the bits are in EBR)"),
    (r"u_core\.(u_search\.|srch_)", "next-busy search (tw_search: scan sequencer, word pipeline, distances, minimum, answer; its base)"),
    (r"u_core\.(n1_\w+|n2_\w+|n3_\w+|next_q|next_hi_latch_q|searching_q)", "the answer against time (N1..N3: gap, NEXT, NEXT_HI latch)"),
    (r"u_core\.(j_\w+|lo_add_q)", "virtual-time jump (J_* states, gap against ADVANCE, amount, the counter's low addend)"),
    (r"u_core\.(lo_q|lo_d_q|hi_q|carry_q|tick_v|now_hi_latch_q)", "tick counter, its copy in V and the NOW_HI latch"),
    (r"u_core\.cnt_\w+", "statistics counters (CNT_*)"),
    (r"u_core\.(presc_q|pc_\w+|reload_q|ext_q|ptick_q)", "prescaler and external tick input"),
    (r"u_core\.(arm_lo_q|arm_hi_q)", "ARM_LO/ARM_HI"),
    (r"u_core\.horizon_q", "SEARCH horizon"),
    (r"u_core\.adv_\w+", "ADVANCE and its sum"),
    (r"u_core\.(coal_\w+|age_\w+|thresh_due_q|irq_q)", "coalescing and the IRQ line"),
    (r"u_core\.(o_wb_dat|grp_q|rd1_\w+)", "bus read multiplexer (two stages) and read data"),
    (r"u_core\.req_\w+", "bus request register"),
    (r"u_core\.u_fifo\.\w+_RDATA", "event FIFO: Yosys's transparency emulation beside the EBR"),
    (r"u_core\.u_fifo\.", "event FIFO pointers and count"),
    (r"u_spi\.", "SPI bridge"),
]


def group_regs(ffs):
    out = {}
    for name, n in ffs.items():
        for pat, label in REG_GROUPS:
            if re.match(pat, name):
                break
        else:
            label = "other control flops"
        out[label] = out.get(label, 0) + n
    return sorted(out.items(), key=lambda kv: -kv[1])


def area_section(area, rows):
    md = []
    if area is None:
        md.append("The area analysis did not run (fpga/build/area/area.json is missing).")
        return md
    full = area["full"]
    geo = f"{area['levels']} × {1 << area['slot_bits']}"
    md.append(f"Measured on the board-independent chip (`tw_spi_top`: SPI bridge + core) at the "
              f"default geometry {geo}, synthesised alone and packed with `nextpnr-ice40 --pack-only`: "
              f"**{full['lcs']} LCs** ({full['luts']} LUT4, {full['ffs']} flops, {full['carry']} carry "
              f"cells, {full['ebr']} EBR). The board wrappers add about 100 LCs (PLL, reset, LED). "
              f"`fpga/area.py` makes each row below by cutting one part out of a scratch copy of the RTL "
              f"(rtl/ is not touched) and synthesising again; what the cut saves is what the part costs. "
              f"Rows overlap: the whole bitmap includes both of its read paths.")
    md.append("")
    md.append("| cut out | LCs saved | share | LUT4 saved | flops saved |")
    md.append("|---|---:|---:|---:|---:|")
    for v in area["variants"]:
        if "error" in v:
            md.append(f"| {v['what']} | n/a: {v['error']} | | | |")
            continue
        s = v["saves"]
        share = f"{100.0 * s['lcs'] / full['lcs']:.0f} %" if s["lcs"] is not None and full["lcs"] else "–"
        md.append(f"| {v['what']} | {s['lcs']} | {share} | {s['luts']} | {s['ffs']} |")
    md.append("")

    md.append("Flops of the full chip by register (exact: Yosys names each flop after its register):")
    md.append("")
    md.append("| registers | flops |")
    md.append("|---|---:|")
    for label, n in group_regs(area["ffs_by_register"]):
        md.append(f"| {label} | {n} |")
    md.append("")

    # LC cost per level and per slot across the sweep (packed LCs, one
    # board), over the builds whose levels sit in EBR (256 slots or more).
    for board in ("hx8k", "icebreaker"):
        pts = [(int(r["levels"]), int(r["levels"]) << int(r["slot_bits"]), int(r["lcs"])) for r in rows
               if r["board"] == board and r["lcs"] and int(r["slot_bits"]) >= 8]
        fit = plane_fit(pts)
        if fit and len(pts) >= 4:
            a, b, c = fit
            md.append(f"Across the sweep ({board}, packed LCs against levels m and slots m·2^b, the "
                      f"{len(pts)} builds whose levels have 256 slots or more; least squares) the chip costs "
                      f"about **{b:.0f} LCs per level** and **{c:.2f} LCs per slot** on top of a fixed "
                      f"{a:.0f} LCs. A level brings its own bitmap ports, visit pipeline and search lane; "
                      f"the busy bits themselves sit in EBR, so what grows with the slots is a written-word "
                      f"flag per 16 slots and the scan's wider offsets. Levels of 64 slots or fewer are too "
                      f"small for Yosys to put in EBR and stay in flops, which is why 4 × 64 is larger than "
                      f"4 × 256.")
            md.append("")
            break
    return md


def ceiling_section(path, rows):
    """What each board's fabric allows a bare tick counter (fpga/ceiling.sh),
    beside the target and the chip's own fmax."""
    if not path or not os.path.exists(path):
        return []
    with open(path) as f:
        ceil = list(csv.DictReader(f))
    out = ["## The fabric's ceiling", ""]
    out.append("The chip's tick counter is 48 bits, kept as two 24-bit halves with a registered carry so "
               "that it can step once per clock at what a 24-bit counter allows; a 48-bit counter in one "
               "carry chain shows what the unsplit counter would have allowed. `fpga/ceiling.sh` places and "
               "routes such counters (`fpga/ceiling/counter.v`: the counter and nothing else, on an empty "
               "device), stepping by one (a tick) or by a registered amount (a virtual-time jump).")
    out.append("")
    out.append("| board | counter | step | fmax MHz | target MHz | chip's fmax MHz |")
    out.append("|---|---:|---|---:|---:|---:|")
    for c in ceil:
        own = next((r for r in rows if r["board"] == c["board"] and r["fmax_mhz"]), None)
        target = own["target_mhz"] if own else ""
        chip = own["fmax_mhz"] if own and c["width"] == "24" and c["step"] == "one" else ""
        step = "one tick" if c["step"] == "one" else "an amount"
        out.append(f"| {c['board']} | {c['width']} bits | {step} | {float(c['fmax_mhz']):.2f} | {target} | {chip} |")
    out.append("")
    for board in dict.fromkeys(c["board"] for c in ceil):
        c48 = next((c for c in ceil if c["board"] == board and c["width"] == "48" and c["step"] == "one"), None)
        own = next((r for r in rows if r["board"] == board and r["fmax_mhz"]), None)
        if c48 and own:
            f48, target = float(c48["fmax_mhz"]), float(own["target_mhz"])
            verdict = ("below" if f48 < target else
                       "less than 10 % above" if f48 < 1.1 * target else "above")
            c24 = next((c for c in ceil if c["board"] == board and c["width"] == "24" and c["step"] == "one"), None)
            split = (f"; the 24-bit half the chip steps reaches {float(c24['fmax_mhz']):.2f} MHz, so the "
                     f"counter does not bound the chip's {float(own['fmax_mhz']):.2f} MHz") if c24 else ""
            out.append(f"- {BOARD_NAME.get(board, board)}: the bare 48-bit counter reaches {f48:.2f} MHz, "
                       f"{verdict} the {target:g} MHz target{split}.")
    out.append("")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", required=True)
    ap.add_argument("--md", required=True)
    ap.add_argument("--area")
    ap.add_argument("--bin", action="append", default=[])
    ap.add_argument("--bin-dir", default="fpga/build")
    ap.add_argument("--started", default="", help="epoch seconds when `make fpga` began")
    ap.add_argument("--command", default="make fpga")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--ceiling", help="fpga/ceiling.sh's ceiling.csv")
    ap.add_argument("results", nargs="+")
    a = ap.parse_args()

    rows = [read_result(d) for d in a.results]

    # The board's own geometry, built at each seed: the fastest routed one
    # is the board's bitstream and its row.
    tries = {}
    for spec in a.bin:
        board, _, dirs = spec.partition("=")
        tries[board] = [read_result(d) for d in dirs.split(",") if os.path.exists(os.path.join(d, "result.txt"))]
    chosen = {}
    for board, ts in tries.items():
        routed = [t for t in ts if t.get("fmax_mhz")]
        if routed:
            # nextpnr's figure decides; icetime's estimate breaks a tie.
            chosen[board] = max(routed, key=lambda t: (float(t["fmax_mhz"]), float(t.get("icetime_mhz") or 0)))
        elif ts:
            chosen[board] = ts[0]
        c = chosen.get(board)
        if c:
            rows = [c if r["board"] == board and r["levels"] == c["levels"] and r["slot_bits"] == c["slot_bits"]
                    else r for r in rows]
    area = None
    if a.area and os.path.exists(a.area):
        area = json.load(open(a.area))

    # ------------------------------------------------------------ CSV
    with open(a.csv + ".tmp", "w") as f:
        f.write(",".join(CSV_COLUMNS) + "\n")
        for r in rows:
            f.write(",".join(r.get(c, "") for c in CSV_COLUMNS) + "\n")
    os.replace(a.csv + ".tmp", a.csv)

    # ------------------------------------------------------- bitstreams
    bins, missing = [], []
    bin_dir = a.bin_dir
    for board in tries:
        r = chosen.get(board)
        d = r["dir"] if r else ""
        src = os.path.join(d, "tickwheel.bin")
        dst = os.path.join(bin_dir, f"tickwheel-{board}.bin")
        if r is not None and os.path.exists(src):
            shutil.copyfile(src, dst)
            bins.append((board, dst, r))
        else:
            if os.path.exists(dst):
                os.remove(dst)
            missing.append((board, r))

    # ------------------------------------------------------- markdown
    now = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    md = ["# iCE40 builds of the tickwheel chip", ""]
    md.append(f"Generated by `{a.command}` (fpga/report.py) on {now}. "
              f"Tools: {tool_version(['yosys', '-V'])}; {tool_version(['nextpnr-ice40', '--version'])}; "
              f"icestorm (icepack, icetime, icepll), `--timing-allow-fail`. The sweep is placed at nextpnr "
              f"seed {a.seed}; each board's own geometry at every seed of [Placer seeds](#placer-seeds), "
              f"and the fastest is the board's bitstream and its row below. "
              f"Source: git {git_rev()}.")
    # Only when every build measured it (older results have no CPU time).
    cpu = sum(int(r.get("cpu_seconds") or 0) for r in rows) + int((area or {}).get("cpu_seconds") or 0)
    if all(int(r.get("cpu_seconds") or 0) > 0 for r in rows) and area and area.get("cpu_seconds"):
        md.append(f"The builds and the area analysis took {cpu / 60.0:.1f} min of CPU time in all "
                  f"(about {cpu / 120.0:.0f} min of wall time on two idle cores).")
    if a.started.strip():
        started = float(a.started)
        fresh = sum(os.path.getmtime(os.path.join(r["dir"], "result.txt")) >= started for r in rows)
        mins = (time.time() - started) / 60.0
        if fresh:
            md.append(f"The `make fpga` that wrote this report redid {fresh} of the {len(rows)} builds "
                      f"in {mins:.1f} min of wall time.")
        else:
            md.append("The `make fpga` that wrote this report found every build up to date.")
    md.append("")
    md.append("The chip is `rtl/tw_spi_top.v` (SPI bridge + core) inside `fpga/<board>/top.v` "
              "(PLL from the 12 MHz oscillator, power-on reset, pins, IRQ LED). "
              "fmax is nextpnr's figure for the PLL clock after routing; icetime's independent estimate "
              "of the same netlist is beside it. Target is the PLL frequency the build is clocked at. "
              "Wiring and flashing: [docs/fpga.md](../docs/fpga.md).")
    md.append("")

    # Headline, from the numbers.
    md.append("## Summary")
    md.append("")
    for board in dict.fromkeys(r["board"] for r in rows):
        br = [r for r in rows if r["board"] == board]
        placed = [r for r in br if r["fmax_mhz"]]
        nofit = [r for r in br if r["status"] in ("nofit", "noplace")]
        met = [r for r in br if r["status"] == "ok"]
        s = f"- **{BOARD_NAME.get(board, board)}**, target {br[0]['target_mhz']} MHz: "
        if placed:
            lo = min(float(r["fmax_mhz"]) for r in placed)
            hi = max(float(r["fmax_mhz"]) for r in placed)
            s += (f"{len(placed)} of {len(br)} geometries place and route, reaching "
                  f"{lo:.1f}–{hi:.1f} MHz; {len(met)} {'meets' if len(met) == 1 else 'meet'} the target. ")
        else:
            s += "no geometry places and routes. "
        if nofit:
            s += "Do not fit: " + ", ".join(
                f"{r['levels']} × {1 << int(r['slot_bits'])} (" +
                (f"needs {r['lcs']} of {DEVICE_LCS[board]} LCs)" if r["status"] == "nofit" else
                 f"{r['lcs']} of {DEVICE_LCS[board]} LCs: the placer finds no legal placement)")
                for r in nofit) + "."
        md.append(s)
    md.append("")

    md.append("## Builds")
    md.append("")
    md.append("Geometry is levels × slots per level (`LEVELS` × 2^`SLOT_BITS`), `FIFO_LOG2` = 4 throughout. "
              "A build that does not fit shows the LCs the packer needed, one that does not place (the packer "
              "fits it, the placer finds no legal placement) the LCs packed; neither has an fmax.")
    md.append("")
    md.append("| board | geometry | slots | LCs | flops | EBR | fmax MHz | target MHz | icetime MHz | result |")
    md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        md.append(fmt_row_md(r))
    md.append("")
    md.append(f"Device capacity: iCE40UP5K {DEVICE_LCS['icebreaker']} LCs, {DEVICE_EBR['icebreaker']} EBR; "
              f"iCE40HX8K {DEVICE_LCS['hx8k']} LCs, {DEVICE_EBR['hx8k']} EBR. "
              f"`fpga/report.csv` has the same rows (`lcs` is the packer's count also for a build that does "
              f"not fit; `fmax_mhz` is empty for a build that did not route).")
    md.append("")

    md.append("## Placer seeds")
    md.append("")
    md.append("A placer seed moves the clock by several per cent on the same netlist, so each board's own "
              "geometry is placed and routed at every seed (`FPGA_SEEDS`) and the fastest is kept. "
              "Timing weight is nextpnr's heap placer timing weight (`--placer-heap-timingweight`, "
              "`FPGA_TW_<board>`; its default is 10).")
    md.append("")
    md.append("| board | geometry | timing weight | seed | LCs | fmax MHz | target MHz | |")
    md.append("|---|---|---:|---:|---:|---:|---:|---|")
    for board, ts in tries.items():
        for t in ts:
            geo = f"{t['levels']} × {1 << int(t['slot_bits'])}"
            fmax = f"{float(t['fmax_mhz']):.2f}" if t.get("fmax_mhz") else "–"
            mark = "**the board's bitstream**" if t is chosen.get(board) else ""
            md.append(f"| {board} | {geo} | {t.get('placer_tw') or 10} | {t.get('seed', '?')} | "
                      f"{t.get('lcs') or '–'} | {fmax} | {t['target_mhz']} | {mark} |")
    md.append("")
    for board, ts in tries.items():
        f = sorted(float(t["fmax_mhz"]) for t in ts if t.get("fmax_mhz"))
        if f:
            md.append(f"- {board}: {len(f)} seeds, {f[0]:.2f}–{f[-1]:.2f} MHz, median {statistics.median(f):.2f}; "
                      f"target {ts[0]['target_mhz']} MHz, met at {sum(x >= float(ts[0]['target_mhz']) for x in f)} "
                      f"of them.")
    md.append("")

    md.append("## Bitstreams")
    md.append("")
    for board, dst, r in bins:
        warn = ""
        if r["status"] != "ok":
            warn = (f" **It misses timing** ({r['fmax_mhz']} MHz reached, clocked at {r['target_mhz']} MHz): "
                    f"it may load but the chip cannot be trusted at that clock.")
        md.append(f"- {board}: `{dst}` — {r['levels']} × {1 << int(r['slot_bits'])}, seed {r.get('seed', '?')}, "
                  f"{r['fmax_mhz']} MHz against {r['target_mhz']}.{warn}")
    for board, r in missing:
        why = f"{r['status']}: {r['note']}" if r else "no such build"
        md.append(f"- {board}: **no bitstream** ({why}).")
    md.append("")

    md.append("## Critical paths")
    md.append("")
    md.append("The slowest register-to-register path of each board's own bitstream build, as the HDL "
              "signals it passes through (from nextpnr's log), in order; where Yosys renamed a net after a "
              "neighbouring register or memory, that one is listed apart, in order of first appearance.")
    md.append("")
    for board, _dst, r in bins:
        if not r["fmax_mhz"]:
            continue
        cp = critical_path(os.path.join(r["dir"], "pnr.log"))
        if not cp or not cp["ns"]:
            continue
        line = f"- {board} {r['levels']} × {1 << int(r['slot_bits'])}: {cp['ns']} ns ({cp['split']})"
        if cp["signals"]:
            line += ": " + " → ".join(f"`{s}`" for s in cp["signals"])
        if cp["near"]:
            line += ("; " if cp["signals"] else ": ") + "through logic next to " + \
                    ", ".join(f"`{s}`" for s in cp["near"][:8]) + (" and others" if len(cp["near"]) > 8 else "")
        md.append(line)
    md.append("")

    md.extend(ceiling_section(a.ceiling, rows))

    md.append("## Where the area goes")
    md.append("")
    md.extend(area_section(area, rows))

    with open(a.md + ".tmp", "w") as f:
        f.write("\n".join(md).rstrip() + "\n")
    os.replace(a.md + ".tmp", a.md)

    for board, dst, r in bins:
        print(f"fpga: {board}: {dst} ({r['levels']}x{1 << int(r['slot_bits'])}, "
              f"{r['fmax_mhz']} of {r['target_mhz']} MHz)")
    print(f"fpga: wrote {a.csv} and {a.md}")
    if missing:
        for board, r in missing:
            print(f"fpga: {board}: no bitstream", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
