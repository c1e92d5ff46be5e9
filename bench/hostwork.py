#!/usr/bin/env python3
"""Does a kernel that drives more host work mark its own cells contended?

host.foreign_cpu_pct (host/hostload.c) is the host's busy CPU during a
cell's workload, less its own QEMU's and kbench's: the host's interrupt
and softirq time, its kworker and ksoftirqd threads and any libvirt
daemon count as foreign, though a guest's disk requests cause some of it
(its disk is a file opened cache=none: every request is a host I/O). This
measures how much: it runs kernels that drive very different amounts of
host I/O interleaved in one run (the base, and bench/plants' readahead
plant, whose 4-page readahead issues about 16 times the read requests),
samples the host's /proc every 0.25 s beside it, and per cell, over its
workload window (its start plus boot_s, for workload_s), splits the host's
CPU into its irq + softirq time, kworker and ksoftirqd threads, and
libvirt daemons (libvirtd, virtqemud, virtlogd), each as a share of the
host's capacity, as host.foreign_cpu_pct is. The table per kernel is what
the guest's own I/O costs the host outside its QEMU, against the limit a
contended cell is held to (10 %).

    bench/hostwork.py [--store DIR] [-n 6] [--kernels 6.1-base,6.1-readahead]
                      [--json FILE]

Run it on a quiet host (/work/bin/kb-quiet): other work lands in the same
counters."""
import argparse
import json
import os
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plants  # noqa: E402

CLASSES = ("kworker", "ksoftirqd", "libvirt")
DAEMONS = ("libvirtd", "virtqemud", "virtlogd")
TCK = os.sysconf("SC_CLK_TCK")
NCPU = os.cpu_count()


def classify(comm):
    if comm.startswith("kworker"):
        return "kworker"
    if comm.startswith("ksoftirqd"):
        return "ksoftirqd"
    if comm in DAEMONS:
        return "libvirt"
    return None


def snapshot():
    """(time, irq + softirq ticks, {class: ticks}) of the host now."""
    t = time.time()
    with open("/proc/stat") as f:
        cpu = f.readline().split()
    irq = int(cpu[6]) + int(cpu[7])
    ticks = dict.fromkeys(CLASSES, 0)
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                s = f.read()
        except OSError:
            continue
        comm = s[s.index("(") + 1:s.rindex(")")]
        cls = classify(comm)
        if cls:
            rest = s[s.rindex(")") + 2:].split()
            ticks[cls] += int(rest[11]) + int(rest[12])   # utime, stime
    return t, irq, ticks


class Sampler(threading.Thread):
    def __init__(self):
        super().__init__(daemon=True)
        self.samples, self.stop = [], threading.Event()

    def run(self):
        while not self.stop.is_set():
            self.samples.append(snapshot())
            time.sleep(0.25)

    def at(self, t):
        """The sample nearest t."""
        return min(self.samples, key=lambda s: abs(s[0] - t))

    def share(self, t0, t1):
        """Each class's CPU over [t0, t1] as % of the host's capacity."""
        a, b = self.at(t0), self.at(t1)
        wall = b[0] - a[0]
        if wall <= 0:
            return None
        scale = 100 / (wall * TCK * NCPU)
        out = {"irq+softirq": (b[1] - a[1]) * scale}
        for c in CLASSES:
            # A thread that exited between the samples takes its ticks away: not below 0.
            out[c] = max(0, b[2][c] - a[2][c]) * scale
        return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kbench", default=os.path.join(plants.TOP, "build", "cli", "kbench"))
    ap.add_argument("--store", default=os.environ.get("KBENCH_PLANTS_STORE", "/var/tmp/kbench-plants"))
    ap.add_argument("-n", type=int, default=6)
    ap.add_argument("--kernels", default="6.1-base,6.1-readahead")
    ap.add_argument("--json")
    args = ap.parse_args()
    kernels = args.kernels.split(",")
    for k in kernels:
        cls = k[len("6.1-"):]
        plants.build(args.kbench, args.store, k, plants.CLASSES[cls][0] if cls in plants.CLASSES else None)
    sampler = Sampler()
    sampler.start()
    out, secs = plants.run(args.kbench, args.store, kernels, args.n, plants.DD, [], f"hostwork-{int(time.time())}")
    time.sleep(0.5)
    sampler.stop.set()
    sampler.join()
    shown = json.loads(plants.run_kbench(args.kbench, args.store, "show", "--json", str(out["run"]["id"])).stdout)
    per = {k: [] for k in kernels}
    for c in shown["cells"]:
        if c["state"] != "ok" or c["kernel"] not in per:
            continue
        t0 = c["started_at"] + c["boot_s"]
        sh = sampler.share(t0, t0 + c["workload_s"])
        fc = (c["metrics"].get("host.foreign_cpu_pct") or {}).get("value")
        if sh:
            per[c["kernel"]].append(dict(sh, foreign_cpu_pct=fc))
    print(f"run {out['run']['id']}, {secs:.0f} s, {NCPU} CPUs; shares of the host's capacity over each cell's workload")
    print("| kernel | cells | host.foreign_cpu_pct mean / max | irq + softirq | kworker | ksoftirqd | libvirt daemons |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for k, rows in per.items():
        if not rows:
            continue
        fc = [r["foreign_cpu_pct"] for r in rows if r["foreign_cpu_pct"] is not None]
        cols = [f"{statistics.mean(r[c] for r in rows):.2f} % (max {max(r[c] for r in rows):.2f})"
                for c in ("irq+softirq",) + CLASSES]
        print(f"| {k} | {len(rows)} | {statistics.mean(fc):.1f} / {max(fc):.1f} % | {' | '.join(cols)} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"run": out["run"]["id"], "cells": per}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
