#!/usr/bin/env python3
"""Where the floors of the judged amounts come from: the A/A distribution of
every amount compare judges by its difference beyond a floor
(guest.<phase>.wait_s, spin_s, vmstat.swap_*_MiB), measured on this host
under a given load, and the false-alarm rate each candidate floor would
have on it.

The A/A pair is the tiny base kernel and 6.1-night1, the same tree with
only its release renamed (bench/plants/night1.patch), measured together,
interleaved in each run, as a night measures the baseline beside a new
kernel. Each run is compared within itself with kbench compare (no verdict
is the right answer); the base's runs are also compared with each other
across runs. Every cell's amounts are written as "METRIC RUN KERNEL
VALUE" lines and resampled by build/bench/floor-sim resample, which says
per metric and candidate floor how often compare's own rule gives a
verdict on an A/A pair of 6 cells a side, within one run and across two,
and how often a plant is still called worse.

    bench/floors.py [--store DIR] [--load idle|cpu|disk] [--runs 3] [-n 8]
                    [--swap-runs 1] [--out DIR]

--load cpu runs two `yes` loops beside the guests, --load disk two
direct-I/O dd loops on the host's disk (bench/plants.py's --busy and
--disk-busy). The swap amounts need swap and an anonymous buffer to
reclaim: --swap-runs runs of dd:size=256M,bs=32M with 128 MiB of swap, as
the swap-reclaim plant is measured. Writes DIR/LOAD.json (every cell's
amounts, the verdicts, host.foreign_cpu_pct) and DIR/LOAD.cells (for
floor-sim), and prints the distributions and floor-sim's table."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plants  # noqa: E402

BASE = "6.1-base"
AMOUNT = (".wait_s", ".spin_s", "_MiB")
LOADS = {"idle": (0, 0), "cpu": (2, 0), "disk": (0, 2)}


def amounts_of(cmp, run_id, kernels, swap):
    """Per judged amount, the cells' values of each side: (metric, run,
    kernel, value); of a swap run its swap amounts, of another run the
    others (without swap it swaps nothing, and the swap workload's waiting
    is another workload's)."""
    out = []
    for g in cmp["groups"]:
        for m in g["metrics"]:
            if not (m["judged"] and m["name"].endswith(AMOUNT)) or m["name"].endswith("_MiB") != swap:
                continue
            for side, k in (("a", kernels[0]), ("b", kernels[1])):
                out += [(m["name"], run_id, k, v) for v in m[side]["values"] or [] if v is not None]
    return out


def foreign_of(cmp):
    vals = []
    for g in cmp["groups"]:
        for m in g["metrics"]:
            if m["name"] == "host.foreign_cpu_pct":
                vals += [v for side in "ab" for v in m[side]["values"] or [] if v is not None]
    return vals


def verdicts(cmp):
    return [f"{m['name']} {m['verdict']}" for g in cmp["groups"] for m in g["metrics"]
            if m["verdict"] in ("worse", "better")]


def measure(args, workload, opts, tag, pairs, swap=False):
    """One run of the A/A pair; its within-run comparison. Appends to pairs."""
    out, secs = plants.run(args.kbench, args.store, [BASE, plants.AA_PARTNER[0]], args.n, workload, opts, tag)
    rid = out["run"]["id"]
    cmp = plants.compare(args.kbench, args.store, f"run:{rid}:{BASE}", f"run:{rid}:{plants.AA_PARTNER[0]}")
    pairs.append({"run": rid, "workload": workload, "seconds": secs, "verdicts": verdicts(cmp),
                  "foreign_cpu_pct": foreign_of(cmp),
                  "cells": amounts_of(cmp, rid, [BASE, plants.AA_PARTNER[0]], swap)})
    return rid


def pct(vals, q):
    s = sorted(vals)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def distributions(cells):
    by = {}
    for metric, _, _, v in cells:
        by.setdefault(metric, []).append(v)
    print("| amount | cells | median | p90 | p99 | max |")
    print("|---|---:|---:|---:|---:|---:|")
    for metric in sorted(by):
        v = by[metric]
        print(f"| {metric} | {len(v)} | {statistics.median(v):.3g} | {pct(v, 0.9):.3g} | {pct(v, 0.99):.3g} | "
              f"{max(v):.3g} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kbench", default=os.path.join(plants.TOP, "build", "cli", "kbench"))
    ap.add_argument("--floor-sim", default=os.path.join(plants.TOP, "build", "bench", "floor-sim"))
    ap.add_argument("--store", default=os.environ.get("KBENCH_PLANTS_STORE", "/var/tmp/kbench-plants"))
    ap.add_argument("--load", choices=sorted(LOADS), default="idle")
    ap.add_argument("--runs", type=int, default=3, help="runs of dd:size=256M (default 3)")
    ap.add_argument("--swap-runs", type=int, default=1, help="runs of the swap workload (default 1)")
    ap.add_argument("-n", type=int, default=8, help="cells per kernel and run (default 8)")
    ap.add_argument("--reps", type=int, default=2000,
                    help="floor-sim's resampled pairs per row (0: leave the resampling for later: it costs minutes of "
                         "CPU, which a quiet window for figures should not spend)")
    ap.add_argument("--out", default=".", help="where LOAD.json and LOAD.cells go")
    args = ap.parse_args()
    os.makedirs(args.store, mode=0o711, exist_ok=True)
    os.chmod(args.store, 0o711)
    plants.build(args.kbench, args.store, BASE, None)
    plants.build(args.kbench, args.store, *plants.AA_PARTNER)

    stamp = time.strftime("%Y%m%d-%H%M%S")
    pairs, across = [], []
    busy = plants.load(args.store, *LOADS[args.load])
    try:
        base_runs = [measure(args, plants.DD, [], f"floors-{args.load}-{stamp}-{k}", pairs) for k in range(args.runs)]
        swap_opts = plants.CLASSES["swap-reclaim"][4]
        swap_wl = plants.CLASSES["swap-reclaim"][5]
        for k in range(args.swap_runs):
            measure(args, swap_wl, swap_opts, f"floors-{args.load}-{stamp}-swap{k}", pairs, swap=True)
        for i in range(len(base_runs)):
            for j in range(i + 1, len(base_runs)):
                a, b = base_runs[i], base_runs[j]
                cmp = plants.compare(args.kbench, args.store, f"run:{a}:{BASE}", f"run:{b}:{BASE}")
                across.append({"runs": [a, b], "verdicts": verdicts(cmp)})
    finally:
        plants.stop_load(busy, args.store)

    cells = [c for p in pairs for c in p["cells"]]
    foreign = [v for p in pairs for v in p["foreign_cpu_pct"]]
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"{args.load}.json"), "w") as f:
        json.dump({"load": args.load, "n": args.n, "pairs": pairs, "across": across}, f, indent=1)
    cells_file = os.path.join(args.out, f"{args.load}.cells")
    with open(cells_file, "w") as f:
        f.write(f"# bench/floors.py --load {args.load}, {stamp}\n")
        for metric, run, kernel, v in cells:
            f.write(f"{metric} {run} {kernel} {v!r}\n")

    print(f"load {args.load}: host.foreign_cpu_pct mean {statistics.mean(foreign):.1f} %, max {max(foreign):.1f} % "
          f"over {len(foreign)} cells")
    for p in pairs:
        print(f"run {p['run']} ({p['workload']}, {p['seconds']:.0f} s): A/A together: "
              f"{', '.join(p['verdicts']) or 'no verdict'}")
    for a in across:
        print(f"runs {a['runs'][0]}, {a['runs'][1]}: A/A across runs: {', '.join(a['verdicts']) or 'no verdict'}")
    print()
    distributions(cells)
    print()
    sys.stdout.flush()
    if args.reps > 0:
        subprocess.run([args.floor_sim, "resample", cells_file, str(args.reps)], check=True)
    false = [p["run"] for p in pairs if p["verdicts"]] + [a["runs"] for a in across if a["verdicts"]]
    return 1 if false else 0


if __name__ == "__main__":
    sys.exit(main())
