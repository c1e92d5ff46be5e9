#!/usr/bin/env python3
"""What the TCG plugins cost a cell: the same kernel and workload run with
no plugin, with the counter counting instructions only (as it did before it
timed waiting and spinning; built as plugin/libkbinsn-insns.so), with the
counter as kbench loads it (instructions, waiting, spinning) but without the
profile (--no-profile), and as kbench runs by default: the counter and the
profile plugin beside it (plugin/libkbprof.so, the kernel's instructions per
block start address, per phase). Each round runs the variants one after
another in a rotating order, so their cells lie side by side on a host whose
speed drifts; the table gives per variant the median of the cells' wall time
(QEMU start to domain gone), boot and workload time, and their ratios to the
cell without a plugin. A profiled kernel's first cell also lists its symbol
table once (after the job: in its wall time, not its workload's); the store
keeps it, so the rounds measure what every later cell costs.

    bench/plugin-cost.py -k KERNEL [--store DIR] [-w dd:size=256M] [-n 4]
                         [--rounds 3] [--before BUILD] [--json FILE]

--before BUILD adds a fifth variant: the guest agent of an earlier
kbench's build directory (the main branch's, say) with this build's
counter and no profile, so what a change to the agent costs (the kernel's
counters at each phase mark, its memory at the job's start and end, the
job's tasks as they exit) shows as "now" (instructions, waiting,
spinning) against "before". The earlier plugin is not used: when the
counters' shared format changed, QEMU cannot load it beside this host.

Takes about rounds x 4 (5 with --before) x n cells (some 10 s each for a
256 MiB dd on 2 TCG cores)."""
import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)


def variants(build, before):
    """name -> (the counter plugin, the guest agent, extra run options)."""
    counter = os.path.join(build, "plugin", "libkbinsn.so")
    agent = os.path.join(build, "guest", "kbench-agent")
    v = {
        "no plugin": (os.path.join(build, "plugin", "no-such-plugin.so"), agent, []),
        "instructions only": (os.path.join(build, "plugin", "libkbinsn-insns.so"), agent, ["--no-profile"]),
        "instructions, waiting, spinning": (counter, agent, ["--no-profile"]),
        "the same and the profile (the default)": (counter, agent, []),
    }
    if before:
        v["before: " + before] = (counter, os.path.join(before, "guest", "kbench-agent"), ["--no-profile"])
    return v


def run(args, variant, tag):
    plugin, agent, opts = variant
    env = dict(os.environ, KBENCH_INSN_PLUGIN=plugin, KBENCH_AGENT=agent)
    argv = [args.kbench, "--store", args.store, "run", "-k", args.kernel, "-w", args.workload, "-n", str(args.n),
            "--mem", "256", "--tag", tag, "--json", *opts]
    p = subprocess.run(argv, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit(f"plugin-cost: {' '.join(argv[3:])} exited {p.returncode}: {p.stderr.strip()[-600:]}")
    return json.loads(p.stdout)["run"]["id"]


def cells(db, run_id):
    q = """SELECT c.total_s, c.boot_s, c.workload_s,
                  (SELECT value FROM metrics m WHERE m.cell_id = c.id AND m.name = 'host.foreign_cpu_pct')
           FROM cells c WHERE c.run_id = ? AND c.state = 'ok'"""
    return db.execute(q, (run_id,)).fetchall()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kbench", default=os.path.join(TOP, "build", "cli", "kbench"))
    ap.add_argument("--store", default=os.environ.get("KBENCH_PLANTS_STORE", "/var/tmp/kbench-plants"))
    ap.add_argument("-k", "--kernel", required=True, help="a kernel in the store")
    ap.add_argument("-w", "--workload", default="dd:size=256M")
    ap.add_argument("-n", type=int, default=4, help="cells per variant and round (default 4)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--before", help="an earlier kbench's build directory: its agent as a variant")
    ap.add_argument("--json", help="write the figures as JSON to this file")
    args = ap.parse_args()
    build = os.path.dirname(os.path.dirname(os.path.abspath(args.kbench)))
    vs = variants(build, args.before)
    for name, (plugin, agent, _) in vs.items():
        for path in (agent,) if name == "no plugin" else (plugin, agent):
            if not os.path.exists(path):
                sys.exit(f"plugin-cost: {path} is not built (tools/setup.sh builds the plugins)")
    if not os.path.exists(os.path.join(build, "plugin", "libkbprof.so")):
        sys.exit("plugin-cost: plugin/libkbprof.so is not built (tools/setup.sh builds the plugins)")

    runs = {name: [] for name in vs}
    stamp = time.strftime("%Y%m%d-%H%M%S")
    names = list(vs)
    for k in range(args.rounds):
        order = names[k % len(names):] + names[:k % len(names)]
        for name in order:
            print(f"plugin-cost: round {k + 1}/{args.rounds}: {name}", file=sys.stderr, flush=True)
            runs[name].append(run(args, vs[name], f"plugin-cost-{stamp}-{k + 1}-{names.index(name)}"))

    db = sqlite3.connect(f"file:{os.path.join(args.store, 'results.db')}?mode=ro", uri=True)
    rows = {}
    for name in names:
        cs = [c for r in runs[name] for c in cells(db, r)]
        rows[name] = {
            "runs": runs[name],
            "cells": len(cs),
            "total_s": statistics.median(c[0] for c in cs),
            "boot_s": statistics.median(c[1] for c in cs),
            "workload_s": statistics.median(c[2] for c in cs),
            "foreign_cpu_pct": statistics.median(c[3] for c in cs if c[3] is not None) if any(
                c[3] is not None for c in cs) else None,
            "foreign_cpu_pct_max": max((c[3] for c in cs if c[3] is not None), default=None),
        }
    base = rows["no plugin"]
    print(f"{args.workload} on {args.kernel}, {args.rounds} rounds x {args.n} cells per variant, medians:")
    print("| plugin | cells | cell wall time | boot | workload | cell time / no plugin | workload / no plugin | "
          "host.foreign_cpu_pct, median |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in names:
        r = rows[name]
        fc = "n/a" if r["foreign_cpu_pct"] is None else \
            f"{r['foreign_cpu_pct']:.0f} % (max {r['foreign_cpu_pct_max']:.0f} %)"
        print(f"| {name} | {r['cells']} | {r['total_s']:.2f} s | {r['boot_s']:.2f} s | {r['workload_s']:.2f} s | "
              f"{r['total_s'] / base['total_s']:.3f} | {r['workload_s'] / base['workload_s']:.3f} | {fc} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"workload": args.workload, "kernel": args.kernel, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
